// compare's verdict on one ratio (the rule book's COMPARE rule): from the two runs' own intervals
// (result/interval.js), the floor of the figure's kind and, where both reports have a ruler, what the
// machine model predicts (result/machine.js). Pure: codes and figures out; text/compare.js says them.
import { COMPARE } from './rules.js'
import { isNum } from './stats.js'
import { logWidths } from './interval.js'
import { higherIsBetter } from './better.js'

// The verdicts, as codes.
export const VERDICTS = Object.freeze(['better', 'worse', 'within-noise', 'machine', 'disturbed', 'no-interval'])

// Each kind of figure: its between-run floor (COMPARE), which way is better (better.js) and what the
// machine model predicts for it.
const entry = (figure, name, floor, predicts) => ({ name, floor, higherIsBetter: higherIsBetter(figure), predicts })
export const FIGURE_KINDS = Object.freeze({
  rps: entry('rps', 'rps', COMPARE.floorRate, 'throughput'),
  goodput: entry('goodput', 'rps', COMPARE.floorRate, 'throughput'),
  efficiency: entry('efficiency', 'efficiency', COMPARE.floorEfficiency, 'throughput'),
  p50: entry('p50', 'p50', COMPARE.floorP50, 'latency'),
  p99: entry('p99', 'p99', COMPARE.floorTail, 'latency'),
  capacity: entry('capacity', 'capacity', COMPARE.floorCapacity, 'throughput')
})

// The floor of figure `kind` (as kindOf reads it) for the run of `server`: its own in `floors` (server →
// { rps, efficiency, p50, p99 }; COMPARE.serverFloors unless a validation fits its own), else its kind's.
export function floorOf (kind, server = null, floors = COMPARE.serverFloors) {
  const spec = kindOf(kind)
  if (!spec) return null
  return floors?.[server]?.[spec.name] ?? spec.floor
}

// The kind of a figure named as --fail-on and the lab's thresholds name it (rps, p50, p99.9, capacity …):
// a FIGURE_KINDS entry, a percentile by its rank (COMPARE.tailFrom), or null.
export function kindOf (metric) {
  if (Object.hasOwn(FIGURE_KINDS, metric)) return FIGURE_KINDS[metric]
  const p = /^p(\d+(?:\.\d+)?)$/.exec(String(metric))
  if (!p) return null
  return Number(p[1]) >= COMPARE.tailFrom ? FIGURE_KINDS.p99 : FIGURE_KINDS.p50
}

// The band around log 1 a ratio's log must leave to be beyond noise, each way: { up, down }. Two runs' own
// intervals are independent errors: they add in quadrature. Where rounds (--runs N) measured the noise
// between them, their intervals add whole: the two ranges of rounds must be apart, not just their centres.
function bandOf (a, b, floor) {
  const wa = logWidths(a)
  const wb = logWidths(b)
  const add = a.rounds || b.rounds ? (x, y) => x + y : Math.hypot
  return {
    up: Math.hypot(add(wb.down, wa.up), floor), // B above A: B's interval below it, A's above
    down: Math.hypot(add(wb.up, wa.down), floor)
  }
}

const round = (v, d = 4) => (isNum(v) ? Math.round(v * 10 ** d) / 10 ** d : v)

/**
 * The verdict on figure `kind` (FIGURE_KINDS, or a percentile: kindOf) moving from interval `a` to interval
 * `b` (each { value, low, high } or null), with `prediction` the machine model's (result/machine.js predict)
 * or null without a ruler on both sides. Returns { kind, ratio, low, high, verdict, machine: 'told'|'unknown',
 * predicted, explained, residual }: `low`–`high` the ratio's band (its own intervals and the floor),
 * `predicted` the ratio the ruler expects, `explained` the share of the change (in log) the ruler accounts
 * for, `residual` ratio over predicted. A side without an interval gives 'no-interval' (the ratio raw).
 * `disturbed`: the lab marked either run disturbed (something else took the machine): the band widens by
 * COMPARE.floorDisturbed, and a ratio beyond the quiet band but inside the widened one is 'disturbed', no call
 * either way; past the widened band it is called as usual (more than a disturbance moves a figure).
 */
export function judge (kind, a, b, prediction = null, { disturbed = false, server = null, floors } = {}) {
  const spec = kindOf(kind)
  const ratio = a?.value > 0 && isNum(b?.value) ? b.value / a.value : null
  const out = {
    kind,
    ratio: round(ratio),
    low: null,
    high: null,
    verdict: 'no-interval',
    machine: 'unknown',
    predicted: null,
    explained: null,
    residual: null
  }
  if (ratio === null || !(ratio > 0) || !spec) return out
  const predicted = prediction ? prediction[spec.predicts] : null
  if (isNum(predicted) && predicted > 0) {
    out.machine = 'told'
    out.predicted = round(predicted)
    out.residual = round(ratio / predicted)
    const lr = Math.log(ratio)
    out.explained = lr === 0 ? null : round(Math.log(predicted) / lr, 3)
  }
  if (!isNum(a.low) || !isNum(b.low)) return out
  const band = bandOf(a, b, floorOf(kind, server, floors))
  out.low = round(ratio * Math.exp(-band.up))
  out.high = round(band.down === Infinity ? Infinity : ratio * Math.exp(band.down))
  const beyond = (lr, widen = 0) => {
    if (lr > Math.hypot(band.up, widen)) return 'up'
    if (-lr > Math.hypot(band.down, widen)) return 'down'
    return null
  }
  const raw = beyond(Math.log(ratio))
  if (!raw) return { ...out, verdict: 'within-noise' }
  const shaken = disturbed ? COMPARE.floorDisturbed : 0 // what a disturbance alone moves a figure by
  if (shaken && !beyond(Math.log(ratio), shaken)) return { ...out, verdict: 'disturbed' }
  const call = (way) => ((way === 'up') === spec.higherIsBetter ? 'better' : 'worse')
  if (out.machine !== 'told') return { ...out, verdict: call(raw) }
  const widen = Math.hypot(COMPARE.modelError, prediction.spread ?? 0, shaken)
  const residual = beyond(Math.log(ratio / predicted), widen)
  return { ...out, verdict: residual ? call(residual) : 'machine' }
}
