// Charts for the report pages: Vega-Lite specs built from report data, compiled with vega-lite and
// rendered to SVG strings by vega's headless SVG renderer at report time (no canvas, no DOM, no
// network). Spec builders are pure; `renderSvg` turns a spec into markup.
import * as vega from 'vega'
import * as vl from 'vega-lite'
import { PERCENTILE_KEYS } from '../result/stats.js'

// Colours that stay apart for readers with the common colour-vision deficiencies (Okabe–Ito, then Tableau).
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#000000',
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759'
]

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'

// What every chart of the lab shares: font, background, padding, frameless view, axis colours.
export const CHART_BASE = { font: FONT, background: '#ffffff', padding: 8, view: { stroke: null } }
export const AXIS_COLORS = { labelColor: '#57606a', titleColor: '#24292f' }

const CONFIG = {
  ...CHART_BASE,
  axis: {
    ...AXIS_COLORS,
    titleFontWeight: 600,
    titleFontSize: 12,
    labelFontSize: 11,
    gridColor: '#eaeef2',
    domainColor: '#8c959f',
    tickColor: '#8c959f'
  },
  legend: {
    labelFontSize: 12,
    titleFontSize: 12,
    titleColor: '#24292f',
    labelColor: '#24292f',
    symbolStrokeWidth: 2.5,
    labelLimit: 320
  },
  header: { labelFontSize: 12, labelColor: '#24292f', titleFontSize: 12 },
  range: { category: PALETTE },
  line: { strokeWidth: 2 },
  bar: { cornerRadiusEnd: 2 }
}

// The lab's chart configuration (fonts, axes, legend, palette), for the chart modules beside this one.
export const CHART_CONFIG = CONFIG

// The percentiles a report stores, as numbers (reports/README.md `latency.percentiles`).
export { PERCENTILE_KEYS }

// Position of percentile p (0..100) on the HdrHistogram axis: 1 / (1 - p), so 90% → 10, 99.9% → 1000.
export function spectrumX (p) {
  return 1 / (1 - p / 100)
}

// Flattens latency percentiles into spectrum rows [{ p, x, ms, ...extra }]; skips null values.
export function spectrumRows (percentiles, extra = {}, scale = 1) {
  const rows = []
  if (!percentiles || typeof percentiles !== 'object') return rows
  for (const key of PERCENTILE_KEYS) {
    const ms = percentiles[key]
    if (typeof ms !== 'number' || !Number.isFinite(ms)) continue
    const p = Number(key)
    rows.push({ ...extra, p, x: spectrumX(p), ms: ms / scale })
  }
  return rows
}

// The spectrum's latency axis: linear from 0, or (logY) a log scale.
function latencyAxis (yTitle, logY) {
  if (!logY) return { field: 'ms', type: 'quantitative', title: yTitle, scale: { zero: true, nice: true } }
  const scale = { type: 'log', nice: true }
  const axis = { format: ',.4~r', tickCount: 6 }
  return { field: 'ms', type: 'quantitative', title: `${yTitle}, log scale`, scale, axis }
}

