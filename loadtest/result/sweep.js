// Capacity: the highest offered rate a strategy holds with p99 (from the due time) under a target, no
// failed request and a backlog that does not grow. The sweep offers open-loop rates as fractions of the
// calibrated ideal (cores / service time) until one fails, bisects between the highest passing and the
// lowest failing rate, then offers 1.2 × the capacity, which must fail: if it holds, the sweep goes on
// upward from it. Noise only ever adds time, so a verdict that agrees with what the sweep already knows
// stands on one step, and one that contradicts it needs two: a first failure is repeated before it
// counts (a disturbed failure counts only when a rate has had MAX_TRIES steps; a clear one, half its
// requests over the target and undisturbed, counts at once), and a pass above a failure is re-measured.
// See verdictAt for the rule, and reports/README.md "capacity".
import { MAX_TRIES, OVERLOAD, bracketOf, judgeStep, percentileCall, requestsToShow, verdicts } from './capacity.js'
import { STEP_OVERHEAD_SEC, SWEEP_LIMITS, sloFor, targetsFor } from '../settings.js'

export { MAX_TRIES, OVERLOAD }

// Coarse steps, as fractions of the ideal rate.
export const FRACTIONS = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2]
// Bisection stops when the interval is narrower than this share of its upper end: the first target's,
// and the other targets' (looser: a bisection there costs a step and its repeat, and they show the curve).
const PRECISION = 0.02
const PRECISION_OTHERS = 0.05
// The fewest requests that can show p99 within the target (none over it, 95 %): a step's default length.
export const MIN_REQUESTS = requestsToShow(0)

// The time budget (budgetSec): a step costs its planned length and settings.js STEP_OVERHEAD_SEC (the
// round's drain, recovery probe and judging). Steps aimed only at the
// looser targets fit within LOOSE_SHARE of the budget, the first target's (and the coarse climb, which
// counts for every target) within all of it: the looser targets' bisections stop first and the rest is
// kept for the first target's bracket. A step that does not fit is not offered; no sweep exceeds its budget.
export const LOOSE_SHARE = 0.8
// A repeat of a rate whose steps were all undecided tops them up: it lasts for the requests its pool
// still needs (299 in all with none over, 473 with one, 628 with two), not a whole step's.
const TOP_UP_MAX_OVER = 2

// The sweep's rule in words, for the report.
function ruleText (fractions, refine, { minRequests, minDurationSec, maxStepSec, budget }) {
  return `open-loop steps at ${fractions.map((f) => `${Math.round(f * 100)}%`).join(', ')} of the ideal ` +
    '(cores / service time) until one fails; then up to ' +
    `${refine} bisections between the highest passing and the lowest failing rate (until within ` +
    `${PRECISION * 100}%); then one step at ${OVERLOAD} × the capacity, which must fail (if it holds, the sweep goes ` +
    `on upward from it). Each step lasts long enough for ${minRequests} requests, at least ${minDurationSec} s and at ` +
    `most ${maxStepSec} s (below ${Math.round((minRequests / maxStepSec) * 10) / 10} req/s a step has fewer requests). ` +
    'A step holds when every request was answered 2xx with the expected body, its backlog did not grow and its ' +
    'requests over the target (latency from the due time) show p99 within it at 95 % (binomial: 299 requests ' +
    'with none over, 473 with one, 628 with two); it fails when they show p99 above it; otherwise it is ' +
    'undecided and the rate is measured again, its steps pooled. A first failure is repeated before it counts ' +
    '(unless half its requests or more were over the target, the step undisturbed: no repeat could flip it); ' +
    "a disturbed failure, or one the generator's lag could flip (p99 less the lag p99 within the target), counts " +
    `only after ${MAX_TRIES} steps at its rate; a pass above a confirmed failure must hold twice. At ` +
    `${MAX_TRIES} steps the majority decides, a tie the pooled share over the target. A repeat of a rate whose ` +
    'steps were all undecided lasts only for the requests its pool still needs.' +
    (budget
      ? ` Time budget: ${budget.sec} s a sweep (each step its length and ${budget.stepOverheadSec} s); steps for the ` +
        `looser targets only within ${Math.round(budget.looseShare * 100)} % of it, so their bisections stop first ` +
        '(their capacity then a lower bound: "at least"); a step that does not fit is not offered.'
      : '')
}

