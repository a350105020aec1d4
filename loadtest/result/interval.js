// Intervals from one run: how far a figure of a single run could lie from its own value, from the run's
// own data. Pure: report fields in, { value, low, high, … } out (compare/verdict.js reads them).
// - A percentile: the distribution-free interval of a quantile from order statistics (Lancet's method):
//   of n requests, the r-th and s-th smallest bracket the q-quantile with the binomial's confidence; read
//   from the run's whole HdrHistogram (results[].histograms.latency).
// - A rate (req/s, answers per second, efficiency): batch means over the run's timeline windows
//   (results[].timeline.points): windows grouped into batches long enough that neighbouring seconds'
//   correlation stays inside a batch, the batches' rates taken as independent; a Student t interval.
//   A closed loop too short for batches: from its median latency's interval (Little's law).
// - A capacity: its own bracket (the highest rate held, the lowest that failed above it).
// Extra rounds (--runs N) bring more requests and more windows: the interval narrows by itself.
import { decodeHistogram } from './histogram.js'
import { isNum } from './stats.js'
import { INTERVAL } from './rules.js'

// Two-sided at the rule book's INTERVAL.confidence (95 %): the normal's quantile and Student's t for 1 … 30
// degrees of freedom (beyond, the normal).
export const CONFIDENCE = INTERVAL.confidence
const Z = 1.959963984540054
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
  2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
export const tQuantile = (df) => (df >= 1 && df <= T975.length ? T975[df - 1] : Z)

// Batches of windows (the rule book's INTERVAL): 40 windows make 10 batches of 4.
export const BATCHES = Object.freeze({
  max: INTERVAL.maxBatches, minWindows: INTERVAL.batchWindows, min: INTERVAL.minBatches, minCount: INTERVAL.batchCount
})

// The ranks (1-based) of the order statistics that bracket the q-quantile of n values with CONFIDENCE
// (normal approximation of the binomial, as Lancet): { lo, hi, openLow, openHigh }, each side open where
// the interval wanted a rank past the smallest or largest value (the rank is then clamped to it).
export function quantileRanks (n, q) {
  const sd = Math.sqrt(n * q * (1 - q))
  const lo = Math.floor(n * q - Z * sd)
  const hi = Math.ceil(n * q + Z * sd) + 1
  return { lo: Math.max(1, lo), hi: Math.min(n, hi), openLow: lo < 1, openHigh: hi > n }
}

// The values (µs) at ranks `ranks` (ascending, 1-based) of a histogram: lowest equivalent for the low side,
// highest equivalent for the high side (the histogram's own resolution widens the interval, never narrows it).
function valuesAtRanks (h, lo, hi) {
  const out = { lo: null, hi: null }
  let seen = 0
  const it = h.recordedValuesIterator
  it.reset()
  while (it.hasNext()) {
    const v = it.next()
    const before = seen
    seen += v.countAtValueIteratedTo
    if (out.lo === null && seen >= lo && before < lo) out.lo = h.lowestEquivalentValue(v.valueIteratedTo)
    if (seen >= hi && before < hi) {
      out.hi = h.highestEquivalentValue(v.valueIteratedTo)
      break
    }
  }
  return out
}

/**
 * The interval of percentile `p` (0–100) of an encoded latency histogram, around `value` (ms, the report's
 * figure): { value, low, high, n, open, method: 'order-statistics' }, or null without a histogram, with no
 * request, or a histogram the lab cannot read.
 */
export function percentileInterval (encoded, p, value) {
  if (typeof encoded !== 'string' || !isNum(value)) return null
  let h
  try {
    h = decodeHistogram(encoded)
  } catch {
    return null
  }
  const n = h.totalCount
  if (!(n > 0)) return null
  const ranks = quantileRanks(n, p / 100)
  const at = valuesAtRanks(h, ranks.lo, ranks.hi)
  if (at.lo === null || at.hi === null) return null
  // a side whose rank lies past the sample is open: n requests cannot bound a quantile past their extremes
  const low = ranks.openLow ? 0 : Math.min(value, at.lo / 1000)
  const high = ranks.openHigh ? Infinity : Math.max(value, at.hi / 1000)
  return { value, low, high, n, method: 'order-statistics' }
}

// A timeline's whole windows of load (phase 'round'): those that ended before the round did (the last,
// cut short by the round's end, and the drain after it are left out).
export function loadWindows (timeline) {
  const step = timeline?.intervalMs
  const points = Array.isArray(timeline?.points) ? timeline.points : []
  if (!(step > 0)) return []
  const end = isNum(timeline.endMs) ? timeline.endMs : Infinity
  return points.filter((pt) => pt && pt.phase === 'round' && isNum(pt.t) && pt.t + step <= end)
}

