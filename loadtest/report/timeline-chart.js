// The timeline chart of a round (result.timeline, run/watch/timeline.js): panels stacked on one shared time
// axis (throughput, latency, in flight / queue, event loop, CPU, RSS, processes / threads), the end of
// the round as a rule and the recovery period shaded. Pure spec builders; charts.js renders them.
import { AXIS_COLORS, CHART_BASE, PALETTE } from './charts.js'

const PANELS = [
  { id: 'throughput', title: 'req/s' },
  { id: 'latency', title: 'latency (ms)' },
  { id: 'queue', title: 'in flight / queue' },
  { id: 'loop', title: 'event loop' },
  { id: 'cpu', title: 'CPU (% of a core)' },
  { id: 'rss', title: 'RSS (MB)' },
  { id: 'tree', title: 'processes / threads' }
]

// Long rows { panel, metric, series, t (s), value } of one timeline; `series` names it (a report, in an
// overlay). Intervals without a value for a metric give no row (a gap, not a zero).
export function timelineRows (timeline, series = 'this run') {
  const rows = []
  if (!timeline || !Array.isArray(timeline.points)) return rows
  const add = (panel, metric, t, value) => {
    if (typeof value === 'number' && Number.isFinite(value)) rows.push({ panel, metric, series, t, value })
  }
  const sec = timeline.intervalMs / 1000
  for (const p of timeline.points) {
    const t = p.t / 1000 // the start of the interval (drawn as a step to the next one)
    add('throughput', 'completed/s', t, p.rps)
    add('throughput', 'timeouts/s', t, p.timeouts ? p.timeouts / sec : p.sent || p.completed ? 0 : null)
    add('throughput', 'errors/s', t, p.errors ? p.errors / sec : null)
    add('latency', 'p50', t, p.latency?.p50)
    add('latency', 'p99', t, p.latency?.p99)
    add('latency', 'max', t, p.latency?.max)
    add('queue', 'in flight', t, p.server?.inFlight)
    add('queue', 'queue', t, p.server?.queueLength)
    add('queue', 'threads busy', t, p.server?.threadsBusy)
    add('loop', 'max delay (ms)', t, p.server?.eventLoopMaxMs)
    add('loop', 'utilisation %', t, typeof p.server?.elu === 'number' ? p.server.elu * 100 : null)
    add('cpu', 'CPU %', t, p.outside?.cpuPercent)
    add('rss', 'RSS MB', t, typeof p.outside?.rssBytes === 'number' ? p.outside.rssBytes / 1e6 : null)
    add('tree', 'processes', t, p.outside?.processes)
    add('tree', 'threads', t, p.outside?.threads)
  }
  return rows
}

// The marks of one timeline: { series, endS, recoveryEndS } (null where unknown).
export function timelineMarks (timeline, series = 'this run') {
  const s = (ms) => (typeof ms === 'number' ? ms / 1000 : null)
  return { series, endS: s(timeline?.endMs), recoveryEndS: s(timeline?.recoveryEndMs) }
}

// The top panel's labels: "end of round" at each round's end, "recovery" at the end of its recovery.
function roundLabels (markRows, overlay, scale) {
  return [
    {
      data: { values: markRows.map((m) => ({ ...m, label: overlay ? `end of round (${m.series})` : 'end of round' })) },
      mark: { type: 'text', align: 'left', baseline: 'top', dx: 3, dy: 2, fontSize: 10, color: '#24292f' },
      encoding: { x: { field: 'endS', type: 'quantitative', scale }, y: { value: 0 }, text: { field: 'label' } }
    },
    {
      data: { values: markRows.filter((m) => m.recoveryEndS > m.endS).map((m) => ({ ...m, label: 'recovery' })) },
      mark: { type: 'text', align: 'right', baseline: 'top', dx: -3, dy: 14, fontSize: 10, color: '#57606a' },
      encoding: { x: { field: 'recoveryEndS', type: 'quantitative', scale }, y: { value: 0 }, text: { field: 'label' } }
    }
  ]
}

// A Vega-Lite spec: one panel per PANELS entry that has rows, all on the same x domain. With one
// series, colour is the metric; with several (an overlay of reports), colour is the series and the
// dash is the metric. marks: a list of timelineMarks (one per series).
export function timelineSpec (rows, marks, { width = 900, panelHeight = 90 } = {}) {
  const seriesCount = new Set(rows.map((r) => r.series)).size
  const overlay = seriesCount > 1
  const ends = marks.flatMap((m) => [m.endS, m.recoveryEndS]).filter((x) => typeof x === 'number')
  const tMax = Math.max(0.1, ...rows.map((r) => r.t), ...ends)
  const x = {
    field: 't',
    type: 'quantitative',
    title: 'seconds since the round started',
    scale: { domain: [0, tMax], nice: false }
  }
  const markRows = marks.filter((m) => typeof m.endS === 'number')
  const shown = PANELS.filter((p) => rows.some((r) => r.panel === p.id))
  const panels = shown.map((p) => {
    const last = p === shown.at(-1)
    const px = last ? x : { ...x, title: null }
    const line = {
      transform: [{ filter: { field: 'panel', equal: p.id } }],
      mark: { type: 'line', interpolate: 'step-after', clip: true, strokeWidth: 1.6 },
      encoding: {
        x: px,
        y: { field: 'value', type: 'quantitative', title: p.title, axis: { tickCount: 4 } },
        color: overlay
          ? { field: 'series', type: 'nominal', title: 'report', sort: null, scale: { range: PALETTE } }
          : {
              field: 'metric',
              type: 'nominal',
              title: null,
              sort: null,
              scale: { range: PALETTE },
              legend: { orient: 'right' }
            },
        ...(overlay
          ? { strokeDash: { field: 'metric', type: 'nominal', title: null, sort: null, legend: { orient: 'right' } } }
          : {}),
        detail: { field: 'metric', type: 'nominal' }
      }
    }
    const layer = [
      {
        data: { values: markRows.filter((m) => typeof m.recoveryEndS === 'number' && m.recoveryEndS > m.endS) },
        mark: { type: 'rect', color: '#d0d7de', opacity: 0.35 },
        encoding: { x: { field: 'endS', type: 'quantitative', scale: x.scale }, x2: { field: 'recoveryEndS' } }
      },
      {
        data: { values: markRows },
        mark: { type: 'rule', color: '#24292f', strokeDash: [4, 3] },
        encoding: { x: { field: 'endS', type: 'quantitative', scale: x.scale } }
      },
      { data: { values: rows }, ...line }
    ]
    if (p === shown[0]) {
      layer.push(...roundLabels(markRows, overlay, x.scale)) // labels on the top panel only
    }
    return {
      width,
      height: panelHeight,
      layer,
      resolve: { scale: { color: 'independent', strokeDash: 'independent' } }
    }
  })
  return {
    vconcat: panels,
    spacing: 6,
    resolve: { scale: { x: 'shared', color: 'independent', strokeDash: 'independent' } },
    config: {
      ...CHART_BASE,
      axis: {
        ...AXIS_COLORS,
        titleFontSize: 11,
        labelFontSize: 10,
        gridColor: '#eaeef2'
      },
      legend: { labelFontSize: 11, symbolStrokeWidth: 2.5 }
    }
  }
}