// The next rate of a sweep from its steps judged against each target, tightest first (`views[k]`: the
// steps as target k sees them, each { rate, kind, pass, call, disturbed, inDoubt, n, over }), and the
// target each step was offered for (`aims`). Coarse steps climb until one fails the loosest target (a
// step counts for every target); a rate pending for any target is repeated; bisections go where a
// target's bracket is still wide (up to `refine` per target); the step past capacity is offered for the
// first target always and for another only while its knee is unproven (its bracket wider than 1.2 ×).
function nextStep (views, aims, { idealRps, fractions, refine, maxSteps }) {
  const steps = views[0]
  if (steps.length >= maxSteps) return null
  const byRate = views.map((v) => verdicts(v))
  const last = steps.at(-1)
  if (last && byRate.some((v) => v.get(last.rate) === 'pending')) {
    const pending = byRate.flatMap((v, k) => (v.get(last.rate) === 'pending' ? [k] : []))
    return { kind: 'repeat', rate: last.rate, aim: aims.at(-1), pending }
  }
  const coarse = steps.filter((s) => s.kind === 'coarse')
  const lastCoarse = coarse.at(-1)
  const climbing = !steps.some((s) => s.kind !== 'coarse' && s.kind !== 'repeat')
  if (climbing && (!lastCoarse || byRate.at(-1).get(lastCoarse.rate) === 'pass') && coarse.length < fractions.length) {
    // past the first target's failure the climb is the looser targets' (first: false)
    const first = !lastCoarse || byRate[0].get(lastCoarse.rate) === 'pass'
    return { kind: 'coarse', rate: fractions[coarse.length] * idealRps, aim: null, first }
  }
  // The first target (the decision's) is refined and proven first, so a step limit cuts the others.
  for (const [k, v] of byRate.entries()) {
    const { lo, hi } = bracketOf(v)
    const refines = steps.filter((s, i) => s.kind === 'refine' && aims[i] === k).length
    const wide = (hi - lo) / hi > (k === 0 ? PRECISION : PRECISION_OTHERS)
    if (hi !== null && refines < refine && wide) return { kind: 'refine', rate: (lo + hi) / 2, aim: k }
    if (lo === 0 || (k > 0 && hi !== null && hi <= lo * OVERLOAD * (1 + 1e-9))) continue
    // The step past capacity: offered once per capacity; its failure ends the sweep (a pass moved lo up).
    const over = lo * OVERLOAD
    const measured = [...v.keys()].some((r) => Math.abs(r - over) <= 1e-9 * over)
    if (!measured) return { kind: 'over', rate: over, aim: k }
  }
  return null
}

// The requests a repeat at `rate` still needs (topping up the undecided steps there for every target
// pending at it), or null for a whole step: a failure there, or too many over the target to top up.
function topUpRequests (views, step) {
  let need = 0
  for (const k of step.pending ?? []) {
    const at = views[k].filter((s) => s.rate === step.rate)
    const over = at.reduce((a, s) => a + (s.over ?? Infinity), 0)
    if (at.some((s) => s.call !== 'undecided') || !(over <= TOP_UP_MAX_OVER)) return null
    const n = at.reduce((a, s) => a + s.n, 0)
    if (percentileCall(n, over) !== 'undecided') return null
    need = Math.max(need, requestsToShow(over) - n)
  }
  return need > 0 ? need : null
}

// Is a step the first target's (or every target's)? A coarse step until the first target failed; a
// repeat when its rate is pending for the first target; a bisection or step past capacity when aimed at it.
function forFirst (step) {
  if (step.kind === 'coarse') return step.first
  if (step.kind === 'repeat') return (step.pending ?? [0]).includes(0)
  return step.aim === 0
}

