// Shared HTML helpers for the report pages: escaping, number formatting, tables and the page shell.
// Everything here is a pure function of its arguments; nothing reaches the network.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

// Escapes any value for use in HTML text or a double- or single-quoted attribute.
export function esc (value) {
  if (value === null || value === undefined) return ''
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c])
}

// Formats a number for a table cell: null/undefined/NaN become an em dash.
export function num (value, digits = 1) {
  if (value === null || value === undefined || typeof value !== 'number' || !Number.isFinite(value)) return '—'
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return value.toLocaleString('en-US')
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

// Renders a table from a header row and body rows of already-escaped HTML cells.
export function table (head, rows, { className = '' } = {}) {
  const th = head.map((h) => `<th scope="col">${h}</th>`).join('')
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')
  return `<table class="${esc(className)}"><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

// Wraps body HTML in a complete, self-contained page (inline CSS, no scripts, no external URL).
export function page ({ title, body }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
${body}
</body>
</html>
`
}

export const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
main { max-width: 1180px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
table { border-collapse: collapse; background: #fff; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: right; }
th { background: #eef1f4; }
td:first-child, th:first-child { text-align: left; }
`
