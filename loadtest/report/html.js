// Shared HTML helpers for the report and compare pages: the figures of format.js as HTML, tables, the
// machine/method summaries and the page shell. Pure functions; nothing here reaches the network.
import { isNum } from '../result/stats.js'
import { MISSING, mibGib, msGrouped, numGrouped, pctFixed, utcWhen } from '../text/format.js'
import { esc } from '../text/escape.js'
import { rulerLine, rulerMethodLine, rulerMovedLine, rulerRows } from '../text/ruler.js'

const DASH = `<span class="na" title="not measured">${MISSING}</span>`

// A figure formatted by format.js, as HTML: escaped, and MISSING marked as not measured.
export function figureHtml (text) {
  return text === MISSING ? DASH : esc(text)
}

// numGrouped as HTML (grouping, `digits` decimals, integers without).
export const numHtml = (value, digits = 1) => figureHtml(numGrouped(value, digits))

// msGrouped as HTML (a duration in ms with the precision that suits its size: 0.076, 4.21, 42.1, 4,200).
export const msHtml = (value) => figureHtml(msGrouped(value))

// pctFixed as HTML (a ratio 0..1 as a percentage).
export const pctHtml = (value, digits = 0) => figureHtml(pctFixed(value, digits))

// mibGib as HTML (a byte count as MiB/GiB).
export const bytesHtml = (value) => figureHtml(mibGib(value))

// utcWhen as HTML (an ISO date as "2026-11-22 04:31:07 UTC"; anything else escaped as is).
export const whenHtml = (iso) => figureHtml(utcWhen(iso))

// Renders a table from a header row and body rows of already-escaped HTML cells; `rowClass(i)` may
// give a class per row. Cells may be strings or { html, className }.
export function table (head, rows, { className = '', rowClass = () => '', caption = '' } = {}) {
  const cell = (tag, c) =>
    typeof c === 'object' && c !== null
      ? `<${tag} class="${esc(c.className ?? '')}">${c.html}</${tag}>`
      : `<${tag}>${c}</${tag}>`
  const th = head.map((h) => cell('th', h)).join('')
  const body = rows
    .map((r, i) => {
      const cls = rowClass(i)
      return `<tr${cls ? ` class="${esc(cls)}"` : ''}>${r.map((c) => cell('td', c)).join('')}</tr>`
    })
    .join('\n')
  return '<div class="table-wrap"><table ' +
    `class="${esc(className)}">${caption ? `<caption>${caption}</caption>` : ''}<thead><tr>${th}</tr></thead><tbody>
${body}
</tbody></table></div>`
}

// Renders a report's free-form `table` ({ head: [...], rows: [[...]] }) with every cell escaped.
export function genericTable (t) {
  if (!t || !Array.isArray(t.head) || !Array.isArray(t.rows)) return ''
  const cell = (v) => {
    if (v === null || v === undefined) return DASH
    if (typeof v === 'number') return numHtml(v, 2)
    if (typeof v === 'boolean') return v ? '✓' : '<span class="bad">✗</span>'
    if (typeof v === 'object') return `<code>${esc(JSON.stringify(v))}</code>`
    return esc(v)
  }
  return table(
    t.head.map((h) => esc(h)),
    t.rows.map((r) => (Array.isArray(r) ? r : [r]).map(cell)),
    { className: 'generic' }
  )
}

function dl (pairs) {
  return `<dl>${pairs.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`
}

// The machine card: CPU, cores, memory, OS, Node/V8, package versions, load at start.
export function machineCard (report) {
  const m = report.machine ?? {}
  const versions =
    m.versions && typeof m.versions === 'object'
      ? Object.entries(m.versions)
        .map(([k, v]) => `${esc(k)} ${esc(v ?? '?')}`)
        .join(' · ')
      : DASH
  const parallelism = isNum(m.availableParallelism) && m.availableParallelism !== m.cores
    ? ` (available parallelism ${m.availableParallelism})`
    : ''
  const cores = isNum(m.cores) ? `${m.cores}${parallelism}` : DASH
  const os =
    m.os && typeof m.os === 'object'
      ? `${esc(m.os.type)} ${esc(m.os.release)} · ${esc(m.os.platform)}/${esc(m.arch)}`
      : esc(m.arch)
  const label =
    typeof report.label === 'string' && report.label !== '' ? [['label', `<b>${esc(report.label)}</b>`]] : []
  return `<section class="card" aria-label="machine"><h2>Machine</h2>${dl([
    ...label,
    ['host', esc(m.hostname) || DASH],
    ['CPU', esc(m.cpuModel) || DASH],
    ['cores', cores],
    ['memory', bytesHtml(m.memoryBytes)],
    ['OS', os || DASH],
    [
      'Node / V8',
      `${esc(m.node) || DASH} / ${esc(m.v8) || DASH}` +
        (m.nodeSupported ? ` <span class="muted">(supported: ${esc(m.nodeSupported)})</span>` : '')
    ],
    ['packages', versions],
    [
      'load average',
      Array.isArray(m.loadavg)
        ? m.loadavg.map((x) => numHtml(x, 2)).join(' · ') + ' <span class="muted">(1, 5, 15 min at start)</span>'
        : DASH
    ]
  ])}</section>`
}

