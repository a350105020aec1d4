// The shards' timelines as one: every shard's timeline starts at the common start (run/watch/watch.js
// originEpochMs), so point t of one is point t of another; intervals that differ (a longer recovery
// coarsens a timeline) are brought to the widest. Counts add; each point's latency comes from the shards'
// per-point histograms added (a shard keeps them for this), else it is null. Pure.
import { createHistogram, decodeHistogram } from '../result/histogram.js'

const COUNTS = ['sent', 'completed', 'ok', 'non2xx', 'timeouts', 'errors']

function emptyPoint (t) {
  return { t, ...Object.fromEntries(COUNTS.map((k) => [k, 0])), histogram: null, server: null, outside: null }
}

// Add one shard's point into the merged point.
function addPoint (into, p) {
  for (const k of COUNTS) into[k] += p[k] ?? 0
  if (typeof p.histogram === 'string') {
    into.histogram ??= createHistogram({ digits: 2 })
    into.histogram.add(decodeHistogram(p.histogram))
  }
  into.server ??= p.server ?? null
  into.outside ??= p.outside ?? null
}

// A merged point as the report's timeline shows it.
function finishPoint (p, intervalMs, endMs) {
  const h = p.histogram
  const ms = (v) => Math.round(v) / 1000
  return {
    t: p.t,
    phase: endMs !== null && p.t >= endMs ? 'recovery' : 'round',
    ...Object.fromEntries(COUNTS.map((k) => [k, p[k]])),
    rps: Math.round((p.completed / (intervalMs / 1000)) * 1000) / 1000,
    latency: h && h.totalCount > 0
      ? { p50: ms(h.getValueAtPercentile(50)), p99: ms(h.getValueAtPercentile(99)), max: ms(h.maxValue) }
      : null,
    server: p.server,
    outside: p.outside
  }
}

// One series from the shards' series (null ones skipped; null when none).
export function mergeTimelines (list) {
  const series = list.filter((s) => s && Array.isArray(s.points))
  if (!series.length) return null
  const intervalMs = Math.max(...series.map((s) => s.intervalMs))
  const points = []
  for (const s of series) {
    for (const p of s.points) {
      const i = Math.floor(p.t / intervalMs + 1e-9)
      while (points.length <= i) points.push(emptyPoint(points.length * intervalMs))
      addPoint(points[i], p)
    }
  }
  const most = (k) => (series.some((s) => typeof s[k] === 'number') ? Math.max(...series.map((s) => s[k] ?? -Infinity)) : null)
  const endMs = most('endMs')
  return { intervalMs, endMs, recoveryEndMs: most('recoveryEndMs'), points: points.map((p) => finishPoint(p, intervalMs, endMs)) }
}
