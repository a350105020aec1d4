// The --fail-on grammar, one module for compare's --fail-on and history's --fail-on-change (and the
// library's failOn and failOnChange): a bound 'METRIC:±N%' read into { spec, metric, sign, bound }, or
// a bound given as that object checked. A malformed one is an error naming the option (exit 2).
import { CompareError, clip, describe } from '../errors.js'
import { METRICS } from '../report/thresholds.js'
import { higherIsBetter } from '../result/better.js'
import { isNum } from '../result/stats.js'

// Metrics a bound takes: the lab's threshold metrics that are not counts.
export const FAIL_ON_METRICS = Object.freeze(Object.keys(METRICS).filter((m) => METRICS[m].kind !== 'count'))

// The grammar, for refusals and --help.
export const FAIL_ON_GRAMMAR = 'METRIC:+N% (a rise past N % fails) or METRIC:-N% (a fall past N % fails); ' +
  `METRIC one of ${FAIL_ON_METRICS.join(', ')}; ` +
  "latency may only rise, rps, efficiency and capacity only fall; e.g. 'p99:+10%', 'rps:-5%'"

const compareError = (message) => new CompareError(message, 'LAB_COMPARE_FAIL_ON')

// The sign of a regression of `metric`: '-' where higher is better, '+' where lower is.
const worseSign = (metric) => (higherIsBetter(metric) ? '-' : '+')

// Why `metric` takes no bound, or null when it does (own keys only: 'constructor' is no metric).
function metricFault (metric, shown = metric) {
  if (FAIL_ON_METRICS.includes(metric)) return null
  return Object.hasOwn(METRICS, metric)
    ? `${metric} is a count: bound it with the lab's --threshold '${metric}==0'`
    : `unknown metric ${JSON.stringify(clip(shown, 40))}`
}

/**
 * Parse one bound: { spec, metric, sign: '+'|'-', bound } with `bound` a fraction (0.1 for 10 %); throws
 * `error(message)` (a CompareError by default) naming `option`, the bound and the grammar when it is malformed.
 */
export function parseFailOn (spec, { option = '--fail-on', error = compareError } = {}) {
  const bad = (why) => error(`${option} ${clip(JSON.stringify(spec))}: ${why}; expected ${FAIL_ON_GRAMMAR}`)
  const m = /^\s*([a-z_][a-z0-9._]*)\s*:\s*([+-])\s*(\d+(?:\.\d+)?)\s*%\s*$/i.exec(String(spec))
  if (!m) {
    const unsigned = /^\s*([a-z][a-z0-9.]*)\s*:\s*(\d+(?:\.\d+)?)\s*%\s*$/i.exec(String(spec))
    const [, name, n] = unsigned ?? []
    throw bad(unsigned
      ? `the bound needs a sign saying which way is a regression (${name}:+${n}% or ${name}:-${n}%)`
      : 'cannot read it')
  }
  const metric = m[1].toLowerCase()
  const fault = metricFault(metric, m[1])
  if (fault) throw bad(fault)
  const worse = worseSign(metric)
  if (m[2] !== worse) {
    throw bad(`for ${metric} a regression is a ${worse === '+' ? 'rise' : 'fall'}: write ${metric}:${worse}${m[3]}%`)
  }
  return { spec: String(spec), metric, sign: m[2], bound: Number(m[3]) / 100 }
}

// A bound given to the library as an object, checked: { metric, sign, bound } with the metric one that
// takes a bound, the sign its regression's and the bound a finite fraction ≥ 0; throws error(message).
function checkedBound (b, option, error) {
  const bad = (why) => error(`${option}: ${why}`)
  const { metric, sign, bound } = b
  const fault = typeof metric === 'string' ? metricFault(metric) : `metric ${describe(metric)} is not a name`
  if (fault) throw bad(fault)
  if (sign !== worseSign(metric)) {
    throw bad(`for ${metric} a regression is sign '${worseSign(metric)}', got ${describe(sign)}`)
  }
  if (!isNum(bound) || bound < 0) {
    throw bad(`bound: expected a finite fraction >= 0 (0.1 for 10 %), got ${describe(bound)}`)
  }
  return { spec: typeof b.spec === 'string' ? b.spec : `${metric}:${sign}${bound * 100}%`, metric, sign, bound }
}

// A list of bounds as the library takes them (failOn, failOnChange): an array of strings ('p99:+10%') or
// objects ({ metric, sign, bound }), each read or checked; anything else throws error(message) naming `option`.
export function failOnBounds (list, { option = 'failOn', error = compareError } = {}) {
  if (!Array.isArray(list)) {
    throw error(`${option}: expected an array of bounds ('p99:+10%' or { metric, sign, bound }), got ${describe(list)}`)
  }
  return Array.from(list, (b, i) => {
    if (typeof b === 'string') return parseFailOn(b, { option: `${option}[${i}]`, error })
    if (b === null || typeof b !== 'object') {
      throw error(`${option}[${i}]: expected 'METRIC:±N%' or { metric, sign, bound }, got ${describe(b)}`)
    }
    return checkedBound(b, `${option}[${i}]`, error)
  })
}