// The ruler's section: the machine read before and after the run (text/ruler.js), a marked notice when it
// moved beyond its spread, its table; '' for a report without one.
export function rulerSection (report) {
  const ruler = report.ruler
  if (!ruler?.start) return ''
  const moved = rulerMovedLine(ruler)
  const [head, ...rows] = rulerRows(ruler)
  return `<section class="block" id="ruler"><h2>Ruler</h2><p class="lead">${esc(rulerLine(ruler))}</p>
${moved ? `<div class="notice" data-flag="ruler-moved"><h3>⚠ ${esc(moved)}</h3></div>` : ''}
${table(head.map(esc), rows.map((r) => r.map((c) => figureHtml(c))), { className: 'ruler' })}
<p class="muted">${esc(rulerMethodLine(ruler))}</p></section>`
}

// The method card: tool, load shape, warm-up, runs, target and the exact command.
export function methodCard (report) {
  const m = report.method ?? {}
  const warm =
    m.warmup && typeof m.warmup === 'object'
      ? isNum(m.warmup.amount)
        ? `${numHtml(m.warmup.amount)} requests`
        : isNum(m.warmup.durationSec)
          ? `${numHtml(m.warmup.durationSec)} s`
          : DASH
      : 'none'
  const load = isNum(m.amount)
    ? `${numHtml(m.amount)} requests`
    : isNum(m.durationSec) ? `${numHtml(m.durationSec)} s` : DASH
  return `<section class="card" aria-label="method"><h2>Method</h2>${dl([
    ['tool', `${esc(m.tool) || DASH}${m.toolVersion ? ` ${esc(m.toolVersion)}` : ''}`],
    [
      'load',
      m.loop === 'open'
        ? `open loop${isNum(m.rate)
? `, ${numHtml(m.rate)} requests/s`
: ', rates chosen ' +
          'by the sweep'}, ${esc(m.arrival ?? 'constant')} ` +
            `arrivals${isNum(m.seed) ? ` (seed ${numHtml(m.seed)})` : ''}; latency from each request's due time`
        : m.loop === 'closed'
          ? 'closed loop: each connection sends its next request when the last one answers'
          : DASH
    ],
    [m.loop === 'open' ? 'connection cap' : 'connections', numHtml(m.connections)],
    ['measured round', load],
    ['timeout', isNum(m.timeoutSec) ? `${numHtml(m.timeoutSec)} s` : DASH],
    ['warm-up', warm],
    ...(Array.isArray(m.runtimes)
      ? [['servers under', m.runtimes.map((r) => `${esc(r.node)} <span ` +
        `class="muted">(V8 ${esc(r.v8)})</span>`).join(' · ')]]
      : []),
    [
      'runs',
      isNum(m.runs)
        ? `${numHtml(m.runs)}${m.runs > 1 ? ' <span class="muted">(figures are the median round)</span>' : ''}`
        : DASH
    ],
    [
      'target',
      m.tool === 'in-process'
        ? 'in-process (no HTTP)'
        : m.url
          ? `<code>${esc(m.url)}</code> <span class="muted">(started by hand)</span>`
          : 'servers started by the lab'
    ],
    [
      'outside sampling',
      m.outsideSampling
        ? `CPU, RSS, processes from ${m.sampler === 'ps' ? '<code>ps</code>' : '/proc'}`
        : m.tool === 'in-process'
          ? 'not applicable'
          : '<span class="warn-text">off</span>'
    ],
    ...(m.task && typeof m.task === 'object' ? [['task', taskCell(m.task)]] : []),
    [
      'run',
      whenHtml(report.createdAt) +
        (report.finishedAt ? ` → ${whenHtml(report.finishedAt)}` : ' <span class="warn-text">(not finished)</span>')
    ]
  ])}<pre class="command"><code>${esc(m.command) || MISSING}</code></pre></section>`
}

// A --task's identity: its path and export, and short hashes of its file and input.
function taskCell (t) {
  const short = (hash) => esc(String(hash).slice(0, 12)) + '…'
  const input = t.inputSha256
    ? `input ${short(t.inputSha256)} <span class="muted">(${esc(t.inputFrom)})</span>`
    : 'its <code>input</code> export'
  const name = esc(t.path) + (t.export && t.export !== 'default' ? '#' + esc(t.export) : '')
  return `<code>${name}</code> · file ${short(t.fileSha256)} · ${input}`
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
<main>
${body}
</main>
</body>
</html>
`
}

