// Capacity: the highest offered rate a strategy holds with p99 (from the due time) under a target, no
// failed request and a backlog that does not grow. The sweep offers open-loop rates as fractions of the
// calibrated ideal (cores / service time) until one fails, bisects between the highest passing and the
// lowest failing rate, then offers 1.2 × the capacity, which must fail: if it holds, the sweep goes on
// upward from it. Noise only ever adds time, so a verdict that agrees with what the sweep already knows
// stands on one step, and one that contradicts it needs two: a first failure is repeated before it
// counts (a disturbed failure counts only when a rate has had MAX_TRIES steps), and a pass above a
// failure is re-measured. See verdictAt for the rule, and reports/README.md "capacity".
import { MAX_TRIES, OVERLOAD, bracketOf, judgeStep, requestsToShow, verdicts } from '../result/capacity.js'
import { roundTo } from '../result/stats.js'

export { MAX_TRIES, OVERLOAD }

// Coarse steps, as fractions of the ideal rate.
export const FRACTIONS = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2]
// The default p99 target: this many service times.
export const SLO_SERVICE_MULTIPLE = 5
// Bisection stops when the interval is narrower than this share of its upper end.
const PRECISION = 0.02
// At most this many steps in one sweep (the default of createSweep's maxSteps).
export const MAX_STEPS = 30
// The fewest requests that can show p99 within the target (none over it, 95 %): a step's default length.
export const MIN_REQUESTS = requestsToShow(0)

// The p99 target for a service time: --slo when given, else SLO_SERVICE_MULTIPLE service times.
export function sloFor (serviceMs, sloMs = null) {
  if (sloMs) return { sloMs, rule: `--slo ${sloMs} ms` }
  if (!(serviceMs > 0)) return { sloMs: null, rule: 'no calibration: no target' }
  return {
    sloMs: roundTo(SLO_SERVICE_MULTIPLE * serviceMs, 3),
    rule: `${SLO_SERVICE_MULTIPLE} × the calibrated service time (${serviceMs} ms)`
  }
}

// The sweep's rule in words, for the report.
function ruleText (fractions, refine, { minRequests, minDurationSec, maxStepSec }) {
  return `open-loop steps at ${fractions.map((f) => `${Math.round(f * 100)}%`).join(', ')} of the ideal ` +
    '(cores / service time) until one fails; then up to ' +
    `${refine} bisections between the highest passing and the lowest failing rate (until within ` +
    `${PRECISION * 100}%); then one step at ${OVERLOAD} × the capacity, which must fail (if it holds, the sweep goes ` +
    `on upward from it). Each step lasts long enough for ${minRequests} requests, at least ${minDurationSec} s and at ` +
    `most ${maxStepSec} s (below ${Math.round((minRequests / maxStepSec) * 10) / 10} req/s a step has fewer requests). ` +
    'A step holds when every request was answered 2xx with the expected body, its backlog did not grow and its ' +
    'requests over the target (latency from the due time) show p99 within it at 95 % (binomial: 299 requests ' +
    'with none over, 473 with one, 628 with two); it fails when they show p99 above it; otherwise it is ' +
    'undecided and the rate is measured again, its steps pooled. A first failure is repeated before it counts; ' +
    "a disturbed failure, or one the generator's lag could flip (p99 less the lag p99 within the target), counts " +
    `only after ${MAX_TRIES} steps at its rate; a pass above a confirmed failure must hold twice. At ` +
    `${MAX_TRIES} steps the majority decides, a tie the pooled share over the target.`
}

// The next rate of a sweep, from its steps (each { rate, kind, pass, disturbed }) and its settings.
function nextStep (steps, { idealRps, fractions, refine, maxSteps }) {
  if (steps.length >= maxSteps) return null
  const byRate = verdicts(steps)
  const last = steps.at(-1)
  if (last && byRate.get(last.rate) === 'pending') return { kind: 'repeat', rate: last.rate }
  const coarse = steps.filter((s) => s.kind === 'coarse')
  const lastCoarse = coarse.at(-1)
  const climbing = !steps.some((s) => s.kind !== 'coarse' && s.kind !== 'repeat')
  if (climbing && (!lastCoarse || byRate.get(lastCoarse.rate) === 'pass') && coarse.length < fractions.length) {
    return { kind: 'coarse', rate: fractions[coarse.length] * idealRps }
  }
  const { lo, hi } = bracketOf(byRate)
  const refines = steps.filter((s) => s.kind === 'refine').length
  if (hi !== null && refines < refine && (hi - lo) / hi > PRECISION) return { kind: 'refine', rate: (lo + hi) / 2 }
  if (lo === 0) return null
  // The step past capacity: offered once per capacity; its failure ends the sweep (a pass moved lo up).
  const over = lo * OVERLOAD
  const measured = [...byRate.keys()].some((r) => Math.abs(r - over) <= 1e-9 * over)
  return measured ? null : { kind: 'over', rate: over }
}

// A sweep over rates for one server: next(history) → the next rate to offer (null: done), where history
// is [{ rate, figures }] of the steps so far (figures: the round's, with `disturbed`; each judged against
// the one target by result/capacity.js judgeStep). describe() says how the rates are chosen and how long a
// step lasts (plain data, stored in the report as the sweep's rule); durationFor(rate) is a step's length
// in seconds; `kinds` the kind of each rate handed out (coarse, refine, over, repeat).
export function createSweep ({
  serviceMs, cores, sloMs = null, fractions = FRACTIONS, refine = 3, minRequests = MIN_REQUESTS, minDurationSec = 3,
  maxStepSec = 8, maxSteps = MAX_STEPS
}) {
  const slo = sloFor(serviceMs, sloMs)
  const idealRps = serviceMs > 0 ? (cores / serviceMs) * 1000 : null
  const kinds = [] // the kind of each rate handed out: coarse, refine, over, repeat
  return {
    kinds,
    describe () {
      return {
        idealRps,
        serviceMs,
        cores,
        sloMs: slo.sloMs,
        sloRule: slo.rule,
        fractions,
        refine,
        overload: OVERLOAD,
        minRequests,
        minDurationSec,
        maxStepSec,
        maxTries: MAX_TRIES,
        maxSteps,
        rule: ruleText(fractions, refine, { minRequests, minDurationSec, maxStepSec })
      }
    },
    durationFor (rate) {
      const forRequests = Math.ceil((minRequests / rate) * 10) / 10
      return Math.max(minDurationSec, Math.min(maxStepSec, forRequests))
    },
    next (history) {
      if (idealRps === null || slo.sloMs === null) return null
      const steps = history.map((h, i) => {
        const j = judgeStep(h.figures, slo.sloMs)
        return { rate: h.rate, kind: kinds[i], ...j, pass: j.call === 'pass', disturbed: Boolean(h.figures.disturbed) }
      })
      const step = nextStep(steps, { idealRps, fractions, refine, maxSteps })
      if (!step) return null
      kinds.push(step.kind)
      return step.rate
    }
  }
}