// A sweep over rates for one server: next(history) → the next rate to offer (null: done), where history
// is [{ rate, figures }] of the steps so far (figures: the round's, with `disturbed`; each judged against
// every target by result/capacity.js judgeStep). describe() says how the rates are chosen and how long a
// step lasts (plain data, stored in the report as the sweep's rule; its `budget` is updated as the sweep
// goes: spentSec, and `cut` when a step did not fit); durationFor(rate) is a step's length in seconds (for
// the step next() just chose, the length it planned: a top-up is shorter); `kinds` the kind of each rate
// handed out (coarse, refine, over, repeat). `slos`: the targets (default targetsFor's); `sloMs` alone:
// that one target. `budgetSec`: the sweep's time budget (null: none, only maxSteps).
export function createSweep ({
  serviceMs, cores, sloMs = null, slos = null, fractions = FRACTIONS, refine = SWEEP_LIMITS.refine,
  minRequests = MIN_REQUESTS, minDurationSec = SWEEP_LIMITS.minDurationSec, maxStepSec = SWEEP_LIMITS.maxStepSec,
  maxSteps = SWEEP_LIMITS.maxSteps, budgetSec = null
}) {
  const many = targetsFor(serviceMs, slos ?? (sloMs ? [sloMs] : null))
  const slo = slos?.length || sloMs ? sloFor(serviceMs, many.targets[0]) : sloFor(serviceMs)
  const targets = many.targets
  const idealRps = serviceMs > 0 ? (cores / serviceMs) * 1000 : null
  const kinds = [] // the kind of each rate handed out: coarse, refine, over, repeat
  const aims = [] // the target each was offered for (null: every target, a coarse step)
  const planned = [] // each step's planned length, seconds
  let lastRate = null
  const budget = budgetSec > 0
    ? { sec: budgetSec, stepOverheadSec: STEP_OVERHEAD_SEC, looseShare: LOOSE_SHARE, spentSec: 0, cut: null }
    : null
  const lengthFor = (rate, requests) => {
    const forRequests = Math.ceil((requests / rate) * 10) / 10
    return Math.max(minDurationSec, Math.min(maxStepSec, forRequests))
  }
  // Does a step of `sec` fit the budget (the looser targets' share of it when not the first target's)?
  const fits = (sec, first) =>
    !budget || budget.spentSec + sec + STEP_OVERHEAD_SEC <= budget.sec * (first ? 1 : LOOSE_SHARE) + 1e-9
  const lengthOf = (views, step) => {
    const need = step.kind === 'repeat' ? topUpRequests(views, step) : null
    return lengthFor(step.rate, need ?? minRequests)
  }
  return {
    kinds,
    describe () {
      return {
        idealRps,
        serviceMs,
        cores,
        sloMs: slo.sloMs,
        sloRule: slo.rule,
        targetsMs: targets, // every target the steps are judged against (the first is sloMs)
        targetsRule: many.rule,
        fractions,
        refine,
        overload: OVERLOAD,
        minRequests,
        minDurationSec,
        maxStepSec,
        maxTries: MAX_TRIES,
        maxSteps,
        budget, // the same object as the sweep goes (null: no budget)
        rule: ruleText(fractions, refine, { minRequests, minDurationSec, maxStepSec, budget })
      }
    },
    durationFor (rate) {
      return kinds.length && rate === lastRate ? planned.at(-1) : lengthFor(rate, minRequests)
    },
    next (history) {
      if (idealRps === null || slo.sloMs === null) return null
      const views = targets.map((t) => history.map((h, i) => {
        const j = judgeStep(h.figures, t)
        return { rate: h.rate, kind: kinds[i], ...j, pass: j.call === 'pass', disturbed: Boolean(h.figures.disturbed) }
      }))
      const opts = { idealRps, fractions, refine, maxSteps }
      let step = nextStep(views, aims, opts)
      let sec = step && lengthOf(views, step)
      if (step && !fits(sec, forFirst(step))) {
        // the looser targets' share is spent: the first target's steps only, within the whole budget
        // (cut: 'looser targets' when only theirs were left out, 'sweep' when a first target's step was)
        const loose = !forFirst(step)
        step = loose ? nextStep([views[0]], aims, opts) : null
        sec = step && lengthOf([views[0]], step)
        budget.cut = loose && (!step || fits(sec, true)) ? 'looser targets' : 'sweep'
        if (step && !fits(sec, true)) step = null
      }
      if (!step) return null
      kinds.push(step.kind)
      aims.push(step.aim)
      planned.push(sec)
      if (budget) budget.spentSec = Math.round((budget.spentSec + sec + STEP_OVERHEAD_SEC) * 10) / 10
      lastRate = step.rate
      return step.rate
    }
  }
}
