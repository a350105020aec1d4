// The figures behind the decision, on the page's first screen beside its block: the capacity of each
// strategy at the decision's target as a bar with its bracket as whiskers and the plan rate marked, and
// goodput past capacity (1, 1.5 and 2 × C, as swept and with the shedding setting) of the candidates the
// decision weighed. Rows are pure functions of the report; charts.js compiles and renders the specs.
import { CHART_CONFIG, PALETTE, renderSvg } from './charts.js'
import { esc } from '../text/escape.js'
import { isNum } from '../result/stats.js'
import { runName } from '../result/key.js'
import { KEEP_SHARE, pastOf, targetsOf } from '../result/decision.js'
import { bracketText } from '../text/decision.js'
import { MISSING, fmtRounded, pctSpaced } from '../text/format.js'
import { classTargetsText } from '../text/sentences.js'

const r1 = (x) => fmtRounded(x, 1)
const CHOSEN = PALETTE[0] // the decision's configuration
const OTHER = '#8c959f'
const AS_SWEPT = '#D55E00'
const SHEDDING = PALETTE[0]
// The multiples of C the goodput chart has a place for: C itself (the sweep's step), then the probe's.
const MULTIPLES = [1, 1.5, 2]

// Whether a result is the decision's choice (a refusal chose none).
const isChosen = (r, d) => Boolean(d && !d.refused) && r.key === d.key

// A strategy's name on the charts: the server, with its --tune setting (`queued-threads[threads=2]`).
function strategyName (r) {
  const setting = /\[([^\]]*)\]/.exec(String(r.key ?? '').split('@')[0])?.[1]
  return setting ? `${runName(r)}[${setting}]` : runName(r)
}

// The capacity of each swept result at the decision's target (else its first): rows { name, rps (0 when it
// holds none), pass, fail (null: open above), status ('capacity' | 'at least' | 'none'), chosen, label }
// in the order of capacity, highest first.
export function capacityBarRows (results, decision = null) {
  const rows = []
  for (const r of results) {
    const all = targetsOf(r)
    if (!all.length) continue
    const t = all.find((x) => x.sloMs === decision?.sloMs) ?? all[0]
    const holds = isNum(t.rps) && t.rps > 0
    const fail = isNum(t.bracket?.fail) ? t.bracket.fail : null
    const status = !holds ? 'none' : fail === null || t.bound === 'at least' ? 'at least' : 'capacity'
    const label = !holds
      ? (t.bound ?? 'no capacity')
      : `${status === 'at least' ? '≥ ' : ''}${r1(t.rps)} (${bracketText(t)})`
    const pass = holds ? (t.bracket?.pass ?? t.rps) : null
    const chosen = isChosen(r, decision)
    rows.push({ name: strategyName(r), rps: holds ? t.rps : 0, pass, fail: holds ? fail : null, status, chosen, label })
  }
  return rows.sort((a, b) => b.rps - a.rps)
}