// Latency percentile spectrum: one line per `color` value (and `dash` value, if given).
// With `facet` (a field name), one panel per value of that field, two panels a row.
// With `logY`, latency is on a log scale (points at 0 cannot be drawn there and are left out).
export function spectrumSpec (
  rows,
  {
    color = 'run',
    colorTitle = 'server run',
    dash = null,
    dashTitle = null,
    yTitle = 'latency (ms)',
    width = 1000,
    height = 340,
    facet = null,
    logY = false
  } = {}
) {
  const encoding = {
    x: {
      field: 'x',
      type: 'quantitative',
      title: 'percentile',
      scale: { type: 'log', domain: [1, 100000], nice: false },
      axis: {
        values: [1, 10, 100, 1000, 10000, 100000],
        labelExpr: "format(100 - 100 / datum.value, '.3~f') + '%'",
        grid: true
      }
    },
    y: latencyAxis(yTitle, logY),
    color: {
      field: color,
      type: 'nominal',
      title: colorTitle,
      sort: null,
      legend: { orient: 'bottom', direction: 'vertical', columns: 2 }
    },
    order: { field: 'x', type: 'quantitative' },
    description: { field: 'desc', type: 'nominal' },
    detail: dash ? { field: dash, type: 'nominal' } : undefined
  }
  if (dash) {
    encoding.strokeDash = {
      field: dash,
      type: 'nominal',
      title: dashTitle ?? dash,
      sort: null,
      legend: { orient: 'bottom', direction: 'vertical' }
    }
  }
  if (!dash) delete encoding.detail
  const mark = { type: 'line', point: { filled: true, size: 22 }, clip: true }
  const transform = [
    ...(logY ? [{ filter: 'datum.ms > 0' }] : []),
    {
      calculate: `datum[${JSON.stringify(color)}] + ': p' + datum.p + ' = ' + format(datum.ms, ',.4~r') + ` +
        `' ${yTitle.includes('ms') ? 'ms' : '×'}'`,
      as: 'desc'
    }
  ]
  if (facet) {
    return {
      data: { values: rows },
      transform,
      facet: {
        field: facet,
        type: 'nominal',
        title: null,
        sort: null,
        header: { labelFontWeight: 600, labelFontSize: 12 }
      },
      columns: 2,
      spec: { width: Math.round(width / 2 - 40), height: Math.round(height * 0.6), mark, encoding },
      resolve: { scale: { y: 'independent' } },
      config: CONFIG
    }
  }
  return { width, height, data: { values: rows }, transform, mark, encoding, config: CONFIG }
}

// Latency against offered load (the "hockey stick"): p99 from the due time (log axis) by offered
// rate, one line per server, the target as a dashed rule and each server's capacity as a ringed point.
// A disturbed step (noise past its limits) carries an orange triangle.
// rows: [{ server, rate, p99, pass, disturbed }]; capacities: [{ server, rate, p99 }].
export function capacitySpec (rows, { sloMs = null, capacities = [], width = 1000, height = 360 } = {}) {
  const color = {
    field: 'server',
    type: 'nominal',
    title: 'server',
    sort: null,
    legend: { orient: 'bottom', direction: 'vertical', columns: 3 }
  }
  const x = {
    field: 'rate',
    type: 'quantitative',
    title: 'offered load (requests/s, open loop)',
    scale: { zero: true, nice: true }
  }
  const y = {
    field: 'p99',
    type: 'quantitative',
    title: 'p99 latency from the due time (ms), log scale',
    scale: { type: 'log', nice: true },
    axis: { format: ',.4~r', tickCount: 6 }
  }
  const layers = [
    {
      transform: [
        { filter: 'datum.p99 > 0' },
        {
          calculate:
            "datum.server + ': ' + format(datum.rate, ',.1f') + ' req/s → p99 ' + format(datum.p99, ',.4~r') + ' " +
              "ms' + (datum.pass ? '' : ' (misses the target)')",
          as: 'desc'
        }
      ],
      mark: { type: 'line', point: { filled: true, size: 30 }, clip: true },
      encoding: {
        x,
        y,
        color,
        order: { field: 'rate', type: 'quantitative' },
        description: { field: 'desc', type: 'nominal' }
      }
    }
  ]
  if (rows.some((r) => r.disturbed)) {
    layers.push({
      transform: [{ filter: 'datum.disturbed && datum.p99 > 0' }],
      mark: { type: 'point', shape: 'triangle-up', size: 110, strokeWidth: 2, filled: false, color: '#bf8700' },
      encoding: { x, y }
    })
  }
  if (capacities.length) {
    layers.push({
      data: { values: capacities.filter((c) => c.p99 > 0) },
      mark: { type: 'point', shape: 'circle', size: 220, strokeWidth: 2.5, filled: false },
      encoding: { x, y, color: { ...color, legend: null } }
    })
  }
  if (sloMs) {
    layers.push({
      data: { values: [{ slo: sloMs }] },
      mark: { type: 'rule', color: '#cf222e', strokeDash: [6, 4], strokeWidth: 1.5 },
      encoding: { y: { field: 'slo', type: 'quantitative' } }
    })
  }
  return { width, height, data: { values: rows }, layer: layers, config: CONFIG }
}