// The pages' stylesheet (inline; no web fonts, no images).
const CSS = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; --card: #fff; --bad: #cf222e; --warn: ` +
  `#9a6700; --ok: #1a7f37; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; margin: ` +
  `0; color: var(--fg); background: var(--bg); }
main { max-width: 1240px; margin: 0 auto; padding: 28px 24px 48px; }
header.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 8px 16px; margin-bottom: 18px; }
h1 { font-size: 24px; margin: 0; letter-spacing: -0.01em; }
h1 .sub { font-weight: 400; color: var(--muted); }
h2 { font-size: 16px; margin: 0 0 10px; }
section.block { margin-top: 26px; }
section.block > h2 { font-size: 18px; margin-bottom: 4px; }
p.lead { margin: 0 0 12px; color: var(--muted); max-width: 80ch; }
.badge { display: inline-block; padding: 1px 10px; border-radius: 999px; font-size: 12px; font-weight: 600; ` +
  `border: 1px solid currentColor; }
.badge.complete { color: var(--ok); } .badge.partial { color: var(--warn); } .badge.failed { color: var(--bad); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #f0f2f5; border-radius: 6px; padding: 8px 10px; margin: 10px 0 0; white-space: pre-wrap; ` +
  `overflow-wrap: anywhere; font-size: 12.5px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); } .warn-text { color: var(--warn); } .bad { color: var(--bad); font-weight: 600; }
.na { color: #8c959f; }
.notice { border-left: 4px solid var(--warn); background: #fff8c5; padding: 8px 12px; border-radius: 0 6px 6px 0; ` +
  `margin: 10px 0; }
.notice.failed { border-color: var(--bad); background: #ffebe9; }
.notice.info { border-color: #0969da; background: #ddf4ff; }
.notice h3 { font-size: 14px; margin: 0 0 4px; }
pre.decision-command { background: #fff; border: 1px solid #0969da; margin: 4px 0 8px; font-size: 14px; }
pre.decision-command code { font-size: 14px; }
.notice ul { margin: 4px 0 0; padding-left: 20px; }
figure.chart { margin: 0 0 16px; background: var(--card); border: 1px solid var(--line); border-radius: 8px; ` +
  `padding: 12px; overflow-x: auto; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figure.chart figcaption { color: var(--muted); font-size: 13px; margin: 0 0 6px; }
figure.chart figcaption b { color: var(--fg); }
.charts-row { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
caption { text-align: left; padding: 8px 10px; color: var(--muted); }
th, td { padding: 5px 8px; text-align: right; border-bottom: 1px solid #eaeef2; white-space: nowrap; ` +
  `vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; position: sticky; top: 0; }
th:first-child, td:first-child { text-align: left; }
td.text, th.text { text-align: left; white-space: normal; min-width: 18ch; }
tr.untrusted td { background: #fff8c5; }
tr.failed td { background: #ffebe9; }
tr:last-child td { border-bottom: 0; }
td .why { display: block; font-size: 12px; color: var(--warn); white-space: normal; max-width: 36ch; }
tr.failed td .why { color: var(--bad); }
td .note { display: block; font-size: 12px; color: var(--muted); white-space: normal; max-width: 36ch; }
th.group { text-align: center; border-left: 2px solid var(--line); }
td.gstart, th.gstart { border-left: 2px solid var(--line); }
.ratio-up { color: var(--ok); } .ratio-down { color: var(--bad); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`