// Capacity as horizontal bars, highest first: the bracket [the rate that held, the lowest that failed] as
// whiskers, the decision's configuration in colour, the plan rate (when there is one) a dashed rule.
export function capacityBarsSpec (rows, { planRps = null, width = 420 } = {}) {
  const y = { field: 'name', type: 'nominal', title: null, sort: null, axis: { labelLimit: 320, labelFontSize: 12 } }
  const x = { field: 'rps', type: 'quantitative', title: 'capacity at the target (requests/s)', scale: { zero: true, nice: true } }
  const top = Math.max(1, ...rows.map((r) => Math.max(r.rps, r.fail ?? 0)), planRps ?? 0)
  x.scale.domainMax = top * 1.32 // room for the labels past the longest bar
  const layers = [
    {
      transform: [{ calculate: "datum.name + ': ' + datum.label", as: 'desc' }],
      mark: { type: 'bar', height: { band: 0.62 } },
      encoding: {
        y,
        x,
        color: { condition: { test: 'datum.chosen', value: CHOSEN }, value: OTHER },
        description: { field: 'desc', type: 'nominal' }
      }
    },
    {
      transform: [{ filter: 'datum.fail != null' }],
      mark: { type: 'errorbar', ticks: { size: 12, strokeWidth: 2 }, rule: { strokeWidth: 2 }, color: '#1f2328' },
      encoding: { y, x: { field: 'pass', type: 'quantitative', title: x.title }, x2: { field: 'fail' } }
    },
    // each label twice: a white halo under the text, so that the plan rate's line never crosses a figure
    ...[{ stroke: '#ffffff', strokeWidth: 4 }, {}].map((halo) => ({
      transform: [{ calculate: 'datum.fail == null ? datum.rps : datum.fail', as: 'end' }],
      mark: { type: 'text', align: 'left', dx: 6, fontSize: 11, color: '#24292f', ...halo },
      encoding: { y, x: { field: 'end', type: 'quantitative' }, text: { field: 'label' } }
    }))
  ]
  if (isNum(planRps)) {
    layers.splice(1, 0,
      {
        data: { values: [{ plan: planRps, text: `plan rate ${r1(planRps)} req/s` }] },
        mark: { type: 'rule', color: '#cf222e', strokeDash: [6, 4], strokeWidth: 2 },
        encoding: { x: { field: 'plan', type: 'quantitative' } }
      },
      {
        data: { values: [{ plan: planRps, text: `plan rate ${r1(planRps)} req/s` }] },
        mark: { type: 'text', align: 'right', baseline: 'top', dx: -4, y: -14, fontSize: 11, fontWeight: 600, color: '#cf222e' },
        encoding: { x: { field: 'plan', type: 'quantitative' }, text: { field: 'text' } }
      }
    ) // over the bars, under the whiskers and the labels
  }
  const config = { ...CHART_CONFIG, axisY: { grid: false } }
  return { width, height: { step: 30 }, data: { values: rows }, layer: layers, config }
}

// The share of C a sweep's step at the capacity kept as goodput (2xx answered within the target from
// its due time, the probe's measure): the steps that ran at C pooled; null when none did.
export function sweepGoodputShare (r) {
  const c = r.capacity?.capacity
  if (!isNum(c?.rps) || !(c.rps > 0)) return null
  const atC = (s) => isNum(s.rate) && Math.abs(s.rate - c.rps) < 1e-6 * c.rps && s.requests
  const at = (r.capacity.steps ?? []).filter(atC)
  const sent = at.reduce((n, s) => n + (s.requests.sent ?? 0), 0)
  if (!(sent > 0)) return null
  const good = at.reduce((n, s) => n + Math.max(0, (s.requests.ok ?? 0) - (s.over ?? 0)), 0)
  return Math.min(1, good / sent)
}

// One probed configuration's rows and its line of the table: { name, config ('as swept' | 'shedding
// setting'), setting (its words), chosen, points [{ multiple, goodput (null: not measured), from }], past }.
function configRows (r, probe, decision) {
  const shedding = Boolean(probe.variant)
  const steps = probe.overload?.steps ?? []
  const points = MULTIPLES.map((m) => {
    if (m === 1) return { multiple: m, goodput: shedding ? null : sweepGoodputShare(r), from: shedding ? null : 'sweep' }
    const g = steps.find((s) => s.multiple === m)?.goodputShare
    return { multiple: m, goodput: isNum(g) ? g : null, from: isNum(g) ? 'probe' : null }
  })
  return {
    name: strategyName(r),
    config: shedding ? 'shedding setting' : 'as swept',
    setting: shedding ? probe.shedding : probe.label,
    chosen: isChosen(r, decision) && (decision.variant ?? null) === (probe.variant ?? null),
    points,
    past: pastOf(probe),
    failure: probe.failure ?? (probe.overload?.refused ? String(probe.overload.refused) : null)
  }
}

// The configurations the decision weighed past capacity (each result's `pastCapacity`, as swept first).
export function pastConfigs (results, decision = null) {
  const rps = (r) => (r.key === decision?.key ? Infinity : (r.capacity?.capacity?.rps ?? 0))
  return results.filter((r) => Array.isArray(r.pastCapacity) && r.pastCapacity.length)
    .sort((a, b) => rps(b) - rps(a))
    .flatMap((r) => r.pastCapacity.slice().sort((a, b) => Number(Boolean(a.variant)) - Number(Boolean(b.variant)))
      .map((p) => configRows(r, p, decision)))
}