// Capacity against the latency target: one line per strategy (rows { server, sloMs, rps, cannot }), the
// target on a log axis; a target a strategy cannot meet is a hollow point at 0. Where lines cross, the
// ranking changes with the target.
export function targetsSpec (rows, { width = 640, height = 280 } = {}) {
  const color = { field: 'server', type: 'nominal', title: 'server', sort: null, legend: { orient: 'right' } }
  const x = {
    field: 'sloMs', type: 'quantitative', title: 'p99 target (ms), log scale', scale: { type: 'log', nice: false }
  }
  const y = { field: 'rps', type: 'quantitative', title: 'capacity (requests/s)', scale: { zero: true } }
  return {
    width,
    height,
    data: { values: rows },
    layer: [
      {
        transform: [{
          calculate: "datum.server + ': ' + format(datum.rps, ',.1f') + ' req/s at p99 ≤ ' + " +
          "format(datum.sloMs, ',.4~r') + ' ms'",
          as: 'desc'
        }],
        mark: { type: 'line', point: { filled: true, size: 40 } },
        encoding: {
          x, y, color, order: { field: 'sloMs', type: 'quantitative' }, description: { field: 'desc', type: 'nominal' }
        }
      },
      {
        transform: [{ filter: 'datum.cannot' }],
        mark: { type: 'point', shape: 'circle', size: 90, filled: false, strokeWidth: 2 },
        encoding: { x, y, color: { ...color, legend: null } }
      }
    ],
    config: CONFIG
  }
}

// Horizontal bars, one per `y` value, optionally grouped by `group` (a colour per group).
export function barSpec (
  rows,
  {
    y = 'run',
    x = 'value',
    xTitle,
    group = null,
    groupTitle = null,
    format = ',.0f',
    width = 560,
    domainMax = null,
    rule = null,
    colors = null
  } = {}
) {
  const barEnc = {
    y: { field: y, type: 'nominal', title: null, sort: null, axis: { labelLimit: 340, labelFontSize: 12 } },
    x: { field: x, type: 'quantitative', title: xTitle, axis: { format }, scale: domainMax ? { domainMax } : {} }
  }
  if (group) {
    barEnc.yOffset = { field: group, type: 'nominal', sort: null }
    barEnc.color = {
      field: group,
      type: 'nominal',
      title: groupTitle,
      sort: null,
      legend: { orient: 'bottom', direction: 'vertical' },
      ...(colors ? { scale: { range: colors } } : {})
    }
  } else {
    barEnc.color = { value: PALETTE[0] }
  }
  const layers = [
    { mark: { type: 'bar', height: { band: group ? 1 : 0.7 } }, encoding: barEnc },
    {
      mark: { type: 'text', align: 'left', dx: 4, fontSize: 11, color: '#24292f' },
      encoding: { y: barEnc.y, yOffset: barEnc.yOffset, x: barEnc.x, text: { field: x, type: 'quantitative', format } }
    }
  ]
  if (!group) delete layers[1].encoding.yOffset
  if (rule !== null) {
    layers.push({
      data: { values: [{ rule }] },
      mark: { type: 'rule', color: '#57606a', strokeDash: [4, 3] },
      encoding: { x: { field: 'rule', type: 'quantitative' } }
    })
  }
  const groups = group ? new Set(rows.map((r) => r[group])).size : 1
  return {
    width,
    height: { step: group ? Math.max(10, 22 - groups * 2) : 26 },
    data: { values: rows },
    layer: layers,
    config: { ...CONFIG, axisY: { grid: false } }
  }
}

// Dispatch results: mean time of a batch of calls by worker count, a line per pooled mode, a panel per
// hook cost; the main thread (no workers) is a horizontal reference line in each panel.
export function dispatchSpec (rows, { width = 260, height = 200 } = {}) {
  const payloads = new Set(rows.map((r) => r.payload)).size
  const color = { field: 'mode', type: 'nominal', title: 'mode', sort: null, legend: { orient: 'bottom' } }
  const dash =
    payloads > 1
      ? {
          strokeDash: { field: 'payload', type: 'nominal', title: 'payload', sort: null, legend: { orient: 'bottom' } }
        }
      : {}
  const y = { field: 'meanMs', type: 'quantitative', title: 'mean time of the batch (ms)' }
  const layer = [
    {
      transform: [{ filter: 'datum.workers > 0' }],
      mark: { type: 'line', point: { filled: true, size: 30 } },
      encoding: {
        x: {
          field: 'workers',
          type: 'quantitative',
          title: 'workers',
          scale: { type: 'log', base: 2, nice: false },
          axis: { values: [1, 2, 4, 8, 16, 32, 64], format: 'd' }
        },
        y,
        color,
        order: { field: 'workers', type: 'quantitative' },
        ...dash
      }
    },
    {
      transform: [{ filter: '!(datum.workers > 0)' }],
      mark: { type: 'rule', strokeWidth: 2, opacity: 0.8 },
      encoding: { y, color, ...dash }
    }
  ]
  return {
    data: { values: rows },
    facet: { column: { field: 'cost', type: 'ordinal', title: null, sort: null, header: { labelFontWeight: 600 } } },
    spec: { width, height, layer },
    resolve: { scale: { y: 'independent' } },
    config: CONFIG
  }
}

