// Where the time went, on the page: for each strategy, the request at the latency's p50 and the one at its
// p99 as stacked bars of their phases (result/phases.js), in ms, one colour per phase in the order a
// request meets them. Pure spec builder and the section's HTML; charts.js renders.
import { AXIS_COLORS, CHART_BASE, renderSvg } from './charts.js'
import { esc } from '../text/escape.js'
import { runName } from '../result/key.js'
import { PHASES } from '../result/phases.js'

const CONFIG = { ...CHART_BASE, axis: { ...AXIS_COLORS, gridColor: '#eaeef2' } }
// One colour per phase (the lab's own sent and reply in greys around the server's).
const COLORS = ['#afb8c1', '#bc4c00', '#cf222e', '#8250df', '#0969da', '#1a7f37', '#4ac26b', '#6e7781']

// Rows { run, at, phase, order, ms, share } of every result with phases (a mixed round's per class too).
export function phaseRows (results) {
  const rows = []
  const add = (run, f) => {
    for (const at of ['p50', 'p99']) {
      const req = f?.at?.[at]
      if (!req?.phases || !req.share) continue
      PHASES.forEach((phase, order) => {
        const ms = req.phases[phase]
        if (Number.isFinite(ms)) rows.push({ run, at, phase, order, ms, share: req.share[phase] ?? null })
      })
    }
  }
  for (const r of results) {
    add(runName(r), r.phases)
    for (const c of [...(r.classes ?? []), ...(r.mixed?.classes ?? [])]) add(`${runName(r)} · ${c.name}`, c.phases)
  }
  return rows
}

// The stacked bars: one row per strategy, a panel each for the p50 and the p99 request (own x scales:
// a p99 is often a hundred times its p50).
export function phasesSpec (rows, { width = 420 } = {}) {
  const runs = [...new Set(rows.map((r) => r.run))]
  const panel = (at) => ({
    width,
    height: Math.max(40, 26 * runs.length),
    title: `the ${at} request`,
    transform: [{ filter: { field: 'at', equal: at } }],
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'run', type: 'nominal', title: null, sort: runs, axis: { labelLimit: 240 } },
      x: { field: 'ms', type: 'quantitative', title: 'ms from its due time', stack: 'zero' },
      color: {
        field: 'phase',
        type: 'nominal',
        scale: { domain: PHASES, range: COLORS },
        legend: { orient: 'bottom', direction: 'horizontal', title: 'phase' }
      },
      order: { field: 'order', type: 'quantitative' },
      tooltip: [{ field: 'run' }, { field: 'phase' }, { field: 'ms', format: '.3f' }, { field: 'share', format: '.1%' }]
    }
  })
  const resolve = { scale: { x: 'independent' } }
  return { data: { values: rows }, hconcat: [panel('p50'), panel('p99')], resolve, config: CONFIG }
}

// The page's section: the chart and how to read it; '' when no result has phases.
export function phasesSection (results) {
  const rows = phaseRows(results)
  if (!rows.length) return ''
  const caption = '<b>Where the time went</b>: the request at each strategy\'s p50 and the one at its p99, ' +
    'split at every ' +
    'thread and process boundary (sent: the generator\'s lag; wait: to the handler; queue: for a thread or process; ' +
    'start: starting one; send and return: carrying input and result; run: the work; reply: the answer written ' +
      'and read). ' +
    'docs/attribution.md says how the stamps are taken.'
  return `<section class="block" id="phases"><h2>Where the time went</h2>
<figure class="chart" data-chart="phases" data-lines="${esc([...new Set(rows.map((r) => r.run))].length)}" ` +
  'role="group" aria-label="phases chart">' +
    `<figcaption>${caption}</figcaption>\n${renderSvg(phasesSpec(rows), { id: 'phases' })}\n</figure>
</section>`
}
