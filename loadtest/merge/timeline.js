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

// The most slots a merged timeline may have: a day at 100 ms. The merge has checked each shard's points
// against its plan (figures.js); past this a series is refused, never allocated.
export const MAX_TIMELINE_SLOTS = 864_000

// One series from the shards' series (null ones skipped; null when none). A point whose t is not a finite
// number ≥ 0, or past MAX_TIMELINE_SLOTS intervals, is a RangeError.
export function mergeTimelines (list) {
  const series = list.filter((s) => s && Array.isArray(s.points))
  if (!series.length) return null
  const intervalMs = Math.max(...series.map((s) => s.intervalMs))
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) throw new RangeError(`timeline interval ${intervalMs} ms`)
  const slots = new Map()
  let last = -1
  for (const s of series) {
    for (const p of s.points) {
      const i = Math.floor(p.t / intervalMs + 1e-9)
      if (!(Number.isInteger(i) && i >= 0 && i < MAX_TIMELINE_SLOTS)) throw new RangeError(`timeline point at t ${p.t}`)
      if (!slots.has(i)) slots.set(i, emptyPoint(i * intervalMs))
      last = Math.max(last, i)
      addPoint(slots.get(i), p)
    }
  }
  const points = Array.from({ length: last + 1 }, (_, i) => slots.get(i) ?? emptyPoint(i * intervalMs))
  const most = (k) => series.some((s) => typeof s[k] === 'number')
    ? Math.max(...series.map((s) => s[k] ?? -Infinity))
    : null
  const endMs = most('endMs')
  const finished = points.map((p) => finishPoint(p, intervalMs, endMs))
  return { intervalMs, endMs, recoveryEndMs: most('recoveryEndMs'), points: finished }
}
