// Latency histograms for both load engines: HdrHistogram in microseconds (bounded memory whatever the
// round's length), summarised into the report's latency shape in milliseconds, encoded so that rounds
// and machines can later be merged exactly (hdr-histogram-js compressed base64, as HdrHistogram logs).
import { inflateSync } from 'node:zlib'
import { lazyRequire } from './lazy.js'
import { PERCENTILES, roundTo } from './stats.js'

const hdr = lazyRequire('hdr-histogram-js')

// 3 significant digits: a recorded value is within 0.1 % of the true one (the report's histograms).
const DIGITS = 3
// 2 significant digits (within 1 %): a timeline's per-interval histograms, a few kB each.
export const COARSE_DIGITS = 2

// A new empty histogram of microseconds up to an hour (1 µs resolution). The one factory of the lab:
// `digits` COARSE_DIGITS for the many small histograms of a timeline.
export function createHistogram ({ digits = DIGITS } = {}) {
  return hdr().build({
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
  return hdr().encodeIntoCompressedBase64(histogram)
}

// What a histogram read back may cost, whoever wrote it (a shard's report, a thread, a server): the lab's
// own are a few kB encoded and about 25k counts (3 digits, an hour in µs), far below every bound. Past
// them an encoded string is refused: a crafted 544 kB one asked hdr-histogram-js for 946 MB.
export const DECODE_LIMITS = Object.freeze({ chars: 4_000_000, inflatedBytes: 8 << 20, digits: 5, counts: 1 << 20 })

const V2_COMPRESSED = 0x1c849304 // the V2 compressed cookie, word-size bits masked (as hdr-histogram-js reads it)

// The counts array hdr-histogram-js would allocate for a header (its JsHistogram constructor's arithmetic).
function countsLength (digits, lowest, highest) {
  const subBuckets = 2 ** Math.max(1, Math.ceil(Math.log2(2 * 10 ** digits)))
  let untrackable = subBuckets * 2 ** Math.floor(Math.log2(Math.max(1, lowest)))
  let buckets = 1
  while (untrackable <= highest && untrackable <= Number.MAX_SAFE_INTEGER / 2) {
    untrackable *= 2
    buckets++
  }
  return (buckets + 1) * (subBuckets / 2)
}

// The encoding's cookie and length (bytes), and the inflated header up to the counts.
const COOKIE_BYTES = 8
const HEADER_BYTES = 40

// Throws a RangeError saying which bound an encoded histogram is past (DECODE_LIMITS), before it is inflated
// whole or its counts allocated.
function checkEncoded (text) {
  const bad = (why) => new RangeError(`not a histogram the lab reads: ${why}`)
  if (typeof text !== 'string') throw bad(`got ${text === null ? 'null' : typeof text}`)
  if (text.length > DECODE_LIMITS.chars) throw bad(`${text.length} characters, over ${DECODE_LIMITS.chars}`)
  const bytes = Buffer.from(text, 'base64')
  if (bytes.length < COOKIE_BYTES || (bytes.readInt32BE(0) & ~0xf0) !== V2_COMPRESSED) {
    throw bad('no V2 compressed cookie')
  }
  let raw
  try {
    const payload = bytes.subarray(COOKIE_BYTES, COOKIE_BYTES + Math.max(0, bytes.readInt32BE(4)))
    raw = inflateSync(payload, { maxOutputLength: DECODE_LIMITS.inflatedBytes })
  } catch (err) {
    throw bad(err.code === 'ERR_BUFFER_TOO_LARGE'
      ? `it inflates past ${DECODE_LIMITS.inflatedBytes} bytes`
      : `it does not inflate (${err.code ?? err.message})`)
  }
  if (raw.length < HEADER_BYTES) throw bad('its header is cut short')
  const digits = raw.readInt32BE(12)
  const [lowest, highest] = [Number(raw.readBigInt64BE(16)), Number(raw.readBigInt64BE(24))]
  if (!(digits >= 0 && digits <= DECODE_LIMITS.digits)) {
    throw bad(`${digits} significant digits (0 ` +
    `to ${DECODE_LIMITS.digits})`)
  }
  const counts = countsLength(digits, lowest, highest)
  if (counts > DECODE_LIMITS.counts) throw bad(`it would hold ${counts} counts, over ${DECODE_LIMITS.counts}`)
}

// A histogram back from encodeHistogram's string; a RangeError for one past DECODE_LIMITS.
export function decodeHistogram (text) {
  checkEncoded(text)
  return hdr().decodeFromCompressedBase64(text, 32, false)
}

// Several encoded histograms added into one (exact: counts per bucket add), or null when none.
export function mergeEncoded (texts) {
  const list = texts.filter((t) => typeof t === 'string' && t.length > 0)
  if (list.length === 0) return null
  const total = createHistogram()
  for (const t of list) total.add(decodeHistogram(t))
  return total
}

// How far a shown percentile may be from its own histogram's (ms): the histogram's precision (3 significant
// digits, 0.1 %) and the report's rounding to the µs.
export const PERCENTILE_SLACK = Object.freeze({ rel: 1e-3, abs: 0.002 })
// The figures of a latency summary held against its histogram.
const HELD = ['p50', 'p99', 'max']

// A latency summary (the report's shape, ms) against its own encoded histogram: the first way they disagree,
// as a sentence ('its latency histogram is unreadable (…)', 'its latency p50 303 ms, its histogram says
// 21.1 ms', a count), or null when they agree or there is no histogram. `what` names the summary.
export function histogramFault (latency, encoded, what = 'latency') {
  if (encoded === undefined || encoded === null) return null
  let h
  try {
    h = decodeHistogram(encoded)
  } catch (err) {
    return `its ${what} histogram is unreadable (${String(err.message).split('\n')[0]})`
  }
  const own = summarizeHistogram(h)
  if (typeof latency?.count === 'number' && latency.count !== own.count) {
    return `its ${what} count ${latency.count}, its histogram holds ${own.count} samples`
  }
  for (const k of HELD) {
    const said = latency?.[k]
    const is = own[k]
    if (is === null && (said === null || said === undefined)) continue
    const off = (v) => Math.abs(v - is) > PERCENTILE_SLACK.abs + PERCENTILE_SLACK.rel * Math.abs(is)
    if (typeof said !== 'number' || !Number.isFinite(said) || off(said)) {
      return `its ${what} ${k} ${JSON.stringify(said)} ms, its histogram says ${is} ms`
    }
  }
  return null
}
