// The text formatters (terminal table, Markdown, the experiments' own tables): strings, '-' for missing values.
// HTML pages format with html.js (locale digits); compare's Markdown with its own cells.

// Milliseconds as a short string: 0.4, 12.3, 456, 12.3s.
export function fmtMs (x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-'
  if (x >= 10000) return `${(x / 1000).toFixed(1)}s`
  if (x >= 100) return String(Math.round(x))
  return x.toFixed(1)
}

// A number with `digits` decimals, '-' when missing.
export function fmtNum (x, digits = 1) {
  return x === null || x === undefined ? '-' : Number(x).toFixed(digits)
}

// Bytes as whole mebibytes (64M), '-' when missing.
export function fmtMb (bytes) {
  return bytes === null || bytes === undefined ? '-' : `${Math.round(bytes / 1048576)}M`
}

// A count, '-' when missing.
export function fmtCount (x) {
  return x === null || x === undefined ? '-' : String(x)
}

// A ratio as a whole percentage, '-' when missing.
export function fmtPct (x) {
  return x === null || x === undefined || Number.isNaN(x) ? '-' : `${Math.round(x * 100)}%`
}

// A ratio as ×N.NN, '-' when either side is missing or zero.
export function fmtRatio (a, b) {
  if (!(a > 0) || !(b > 0)) return '-'
  return `×${(a / b).toFixed(2)}`
}
