// The figures behind the decision, on the page's first screen beside its block: the capacity of each
// strategy at the decision's target as a bar with its bracket as whiskers and the plan rate marked, and
// goodput past capacity (1, 1.5 and 2 × C, as swept and with the shedding setting) of the candidates the
// decision weighed. The rows are decision-figures.js's; charts.js compiles and renders the specs.
import { CHART_CONFIG, PALETTE, renderSvg } from './charts.js'
import { MULTIPLES, capacityBarRows, pastConfigs } from './decision-figures.js'
import { esc } from '../text/escape.js'
import { isNum } from '../result/stats.js'
import { PAST, TIE } from '../result/rules.js'
import { pastCapacityTable } from '../text/decision.js'
import { fmtRounded, pctSpaced } from '../text/format.js'
import { classTargetsText } from '../text/sentences.js'

const r1 = (x) => fmtRounded(x, 1)
const CHOSEN = PALETTE[0] // the decision's configuration
const OTHER = '#8c959f'
const AS_SWEPT = '#D55E00'
const SHEDDING = PALETTE[0]
// Capacity as horizontal bars, highest first: the bracket [the rate that held, the lowest that failed] as
// whiskers, the decision's configuration in colour, the plan rate (when there is one) a dashed rule.
export function capacityBarsSpec (rows, { planRps = null, width = 420 } = {}) {
  const y = { field: 'name', type: 'nominal', title: null, sort: null, axis: { labelLimit: 320, labelFontSize: 12 } }
  const x = {
    field: 'rps',
    type: 'quantitative',
    title: 'capacity at the target ' +
    '(requests/s)',
    scale: { zero: true, nice: true }
  }
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
        mark: {
          type: 'text', align: 'right', baseline: 'top', dx: -4, y: -14, fontSize: 11, fontWeight: 600, color: '#cf222e'
        },
        encoding: { x: { field: 'plan', type: 'quantitative' }, text: { field: 'text' } }
      }
    ) // over the bars, under the whiskers and the labels
  }
  const config = { ...CHART_CONFIG, axisY: { grid: false } }
  return { width, height: { step: 30 }, data: { values: rows }, layer: layers, config }
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
      data: { values: [{ keep: PAST.keepShare }] },
      mark: { type: 'rule', strokeDash: [4, 3], color: '#57606a' },
      encoding: { y: { field: 'keep', type: 'quantitative' } }
    },
    {
      transform: [
        { filter: 'datum.goodput != null' },
        {
          calculate: "datum.name + ' ' + datum.config + ': ' + format(datum.goodput, '.0%') + ' at ' + " +
          "datum.multiple + ' × C'",
          as: 'desc'
        }
      ],
      mark: { type: 'line', point: { filled: true, size: 46 }, strokeWidth: 2.5 },
      encoding: {
        x, y, color, order: { field: 'multiple', type: 'quantitative' }, description: { field: 'desc', type: 'nominal' }
      }
    },
    {
      transform: [
        { filter: 'datum.goodput == null' },
        { calculate: "datum.config == 'as swept' ? 0.34 : 0.22", as: 'at' },
        { calculate: "'not measured'", as: 'text' }
      ],
      mark: { type: 'text', fontSize: 10, fontStyle: 'italic' },
      encoding: {
        x, y: { field: 'at', type: 'quantitative' }, text: { field: 'text' }, color: { ...color, legend: null }
      }
    },
    {
      transform: [{
        filter: 'datum.chosen && datum.goodput != null && ' +
        'datum.multiple == 2'
      }, { calculate: "'chosen'", as: 'text' }],
      mark: { type: 'text', fontSize: 11, fontWeight: 700, dy: -11, align: 'right' },
      encoding: { x, y, text: { field: 'text' }, color: { ...color, legend: null } }
    }
  ]
  return {
    data: { values: rows },
    facet: {
      column: {
        field: 'name', type: 'nominal', title: null, sort: names, header: { labelFontWeight: 600, labelFontSize: 12 }
      }
    },
    spec: { width, height, layer },
    config: { ...CHART_CONFIG, view: { stroke: '#eaeef2' } }
  }
}