// Goodput against offered load, both as multiples of C, a panel per strategy weighed, a line per
// configuration (as swept, with its shedding setting); a figure not measured is said so where it belongs.
export function pastCapacitySpec (configs, { width = 150, height = 190 } = {}) {
  const rows = configs.flatMap((c) => c.points.map((p) => ({ name: c.name, config: c.config, chosen: c.chosen, ...p })))
  const names = [...new Set(configs.map((c) => c.name))]
  const x = {
    field: 'multiple',
    type: 'quantitative',
    title: 'offered load (× C)',
    scale: { domain: [0.8, 2.2], nice: false },
    axis: { values: MULTIPLES, labelExpr: "datum.value + ' ×'", grid: false }
  }
  const top = Math.max(1, ...rows.map((r) => r.goodput ?? 0)) + 0.05 // a share over 1 (C measured low): drawn, not cut
  const y = {
    field: 'goodput',
    type: 'quantitative',
    title: 'goodput (share of C)',
    scale: { domain: [0, top], nice: false },
    axis: { format: '.0%', values: [0, 0.25, 0.5, 0.75, 1] }
  }
  const color = {
    field: 'config',
    type: 'nominal',
    title: null,
    scale: { domain: ['as swept', 'shedding setting'], range: [AS_SWEPT, SHEDDING] },
    legend: { orient: 'bottom', direction: 'horizontal' }
  }
  const layer = [
    {
      data: { values: [{ keep: KEEP_SHARE }] },
      mark: { type: 'rule', strokeDash: [4, 3], color: '#57606a' },
      encoding: { y: { field: 'keep', type: 'quantitative' } }
    },
    {
      transform: [
        { filter: 'datum.goodput != null' },
        { calculate: "datum.name + ' ' + datum.config + ': ' + format(datum.goodput, '.0%') + ' at ' + datum.multiple + ' × C'", as: 'desc' }
      ],
      mark: { type: 'line', point: { filled: true, size: 46 }, strokeWidth: 2.5 },
      encoding: { x, y, color, order: { field: 'multiple', type: 'quantitative' }, description: { field: 'desc', type: 'nominal' } }
    },
    {
      transform: [
        { filter: 'datum.goodput == null' },
        { calculate: "datum.config == 'as swept' ? 0.34 : 0.22", as: 'at' },
        { calculate: "'not measured'", as: 'text' }
      ],
      mark: { type: 'text', fontSize: 10, fontStyle: 'italic' },
      encoding: { x, y: { field: 'at', type: 'quantitative' }, text: { field: 'text' }, color: { ...color, legend: null } }
    },
    {
      transform: [{ filter: 'datum.chosen && datum.goodput != null && datum.multiple == 2' }, { calculate: "'chosen'", as: 'text' }],
      mark: { type: 'text', fontSize: 11, fontWeight: 700, dy: -11, align: 'right' },
      encoding: { x, y, text: { field: 'text' }, color: { ...color, legend: null } }
    }
  ]
  return {
    data: { values: rows },
    facet: { column: { field: 'name', type: 'nominal', title: null, sort: names, header: { labelFontWeight: 600, labelFontSize: 12 } } },
    spec: { width, height, layer },
    config: { ...CHART_CONFIG, view: { stroke: '#eaeef2' } }
  }
}

// The table under the goodput chart: each configuration weighed, its figures and what the rule made of it.
function pastTable (configs) {
  const cell = (p) => isNum(p.goodput)
    ? `${esc(pctSpaced(p.goodput))}${p.from === 'sweep' ? ' <span class="muted">(sweep)</span>' : ''}`
    : '<span class="muted" data-measured="no">not measured</span>'
  const verdict = (c) => {
    if (!c.past) return `<span class="muted">not measured${c.failure ? `: ${esc(c.failure)}` : ''}</span>`
    if (c.past.collapses) return '<span class="bad">collapses</span>'
    return c.past.keeps ? '<span class="ratio-up">keeps</span>' : 'neither keeps nor collapses'
  }
  const recovery = (p) => !p ? MISSING : isNum(p.recoverySec) ? `${r1(p.recoverySec)} s` : `none within ${r1(p.watchedSec ?? NaN)} s`
  const rows = configs.map((c) => `<tr${c.chosen ? ' class="chosen"' : ''}><td class="text"><b>${esc(c.name)}</b>${c.chosen ? ' <span class="ratio-up">✓ the decision\'s</span>' : ''}</td>` +
    `<td class="text">${esc(c.config === 'as swept' ? `as swept (${c.setting})` : c.setting)}</td>` +
    `${c.points.map((p) => `<td>${cell(p)}</td>`).join('')}<td>${esc(pctSpaced(c.past?.shedShare))}</td><td>${esc(recovery(c.past))}</td><td class="text">${verdict(c)}</td></tr>`)
  const head = ['strategy', 'configuration', ...MULTIPLES.map((m) => `goodput at ${m} × C`), 'shed at 2 × C', 'recovery', 'past capacity']
  return `<div class="table-wrap"><table class="past-capacity"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>`
}