/**
 * Batch means of a per-window count `field` (completed, ok) over a timeline's whole windows: the relative
 * half-width of the mean rate with CONFIDENCE, { half, batches, windows }, or null with too few windows
 * or requests (fewer than BATCHES.min batches of BATCHES.minWindows windows and BATCHES.minCount requests).
 */
export function batchMeans (timeline, field = 'completed') {
  const windows = loadWindows(timeline).map((pt) => pt[field]).filter(isNum)
  const total = windows.reduce((s, x) => s + x, 0)
  const batches = Math.min(BATCHES.max, Math.floor(windows.length / BATCHES.minWindows),
    Math.floor(total / BATCHES.minCount))
  if (batches < BATCHES.min) return null
  const size = Math.floor(windows.length / batches)
  const kept = windows.slice(windows.length - batches * size) // the first windows (the warm-up side) give way
  const means = []
  for (let b = 0; b < batches; b++) means.push(kept.slice(b * size, (b + 1) * size).reduce((s, x) => s + x, 0) / size)
  const mean = means.reduce((s, x) => s + x, 0) / batches
  if (!(mean > 0)) return null
  const variance = means.reduce((s, x) => s + (x - mean) ** 2, 0) / (batches - 1)
  const half = (tQuantile(batches - 1) * Math.sqrt(variance / batches)) / mean
  return { half, batches, windows: windows.length }
}

/**
 * The interval of a rate figure `value` (req/s, or a figure proportional to it: efficiency) from batch means
 * of `field` over the run's timeline: { value, low, high, batches, method: 'batch-means' }, or null.
 */
export function rateInterval (timeline, value, field = 'completed') {
  if (!isNum(value) || !(value > 0)) return null
  const bm = batchMeans(timeline, field)
  if (!bm) return null
  const half = Math.min(bm.half, 0.99) // a rate is never below 0: a wider interval is open below
  return { value, low: value * (1 - half), high: value * (1 + half), batches: bm.batches, method: 'batch-means' }
}

/**
 * A closed loop's rate too short for batch means: at a fixed number of connections the rate goes as one
 * over the latency (Little's law), so the rate moves as far as the latency's middle can: the interval of
 * the p50 (order statistics, robust to the tail a mean's interval would blow up on), turned over.
 * `p50` its interval (percentileInterval); { value, low, high, method: 'median-latency' } or null.
 */
export function littleInterval (p50, value) {
  if (!isNum(value) || !(value > 0) || !(p50?.low > 0) || !(p50.value > 0)) return null
  return { value, low: (value * p50.value) / p50.high, high: (value * p50.value) / p50.low, method: 'median-latency' }
}

/**
 * The interval of a capacity from its bracket: { value, low, high, method: 'bracket' } with `high` the
 * lowest failing rate (Infinity for a lower bound, 'at-least'), or null without a capacity.
 */
export function capacityInterval (capacity) {
  const rps = capacity?.rps
  if (!isNum(rps) || !(rps > 0)) return null
  const fail = capacity.bracket?.fail
  const high = capacity.bound === 'at-least' || !isNum(fail) || fail < rps ? Infinity : fail
  return { value: rps, low: rps, high, method: 'bracket' }
}

/**
 * The interval of a figure shown from one of several rounds (--runs N: the median round by req/s) widened
 * to cover where the rounds put their median: the distribution-free interval of the median of the rounds'
 * values (order statistics, as a percentile's), so that round-to-round noise is measured, not assumed; it
 * narrows as rounds are added (12 rounds: the 2nd to the 11th). `iv` the shown round's own interval (or
 * null), `values` every round's figure; `iv` unchanged with fewer than 2 rounds.
 */
export function withRounds (iv, values) {
  const xs = (values ?? []).filter(isNum).sort((a, b) => a - b)
  if (xs.length < 2 || !iv) return iv
  const { lo, hi } = quantileRanks(xs.length, 0.5)
  return { ...iv, low: Math.min(iv.low, xs[lo - 1]), high: Math.max(iv.high, xs[hi - 1]), rounds: xs.length }
}

// An interval's log half-widths: { up, down } (Infinity for an open side), or null without an interval.
export function logWidths (iv) {
  if (!iv || !(iv.value > 0)) return null
  const up = iv.high === Infinity ? Infinity : Math.log(Math.max(iv.high, iv.value) / iv.value)
  const down = iv.low > 0 ? Math.log(iv.value / Math.min(iv.low, iv.value)) : Infinity
  return { up, down }
}