// The table under the goodput chart: each configuration weighed, its figures and what the rule made of it
// (text/decision.js pastCapacityTable's words, marked up by each cell's kind).
function pastTable (configs) {
  const { head, rows, kinds } = pastCapacityTable(configs)
  const mark = { 'not-measured': 'muted', collapses: 'bad', keeps: 'ratio-up' }
  const cell = (text, kind) => {
    const measured = kind === 'not-measured' ? ' data-measured="no"' : ''
    return mark[kind] ? `<span class="${mark[kind]}"${measured}>${esc(text)}</span>` : esc(text)
  }
  const body = rows.map((r, i) => `<tr${configs[i].chosen ? ' class="chosen"' : ''}>` +
    r.map((c, j) => {
      const text = j < 2 || j === r.length - 1 ? ' class="text"' : ''
      return `<td${text}>${j === 0 ? `<b>${esc(c)}</b>` : cell(c, kinds[i][j])}</td>`
    }).join('') + '</tr>')
  return '<div class="table-wrap"><table ' +
    `class="past-capacity"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>\n${body.join('\n')}\n</tbody></table></div>`
}

// The two figures of the first screen, side by side: '' for a report with no capacity.
export function decisionCharts (http, decision) {
  const bars = capacityBarRows(http, decision)
  if (!bars.length) return ''
  const configs = pastConfigs(http, decision)
  const table = configs.length ? pastTable(configs) : ''
  const own = classTargetsText(http.find((r) => r.key === decision?.key) ?? http[0])
  const figures = `${capacityBarsFigure(bars, decision, own)}\n${pastCapacityFigure(configs, decision)}`
  return `<div class="charts-row decision-charts">${figures}</div>\n${table}`
}

// Capacity per strategy, with its bracket and the plan rate.
function capacityBarsFigure (bars, d, own) {
  const plan = d && !d.refused && isNum(d.planRps) ? d.planRps : null
  const target = own
    ? `each class's own target (${own})`
    : isNum(d?.sloMs)
      ? `p${d.target.percentile} ≤ ${r1(d.sloMs)} ms`
      : 'the target'
  const none = bars.filter((b) => b.status === 'none').map((b) => `${esc(b.name)} (${esc(b.label)})`)
  const planText = plan !== null
    ? `The dashed red line is the plan rate, ${esc(r1(plan))} req/s (${Math.round((d.headroom ?? 0.8) * 100)} % ` +
      'of the chosen capacity).'
    : `No plan rate: ${d?.refused ? 'the decision refused (its block says why)' : 'no decision in this report'}.`
  const caption = `<b>Capacity at ${esc(target)}</b>, one bar per strategy, highest ` +
    `first; ${bars.some((b) => b.chosen) ? 'the decision\'s in blue; ' : ''}` +
    'the whiskers are its bracket, from the rate that held to the lowest that failed above it (brackets that ' +
      `overlap, or capacities within ${pctSpaced(TIE.capacityMargin)}, are a tie). ` +
    `${planText}${none.length ? ` No bar: ${none.join(', ')}.` : ''}`
  return `<figure class="chart" data-chart="capacity-bars" data-bars="${bars.length}" data-plan="${plan ?? ''}" ` +
    `role="group" aria-label="capacity-bars chart">
<figcaption>${caption}</figcaption>
${renderSvg(capacityBarsSpec(bars, { planRps: plan }), { id: 'capacity-bars' })}
</figure>`
}

// Goodput past capacity of the candidates weighed, or why there is none.
function pastCapacityFigure (configs, d) {
  const head = '<b>Goodput past capacity</b>'
  if (!configs.length) {
    const why = d?.recommends === 'rate'
      ? 'a service given by --url is not restarted for probes; the decision\'s Past capacity line gives the ' +
        'sweep\'s step past it'
      : d?.key
        ? 'no configuration was probed past capacity in this run'
        : 'no strategy held the target, so none ' +
        'was probed'
    return '<figure class="chart" data-chart="past-capacity" data-configs="0" role="group" ' +
      `aria-label="past-capacity chart">
<figcaption>${head}: not measured (${esc(why)}).</figcaption></figure>`
  }
  const caption = `${head} of the candidates the decision weighed, as swept and with their shedding setting: ` +
    'answers within ' +
    'the target per second, as a share of the capacity C (1 × C: the sweep\'s own step). To keep, a configuration ' +
      `holds ${esc(pctSpaced(PAST.keepShare))} ` +
    'of C (dashed) at 1.5 and 2 × C and recovers from a burst; the table below has every figure.'
  return `<figure class="chart" data-chart="past-capacity" data-configs="${configs.length}" role="group" ` +
    `aria-label="past-capacity chart">
<figcaption>${caption}</figcaption>
${renderSvg(pastCapacitySpec(configs), { id: 'past-capacity' })}
</figure>`
}