// The two figures of the first screen, side by side: '' for a report with no capacity.
export function decisionCharts (http, decision) {
  const bars = capacityBarRows(http, decision)
  if (!bars.length) return ''
  const configs = pastConfigs(http, decision)
  const table = configs.length ? pastTable(configs) : ''
  const own = classTargetsText(http.find((r) => r.key === decision?.key) ?? http[0])
  return `<div class="charts-row decision-charts">${capacityBarsFigure(bars, decision, own)}\n${pastCapacityFigure(configs, decision)}</div>\n${table}`
}

// Capacity per strategy, with its bracket and the plan rate.
function capacityBarsFigure (bars, d, own) {
  const plan = d && !d.refused && isNum(d.planRps) ? d.planRps : null
  const target = own ? `each class's own target (${own})` : isNum(d?.sloMs) ? `p${d.target?.percentile ?? 99} ≤ ${r1(d.sloMs)} ms` : 'the target'
  const none = bars.filter((b) => b.status === 'none').map((b) => `${esc(b.name)} (${esc(b.label)})`)
  const planText = plan !== null
    ? `The dashed red line is the plan rate, ${esc(r1(plan))} req/s (${Math.round((d.headroom ?? 0.8) * 100)} % of the chosen capacity).`
    : `No plan rate: ${d?.refused ? 'the decision refused (its block says why)' : 'no decision in this report'}.`
  const caption = `<b>Capacity at ${esc(target)}</b>, one bar per strategy, highest first; ${bars.some((b) => b.chosen) ? 'the decision\'s in blue; ' : ''}` +
    'the whiskers are its bracket, from the rate that held to the lowest that failed above it (brackets that overlap are a tie). ' +
    `${planText}${none.length ? ` No bar: ${none.join(', ')}.` : ''}`
  return `<figure class="chart" data-chart="capacity-bars" data-bars="${bars.length}" data-plan="${plan ?? ''}" role="group" aria-label="capacity-bars chart">
<figcaption>${caption}</figcaption>
${renderSvg(capacityBarsSpec(bars, { planRps: plan }), { id: 'capacity-bars' })}
</figure>`
}

// Goodput past capacity of the candidates weighed, or why there is none.
function pastCapacityFigure (configs, d) {
  const head = '<b>Goodput past capacity</b>'
  if (!configs.length) {
    const why = d?.recommends === 'rate'
      ? 'a service given by --url is not restarted for probes; the decision\'s Past capacity line gives the sweep\'s step past it'
      : d?.key ? 'no configuration was probed past capacity in this run' : 'no strategy held the target, so none was probed'
    return `<figure class="chart" data-chart="past-capacity" data-configs="0" role="group" aria-label="past-capacity chart">
<figcaption>${head}: not measured (${esc(why)}).</figcaption></figure>`
  }
  const caption = `${head} of the candidates the decision weighed, as swept and with their shedding setting: answers within ` +
    `the target per second, as a share of the capacity C (1 × C: the sweep's own step). To keep, a configuration holds ${esc(pctSpaced(KEEP_SHARE))} ` +
    'of C (dashed) at 1.5 and 2 × C and recovers from a burst; the table below has every figure.'
  return `<figure class="chart" data-chart="past-capacity" data-configs="${configs.length}" role="group" aria-label="past-capacity chart">
<figcaption>${caption}</figcaption>
${renderSvg(pastCapacitySpec(configs), { id: 'past-capacity' })}
</figure>`
}
