// A history shown: the page (one small chart per series, its change points marked, the machines shaded)
// and the CSV in the layout Apache Otava's CSV importer reads (one row per report: time, commit, report,
// machine, then one column per series).
import { CHART_CONFIG, PALETTE, renderSvg } from '../report/charts.js'
import { page } from '../report/html.js'
import { figure } from '../report/page.js'
import { csvCell, esc } from '../text/escape.js'
import { changeText, pText } from '../text/history.js'

// One series' chart: its points over report order (a dot hollow where the lab did not trust the run),
// the machines' periods shaded, and a rule at each change (solid for code, dashed for a machine).
export function seriesSpec (s, { width = 300, height = 120 } = {}) {
  const values = s.points.map((p, i) => ({
    i, value: p.value, report: p.report, machine: p.machine, trusted: p.trusted
  }))
  const periods = []
  s.points.forEach((p, i) => {
    if (periods.length && periods.at(-1).machine === p.machine) periods.at(-1).to = i + 0.5
    else periods.push({ machine: p.machine, from: i - 0.5, to: i + 0.5 })
  })
  const changes = s.changes.map((c) => ({ at: c.index - 0.5, cause: c.cause, p: pText(c.pValue) }))
  const x = { field: 'i', type: 'quantitative', title: 'report', axis: { tickMinStep: 1, format: 'd' } }
  const layers = [
    {
      data: { values: periods },
      mark: { type: 'rect', opacity: 0.12 },
      encoding: {
        x: { field: 'from', type: 'quantitative' },
        x2: { field: 'to' },
        color: { field: 'machine', type: 'nominal', title: 'machine', scale: { range: PALETTE.slice(4) } }
      }
    },
    {
      data: { values },
      mark: { type: 'line', color: PALETTE[0], point: false },
      encoding: {
        x,
        y: { field: 'value', type: 'quantitative', title: `${s.figure} (${s.unit})`, scale: { zero: false } }
      }
    },
    {
      data: { values },
      mark: { type: 'point', color: PALETTE[0], size: 30 },
      encoding: {
        x,
        y: { field: 'value', type: 'quantitative' },
        fill: { condition: { test: 'datum.trusted', value: PALETTE[0] }, value: 'transparent' },
        tooltip: [{ field: 'report' }, { field: 'value' }, { field: 'machine' }]
      }
    }
  ]
  if (changes.length) {
    layers.push({
      data: { values: changes },
      mark: { type: 'rule', color: PALETTE[5], strokeWidth: 2 },
      encoding: {
        x: { field: 'at', type: 'quantitative' },
        strokeDash: {
          field: 'cause',
          type: 'nominal',
          title: 'change',
          scale: { domain: ['code', 'machine'], range: [[1, 0], [4, 3]] }
        }
      }
    })
  }
  const $schema = 'https://vega.github.io/schema/vega-lite/v5.json'
  return { $schema, width, height, config: CHART_CONFIG, layer: layers }
}

// The page of a history: a head, the left-out reports, then one chart per series (those with a change first).
export function renderHistoryHtml (h) {
  const changed = h.series.filter((s) => s.changes.length)
  const rest = h.series.filter((s) => !s.changes.length)
  const card = (s, i) => {
    const svg = renderSvg(seriesSpec(s), { id: `series-${i}` })
    const lines = s.changes.map((c) => `<li>${esc(changeText(s, c))}</li>`).join('')
    const short = s.status === 'too-short' ? ' <span class="muted">(too short for the test)</span>' : ''
    const caption = `<strong>${esc(s.id)}</strong>${short}` +
      (lines ? `<ul>${lines}</ul>` : '')
    return figure('series', svg, caption, { series: s.id, changes: String(s.changes.length), status: s.status })
  }
  const skipped = (h.skipped ?? []).length
    ? `<h2>Left out</h2><ul>${h.skipped.map((x) => `<li>${esc(x.message)}</li>`).join('')}</ul>`
    : ''
  const p = h.parameters
  const body = `<h1>History</h1>
<p>${h.reports.length} reports on ${h.machines.length} machine(s), ${h.series.length} series,
${changed.length} with a change.
E-divisive means with a Welch t-test (p ≤ ${p.maxPValue}), segments of ${p.minSegment} reports or more; each machine's
points tested apart, a move to another machine shaded and marked dashed.</p>
${skipped}
<style>.history { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 12px; }
.history figure { margin: 0; } .history ul { margin: 4px 0; padding-left: 18px; font-size: 12px; }</style>
<section class="history">
${[...changed, ...rest].map(card).join('\n')}
</section>`
  return page({ title: 'loadlab history', body })
}

// The CSV: one row per report in time order, columns time, commit, report, machine, then one per series
// (its id: experiment, run key, figure), empty where the report has no such figure.
export function historyCsv (h) {
  const columns = h.series.map((s) => s.id)
  const byReport = new Map(h.reports.map((r) => [r.id, new Map()]))
  for (const s of h.series) for (const p of s.points) byReport.get(p.report)?.set(s.id, p.value)
  const rows = [['time', 'commit', 'report', 'machine', ...columns].map(csvCell).join(',')]
  for (const r of h.reports) {
    const v = byReport.get(r.id)
    rows.push([r.at, r.commit, r.id, r.machine, ...columns.map((c) => v.get(c))].map(csvCell).join(','))
  }
  return rows.join('\n') + '\n'
}