function compile (spec) {
  const warnings = []
  const logger = {
    level () {
      return this
    },
    warn (...a) {
      warnings.push(a.join(' '))
      return this
    },
    info () {
      return this
    },
    debug () {
      return this
    },
    error (...a) {
      throw new Error(a.join(' '))
    }
  }
  return { vg: vl.compile(spec, { logger }).spec, logger, warnings }
}

// Renders a Vega-Lite spec to an SVG string synchronously: the same markup as vega's `view.toSVG()`
// (test/loadtest/report-html.test.js checks that), without the Promise, so page renderers stay pure
// functions that return strings. Throws on a Vega error instead of drawing a broken chart.
export function renderSvg (spec, { id = 'chart' } = {}) {
  const key = `${id}\n${JSON.stringify(spec)}`
  if (!RENDERED.has(key)) {
    if (RENDERED.size >= RENDERED_MAX) RENDERED.delete(RENDERED.keys().next().value)
    RENDERED.set(key, renderSvgOnce(spec, id))
  }
  return RENDERED.get(key)
}

// The last few charts drawn, by id and spec: drawing is pure (the same spec gives the same markup) and
// costs a vega parse and a scenegraph each time, so a page drawn again with the same figures (compare
// and the report of one run, a test that renders a report many times over) draws each chart once.
const RENDERED = new Map()
const RENDERED_MAX = 32

function renderSvgOnce (spec, id) {
  const { vg, logger } = compile(spec)
  const view = new vega.View(vega.parse(vg), { renderer: 'none', logger })
  try {
    view.run()
    // vega's own renderHeadless sizes the renderer like this (vega-view width/height/offset).
    const pad = view.padding()
    if (typeof view._viewWidth !== 'number' || !Array.isArray(view._origin)) {
      throw new Error('charts: this vega version no longer exposes the view size; render with renderSvgAsync')
    }
    const Headless = vega.renderModule('svg').headless
    const renderer = new Headless(view.loader())
      .initialize(
        null,
        Math.max(0, view._viewWidth + pad.left + pad.right),
        Math.max(0, view._viewHeight + pad.top + pad.bottom),
        [pad.left + view._origin[0], pad.top + view._origin[1]],
        1
      )
      .background(view.background())
    renderer.render(view.scenegraph().root)
    return inlineSvg(renderer.svg(), id)
  } finally {
    view.finalize()
  }
}

// Renders a Vega-Lite spec through vega's documented asynchronous `view.toSVG()`.
export async function renderSvgAsync (spec, { id = 'chart' } = {}) {
  const { vg, logger } = compile(spec)
  const view = new vega.View(vega.parse(vg), { renderer: 'none', logger })
  try {
    return inlineSvg(await view.toSVG(), id)
  } finally {
    view.finalize()
  }
}

// Inline SVG in HTML needs no namespace declarations (dropping them leaves no URL in the page), and
// vega numbers clip paths with a process-wide counter: renumber them under `id` so that a page is the
// same for the same report and two charts on one page never share an element id.
function inlineSvg (svg, id) {
  const clips = new Map()
  return (
    svg
      .replace(
        /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" xmlns:xlink="http:\/\/www\.w3\.org\/1999\/xlink"/,
        '<svg'
      )
      // Only the clip paths' own ids and references: a run named "a-clip2" is text and stays as it is.
      .replace(/(<clipPath id="|url\(#)clip(\d+)(?=[")])/g, (_, before, n) => {
        if (!clips.has(n)) clips.set(n, clips.size + 1)
        return `${before}${id}-clip${clips.get(n)}`
      })
  )
}
