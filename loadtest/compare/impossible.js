// Figures no measurement gives: a report can be hand-edited or corrupt, and compare would otherwise show
// `rps -5` or `1e308 req/s` raw and compute ratios and --fail-on verdicts from them. Each such figure is
// set to null (shown as —, never in a ratio or a gate) and named in the run's reasons (flagged ⚠).
import { isNum, PERCENTILE_KEYS } from '../result/stats.js'
import { histogramFault } from '../result/histogram.js'

// The largest figure of each kind compare takes as measured (below zero none is).
const LIMITS = Object.freeze({
  latency: { max: 1e9, unit: 'ms' }, // about 11 days
  rate: { max: 1e9, unit: 'req/s' },
  ratio: { max: 1000, unit: '(100,000 %)' },
  count: { max: 1e15, unit: '' }
})

// Where the figures compare reads sit in a result (or a round of it), with their kind.
const FIXED = [
  [['rps'], 'rate'],
  [['efficiency'], 'ratio'],
  [['ideal', 'rps'], 'rate'],
  [['meanMs'], 'latency'],
  [['perCallUs'], 'latency'],
  [['capacity', 'capacity', 'rps'], 'rate'],
  [['capacity', 'sloMs'], 'latency'],
  ...['errors', 'timeouts', 'non2xx', 'mismatches'].map((k) => [['requests', k], 'count'])
]

function figurePaths (r) {
  const lat = r.latency && typeof r.latency === 'object' ? r.latency : {}
  return [
    ...FIXED,
    ...Object.keys(lat).filter((k) => isNum(lat[k])).map((k) => [['latency', k], 'latency']),
    ...PERCENTILE_KEYS.map((p) => [['latency', 'percentiles', p], 'latency'])
  ]
}

function at (obj, path) {
  return path.reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj)
}

// A copy of obj with the figure at path set to null (copying only the objects on the path).
function withNull (obj, [head, ...rest]) {
  return { ...obj, [head]: rest.length ? withNull(obj[head], rest) : null }
}

// Why figure v of `kind` is not a measurement, or null when it may be one.
function notMeasured (kind, v) {
  if (!isNum(v)) return null
  if (v < 0) return 'negative'
  return v > LIMITS[kind].max ? `over ${LIMITS[kind].max.toLocaleString('en-US')} ${LIMITS[kind].unit}`.trim() : null
}

// One result (or round) with the figures no measurement gives set to null: { result, why: [reasons] }.
function clean (r, prefix = '') {
  let result = r
  const why = []
  for (const [path, kind] of figurePaths(r)) {
    const v = at(result, path)
    const bad = notMeasured(kind, v)
    if (!bad) continue
    result = withNull(result, path)
    why.push(`${prefix}${path.join('.')} ${v} is not a measurement (${bad})`)
  }
  return { result, why }
}

// Reasons kept per result: a corrupt report can have thousands of rounds; the first few say enough.
const MAX_REASONS = 10

// A result as compare reads it (a copy): its impossible figures and its rounds' nulled, their reasons in
// `impossible` (an empty list when every figure may be measured). A latency histogram that contradicts the
// run's own count or percentiles (or cannot be read) is dropped, so no figure gets an interval from it, and
// the sentence saying so is `histogramFault` (null when it agrees): the run is not vouched for.
export function withoutImpossible (r) {
  const { result, why } = clean(r)
  const out = { ...result }
  out.histogramFault = histogramFault(r.latency, r.histograms?.latency)
  if (out.histogramFault) out.histograms = { ...r.histograms, latency: null }
  if (Array.isArray(r.runs)) {
    out.runs = r.runs.map((round, i) => {
      if (!round || typeof round !== 'object') return round
      const c = clean(round, `round ${i + 1}: `)
      for (const w of c.why) if (why.length < MAX_REASONS) why.push(w)
      return c.result
    })
  }
  out.impossible = why
  return out
}
