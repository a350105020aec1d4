// Small pure statistics helpers: percentiles, median, summaries.

// The percentiles autocannon reports, as keys of the `percentiles` map.
export const PERCENTILES = [0.001, 0.01, 0.1, 1, 2.5, 10, 25, 50, 75, 90, 97.5, 99, 99.9, 99.99, 99.999]
// The same, as the keys of a report's `latency.percentiles` map.
export const PERCENTILE_KEYS = PERCENTILES.map(String)

// True for a finite number (report fields that could not be measured are null).
// The relative error of floating-point rounding allowed where two computed rates are meant to be one.
export const ROUNDING = 1e-9
// Whether two computed rates are one rate but for rounding.
export const sameRate = (a, b) => Math.abs(a - b) <= ROUNDING * Math.abs(b)

export function isNum (value) {
  return typeof value === 'number' && Number.isFinite(value)
}

// Nearest-rank percentile p (0..100) of already sorted numbers; null for an empty list.
export function percentile (sorted, p) {
  if (sorted.length === 0) return null
  if (p <= 0) return sorted[0]
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

// Median of numbers (mean of the middle two for an even count); null for an empty list.
export function median (values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

// Round to a given number of decimals, keeping null as null.
export function roundTo (value, decimals = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null
  const f = 10 ** decimals
  return Math.round(value * f) / f
}

// The smaller / larger of two figures, either of which may be null or undefined (not known): the other
// one, or null when neither is known.
export function minOf (a, b) {
  if (a === null || a === undefined) return b ?? null
  return b === null || b === undefined ? a : Math.min(a, b)
}

// The larger of two figures, on the same rule as minOf.
export function maxOf (a, b) {
  if (a === null || a === undefined) return b ?? null
  return b === null || b === undefined ? a : Math.max(a, b)
}

// Latency summary in the report's shape from raw millisecond samples (null figures when empty).
export function summarize (samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const n = sorted.length
  const mean = n ? sorted.reduce((a, b) => a + b, 0) / n : null
  const stddev = n ? Math.sqrt(sorted.reduce((a, b) => a + (b - mean) ** 2, 0) / n) : null
  const percentiles = {}
  for (const p of PERCENTILES) percentiles[String(p)] = roundTo(percentile(sorted, p), 3)
  return {
    count: n,
    min: roundTo(n ? sorted[0] : null, 3),
    mean: roundTo(mean, 3),
    stddev: roundTo(stddev, 3),
    max: roundTo(n ? sorted[n - 1] : null, 3),
    p2_5: percentiles['2.5'],
    p50: percentiles['50'],
    p97_5: percentiles['97.5'],
    p99: percentiles['99'],
    p99_9: percentiles['99.9'],
    percentiles
  }
}

// { min, median, max } of numbers, nulls ignored; all null when nothing is left.
export function spread (values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x))
  if (v.length === 0) return { min: null, median: null, max: null }
  return { min: Math.min(...v), median: median(v), max: Math.max(...v) }
}

// A small seeded PRNG (mulberry32): uniform numbers in [0, 1), the same sequence for the same seed.
export function prng (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
