// compare's view of overload results: each report's goodput share, shed share and p99 at every multiple
// of C, and the recovery after the burst, lined up per run (same key). Cells are plain data (compare.js),
// the Markdown and HTML tables are pure strings (render.js places them).
import { table } from '../report/html.js'
import { esc, mdCode } from '../text/escape.js'
import { markdownTable } from '../report/markdown.js'
import { MISSING, fmtPct as pct } from '../text/format.js'
import { isNum } from '../result/stats.js'
import { fmtRecovery } from '../text/sentences.js'

// A result's overload figures for compare, or null: { capacityRps, sloMs, steps: { multiple: { goodput,
// shed, p99 } }, recovery (the result's: { ms, metastable, burstEndMs, observedMs }) }.
export function overloadCell (r) {
  const o = r.overload
  if (!o || o.refused) return null
  const steps = {}
  for (const s of o.steps ?? []) steps[s.multiple] = { goodput: s.goodputShare, shed: s.shedShare, p99: s.p99 }
  return {
    capacityRps: o.capacityRps,
    sloMs: o.sloMs,
    steps,
    recovery: o.recovery ?? null
  }
}

// The multiples any report's overload ran, in order.
function multiplesOf (rows) {
  const all = rows.flatMap((row) => row.cells.flatMap((c) => Object.keys(c?.overload?.steps ?? {}).map(Number)))
  return [...new Set(all)].sort((a, b) => a - b)
}

// Head and rows of the overload table; `code` wraps a key, cells are plain text.
function overloadRows (cmp, http, code) {
  const rows = http.filter((row) => row.cells.some((c) => c?.overload))
  if (!rows.length) return null
  const multiples = multiplesOf(rows)
  const head = ['run', ...cmp.reports.flatMap((r) => [
    `${r.letter} C req/s`, ...multiples.map((m) => `${r.letter} ${m}× goodput / shed`), `${r.letter} recovery`
  ])]
  const body = rows.map((row) => [code(row.key), ...row.cells.flatMap((c) => {
    const o = c?.overload
    if (!o) return [MISSING, ...multiples.map(() => MISSING), MISSING]
    const steps = multiples.map((m) => (o.steps[m] ? `${pct(o.steps[m].goodput)} / ${pct(o.steps[m].shed)}` : MISSING))
    return [isNum(o.capacityRps) ? String(o.capacityRps) : MISSING, ...steps, fmtRecovery(o.recovery)]
  })])
  return { head, rows: body }
}

const LEAD = 'Past capacity (the overload experiment): goodput (verified 2xx within the target) and shed answers ' +
  "as shares of each run's C at each multiple of it, and the time to recover from the burst."

// The Markdown section ([] without overload results).
export function overloadMarkdown (cmp, http) {
  const t = overloadRows(cmp, http, (key) => ({ md: mdCode(key) }))
  return t ? ['## Past capacity', '', LEAD, '', markdownTable(t, { numeric: true })] : []
}

// The HTML section ('' without overload results).
export function overloadHtml (cmp, http) {
  const t = overloadRows(cmp, http, (key) => `<code>${esc(key)}</code>`)
  if (!t) return ''
  const body = t.rows.map((row) => row.map((c, i) => (i === 0 ? c : esc(c))))
  return `<section class="block"><h2>Past capacity</h2><p class="lead">${esc(LEAD)}</p>` +
    `${table(t.head.map(esc), body, { className: 'overload' })}</section>`
}
