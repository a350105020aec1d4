// The overload experiment on the page: goodput against offered load (both as multiples of each
// strategy's capacity C, one line per strategy) and the burst's timeline (goodput, shed and p99 per
// second, one line per strategy). Pure spec builders and the section's HTML; charts.js renders.
import { AXIS_COLORS, CHART_BASE, renderSvg } from './charts.js'
import { esc } from '../text/escape.js'
import { runName } from '../result/key.js'

const CONFIG = { ...CHART_BASE, axis: { ...AXIS_COLORS, gridColor: '#eaeef2' } }
const COLOR = {
  field: 'server',
  type: 'nominal',
  title: 'server',
  sort: null,
  legend: { orient: 'bottom', columns: 3, labelLimit: 320 }
}

// Rows { server, multiple, goodput } (goodput as a share of C) of every result's steps.
function goodputRows (results) {
  return results.flatMap((r) =>
    (r.overload?.steps ?? [])
      .filter((s) => typeof s.goodputShare === 'number')
      .map((s) => ({ server: runName(r), multiple: s.multiple, goodput: s.goodputShare, shed: s.shedShare ?? 0 })))
}

// Goodput (× C) by offered load (× C), one line per strategy; the dashed line is all of C kept.
function goodputSpec (rows, { width = 900, height = 320 } = {}) {
  const x = {
    field: 'multiple',
    type: 'quantitative',
    title: 'offered load (× capacity C, ' +
    'open loop)',
    scale: { zero: true }
  }
  const y = {
    field: 'goodput',
    type: 'quantitative',
    title: 'goodput (× C): verified 2xx within ' +
    'the target',
    scale: { zero: true }
  }
  return {
    width,
    height,
    layer: [
      {
        data: { values: rows },
        mark: { type: 'line', point: { filled: true, size: 40 } },
        encoding: { x, y, color: COLOR }
      },
      {
        data: { values: [{ goodput: 1 }] },
        mark: { type: 'rule', strokeDash: [6, 4], color: '#57606a' },
        encoding: { y: { field: 'goodput', type: 'quantitative' } }
      }
    ],
    config: CONFIG
  }
}

// Long rows { server, panel, t (s), value } of every result's burst windows: goodput and shed per
// second (req/s) and p99 (ms).
function burstRows (results) {
  const rows = []
  for (const r of results) {
    const rec = r.overload?.recovery
    if (!rec?.windows) continue
    const sec = 1 // windows are 1 s
    for (const w of rec.windows) {
      const t = w.t / 1000
      rows.push({ server: runName(r), panel: 'goodput (req/s)', t, value: w.good / sec })
      rows.push({ server: runName(r), panel: 'shed (req/s)', t, value: w.shed / sec })
      if (typeof w.p99 === 'number') rows.push({ server: runName(r), panel: 'p99 (ms)', t, value: w.p99 })
    }
  }
  return rows
}

// The burst's timeline: three panels on one time axis (by due time), the burst shaded.
function burstSpec (rows, { burstStartS, burstEndS, width = 900 } = {}) {
  const x = { field: 't', type: 'quantitative', title: 'due time (s from the start of the burst round)' }
  const panel = (name) => ({
    height: 140,
    width,
    layer: [
      {
        data: { values: [{ a: burstStartS, b: burstEndS }] },
        mark: { type: 'rect', color: '#fff1e5' },
        encoding: { x: { field: 'a', type: 'quantitative' }, x2: { field: 'b' } }
      },
      {
        data: { values: rows },
        transform: [{ filter: { field: 'panel', equal: name } }],
        mark: { type: 'line', interpolate: 'step-after', point: { size: 12 } },
        encoding: { x, y: { field: 'value', type: 'quantitative', title: name }, color: COLOR }
      }
    ]
  })
  return { vconcat: ['goodput (req/s)', 'shed (req/s)', 'p99 (ms)'].map(panel), config: CONFIG }
}

// The page's overload section: the two charts and the rule (the experiment's table follows on the page);
// '' without overload results.
export function overloadSection (results) {
  const runs = results.filter((r) => r.overload && !r.overload.refused)
  if (!runs.length) return ''
  const chart = (name, spec, caption) =>
    `<figure class="chart" data-chart="${esc(name)}" role="group" aria-label="${esc(name)} chart">` +
    `<figcaption>${caption}</figcaption>\n${renderSvg(spec, { id: name })}\n</figure>`
  const first = runs.find((r) => r.overload.recovery)?.overload.recovery
  const start = first ? (first.phases[0].durationMs / 1000) : 0
  const end = first ? first.burstEndMs / 1000 : 0
  return `<section class="block" id="overload"><h2>Past capacity</h2>
${chart('goodput', goodputSpec(goodputRows(runs)), '<b>Goodput against offered load</b>, both as multiples of ' +
  'each strategy\'s capacity C at the target: verified 2xx answers within the target from their due time, per ' +
    'second of schedule. The dashed line is all of C kept; a line that falls away from it spends the machine on ' +
      'answers nobody can use.')}
${first
? chart('burst', burstSpec(burstRows(runs), { burstStartS: start, burstEndS: end }), '<b>The burst</b> ' +
  `(shaded: ${esc(first.phases[1].rate)} req/s for the first strategy): goodput, shed answers and p99 per 1 s ` +
    'window of due time. Recovery is the time from the burst\'s end until every window is good again.')
: ''}
<p class="muted">${esc(runs[0].overload.rule)} The table below gives every figure.</p>
</section>`
}
