// Latency histograms for both load engines: HdrHistogram in microseconds (bounded memory whatever the
// round's length), summarised into the report's latency shape in milliseconds, encoded so that rounds
// and machines can later be merged exactly (hdr-histogram-js compressed base64, as HdrHistogram logs).
import * as hdr from 'hdr-histogram-js'
import { PERCENTILES, roundTo } from './stats.js'

// 3 significant digits: a recorded value is within 0.1 % of the true one (the report's histograms).
const DIGITS = 3
// 2 significant digits (within 1 %): a timeline's per-interval histograms, a few kB each.
export const COARSE_DIGITS = 2

// A new empty histogram of microseconds up to an hour (1 µs resolution). The one factory of the lab:
// `digits` COARSE_DIGITS for the many small histograms of a timeline.
export function createHistogram ({ digits = DIGITS } = {}) {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60 * 60 * 1e6,
    numberOfSignificantValueDigits: digits,
    autoResize: true,
    useWebAssembly: false
  })
}

// Record a duration given in milliseconds (negative values, which clock steps can give, count as 0).
export function recordMs (histogram, ms) {
  histogram.recordValue(Math.max(0, Math.round(ms * 1000)))
}

// The report's latency summary (milliseconds) of a histogram: count, min, mean, stddev, max, the named
// percentiles and the full PERCENTILES map; null figures when nothing was recorded.
export function summarizeHistogram (histogram) {
  const n = histogram.totalCount
  const ms = (us) => (n ? roundTo(us / 1000, 3) : null)
  const percentiles = {}
  for (const p of PERCENTILES) percentiles[String(p)] = ms(histogram.getValueAtPercentile(p))
  return {
    count: n,
    min: n ? ms(histogram.getValueAtPercentile(0)) : null,
    mean: ms(histogram.mean),
    stddev: ms(histogram.stdDeviation),
    max: ms(histogram.getValueAtPercentile(100)), // the same rounding as the percentiles: max ≥ p99 always
    p2_5: percentiles['2.5'],
    p50: percentiles['50'],
    p97_5: percentiles['97.5'],
    p99: percentiles['99'],
    p99_9: percentiles['99.9'],
    p99_99: percentiles['99.99'],
    percentiles
  }
}

// The histogram as a compressed base64 string (the HdrHistogram V2 encoding), for the report.
export function encodeHistogram (histogram) {
  return hdr.encodeIntoCompressedBase64(histogram)
}

// A histogram back from encodeHistogram's string.
export function decodeHistogram (text) {
  return hdr.decodeFromCompressedBase64(text, 32, false)
}

// Several encoded histograms added into one (exact: counts per bucket add), or null when none.
export function mergeEncoded (texts) {
  const list = texts.filter((t) => typeof t === 'string' && t.length > 0)
  if (list.length === 0) return null
  const total = createHistogram()
  for (const t of list) total.add(decodeHistogram(t))
  return total
}
