// A round's time series, independent of the load engine: the engine calls sent(t) and record(t, {...})
// for every request, the samplers call gauge(t, source, values); series() gives one point per interval.
// Memory is bounded: at most MAX_BUCKETS buckets, each with a small HDR histogram; when a round grows
// past that, neighbouring buckets merge and the interval doubles (histograms add exactly).
import { COARSE_DIGITS, createHistogram, decodeHistogram, encodeHistogram } from '../../result/histogram.js'
import { roundTo } from '../../result/stats.js'

export const MAX_BUCKETS = 400
const MIN_INTERVAL_MS = 100
const NICE = [100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 30000, 60000]

// The interval for a round of about durationMs (unknown: the smallest): the smallest nice step that
// gives at most 200 points, so a round has roughly 20 to 400 points (an --amount round coarsens itself).
export function chooseInterval (durationMs = null) {
  if (!(durationMs > 0)) return MIN_INTERVAL_MS
  return NICE.find((step) => durationMs / step <= 200) ?? NICE.at(-1)
}

function histogram () {
  // Microseconds, up to an hour, 2 significant digits: a few kB per bucket.
  return createHistogram({ digits: COARSE_DIGITS })
}

function emptyBucket () {
  return { sent: 0, completed: 0, ok: 0, non2xx: 0, timeouts: 0, errors: 0, latency: null, gauges: {} }
}

// Gauges of one source in one bucket: the last value of each field, and the max of the fields in MAXED.
const MAXED = new Set(['inFlight', 'queueLength', 'processes', 'threads', 'rssBytes', 'eventLoopMaxMs'])

function mergeGauges (into, from) {
  for (const [source, values] of Object.entries(from)) {
    const g = (into[source] ??= {})
    for (const [k, v] of Object.entries(values)) {
      if (typeof v !== 'number') continue
      g[k] = MAXED.has(k) && typeof g[k] === 'number' ? Math.max(g[k], v) : v
    }
  }
}

// Add bucket b into bucket a (counts, latency histogram, gauges); returns a.
function mergeBucket (a, b) {
  for (const k of ['sent', 'completed', 'ok', 'non2xx', 'timeouts', 'errors']) a[k] += b[k]
  if (b.latency) {
    if (a.latency) a.latency.add(b.latency)
    else a.latency = b.latency
  }
  mergeGauges(a.gauges, b.gauges)
  return a
}

// Buckets merged pairwise: twice the interval, half the count.
function halve (buckets) {
  const next = []
  for (let i = 0; i < buckets.length; i += 2) {
    const a = buckets[i]
    const b = buckets[i + 1]
    next.push(a && b ? mergeBucket(a, b) : (a ?? b ?? null))
  }
  return next
}

// One point of the plain series from its bucket, starting at t.
function pointOf (b, t, interval, endMs) {
  const l = b.latency
  return {
    t,
    phase: endMs !== null && t >= endMs ? 'recovery' : 'round',
    sent: b.sent,
    completed: b.completed,
    ok: b.ok,
    non2xx: b.non2xx,
    timeouts: b.timeouts,
    errors: b.errors,
    rps: roundTo(b.completed / (interval / 1000), 3),
    latency:
      l && l.totalCount > 0
        ? { p50: us(l.getValueAtPercentile(50)), p99: us(l.getValueAtPercentile(99)), max: us(l.maxValue) }
        : null,
    server: b.gauges.server ?? null,
    outside: b.gauges.outside ?? null
  }
}

// Start a timeline; t is ms since the round started (the caller's clock). endMs marks the end of the
// round (the recovery period follows).
export function createTimeline ({ intervalMs = MIN_INTERVAL_MS, maxBuckets = MAX_BUCKETS } = {}) {
  let interval = intervalMs
  let buckets = []
  let endMs = null
  let recoveryEndMs = null

  const at = (t) => {
    let i = Math.max(0, Math.floor(t / interval))
    while (i >= maxBuckets) {
      coarsen()
      i = Math.max(0, Math.floor(t / interval))
    }
    while (buckets.length <= i) buckets.push(null)
    return (buckets[i] ??= emptyBucket())
  }
  // Merge bucket pairs: the interval doubles, the count halves.
  const coarsen = () => {
    buckets = halve(buckets)
    interval *= 2
  }

  return {
    get intervalMs () {
      return interval
    },
    // One request sent at t.
    sent (t) {
      at(t).sent++
    },
    // One request finished at t: answered (status), timed out, or failed on its connection (error).
    record (t, { latencyMs = null, status = null, timeout = false, error = false } = {}) {
      const b = at(t)
      if (timeout) b.timeouts++
      else if (error) b.errors++
      else {
        b.completed++
        if (status >= 200 && status < 300) b.ok++
        else b.non2xx++
      }
      if (latencyMs !== null && latencyMs >= 0) {
        b.latency ??= histogram()
        b.latency.recordValue(Math.max(1, Math.round(latencyMs * 1000)))
      }
    },
    // A sample of gauges from `source` ('server', 'outside') taken at t.
    gauge (t, source, values) {
      mergeGauges(at(t).gauges, { [source]: values })
    },
    // The round ended at t (the recovery period starts).
    end (t) {
      endMs = t
    },
    // The recovery period ended at t (idle again, or the cap).
    recovered (t) {
      recoveryEndMs = t
    },
    // The plain series: { intervalMs, endMs, recoveryEndMs, points: [{ t, phase, sent, ... }] }; with
    // `histograms` each point also carries its latency histogram, encoded (a shard's, for npm run merge).
    series ({ histograms = false } = {}) {
      const points = buckets.map((b, i) => {
        const point = pointOf(b ?? emptyBucket(), i * interval, interval, endMs)
        if (histograms) point.histogram = b?.latency ? encodeHistogram(b.latency) : null
        return point
      })
      return { intervalMs: interval, endMs, recoveryEndMs, points }
    },
    // The request counts and latencies of each bucket, plain data a generator thread can post.
    dump () {
      const plain = (b) => b && { ...b, latency: b.latency ? encodeHistogram(b.latency) : null, gauges: {} }
      return { intervalMs: interval, buckets: buckets.map(plain) }
    },
    // Add another timeline's dump (a generator thread's, on the same clock) bucket by bucket.
    absorb (other) {
      while (interval < other.intervalMs) coarsen()
      for (const [j, b] of other.buckets.entries()) {
        if (b) mergeBucket(at(j * other.intervalMs), { ...b, latency: b.latency ? decodeHistogram(b.latency) : null })
      }
    }
  }
}

// The sums of a series' counts (for checks against the round's totals).
export function totals (series) {
  const out = { sent: 0, completed: 0, ok: 0, non2xx: 0, timeouts: 0, errors: 0 }
  for (const p of series.points) for (const k of Object.keys(out)) out[k] += p[k]
  return out
}

function us (v) {
  return Math.round(v) / 1000
}
