// Capacity: the highest offered rate a strategy holds with p99 (from the due time) under a target, no
// failed request and a backlog that does not grow. The sweep finds each strategy's range itself: it
// measures the floor first, at a rate where requests rarely overlap (lowered until its rate × p50 is at
// most FLOOR_OVERLAP), then climbs through open-loop rates seeded by the calibrated ideal (cores / service
// time; past its last fraction it goes on climbing: the ideal never bounds it) until one fails, searches
// down geometrically when that failure is far above the highest pass or the floor, bisects between the
// highest passing and the lowest failing rate, then offers 1.2 × the capacity, which must fail: if it
// holds, the sweep goes on upward from it. A step too short for the sample its percentile needs is
// lengthened (up to LENGTHEN × its cap); one that still cannot decide is undecided, never failed.
// Noise only ever adds time, so a verdict that agrees with what the sweep already knows
// stands on one step, and one that contradicts it needs two: a first failure is repeated before it
// counts (a disturbed failure counts only when a rate has had MAX_TRIES steps; a clear one, half its
// requests over the target and undisturbed, counts at once), and a pass above a failure is re-measured.
// See verdictAt for the rule, and reports/README.md "capacity".
import {
  FLOOR_OVERLAP, HOLD_EXCESS, HOLD_MIN_SEC, HOLD_TIMES, MAX_TRIES, OVERLOAD, PERCENTILE_SHARE, bracketOf, heldAt,
  holdSecFor, judgeStep, percentileCall, percentileOf, requestsToShow, verdicts
} from './capacity.js'
import { median } from './stats.js'
import { RATE_RANGE, STEP_OVERHEAD_SEC, SWEEP_LIMITS, sloFor, targetsFor } from '../settings.js'

export { FLOOR_OVERLAP, MAX_TRIES, OVERLOAD }

// Coarse steps, as fractions of the ideal rate.
export const FRACTIONS = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2]
// Bisection stops when the interval is narrower than this share of its upper end: the first target's,
// and the other targets' (looser: a bisection there costs a step and its repeat, and they show the curve).
const PRECISION = 0.02
const PRECISION_OTHERS = 0.05
// The fewest requests that can show p99 within the target (none over it, 95 %): a step's default length.
export const MIN_REQUESTS = requestsToShow(0)
// A lowered floor aims at this share of the rate where its requests would just reach FLOOR_OVERLAP, and a
// floor whose requests overlapped is lowered at most FLOOR_DROP_MAX × at once (its p50 then holds queueing,
// not the latency of a lone request). A floor step lasts for FLOOR_MIN_REQUESTS at least (its p50).
export const FLOOR_MARGIN = 0.8
export const FLOOR_DROP_MAX = 8
export const FLOOR_MIN_REQUESTS = 20
// A failure more than DOWN_RATIO × above the highest pass (or the floor) is searched down geometrically
// (halving, or the geometric mean of pass and failure): these steps do not count against `refine`.
export const DOWN_RATIO = 2
// Past the ideal's last fraction, the climb goes on at CLIMB × the last coarse rate.
export const CLIMB = 1.5
// A step that cannot reach the requests its percentile needs within maxStepSec is lengthened up to
// LENGTHEN × maxStepSec; past that it runs at that length and is undecided unless its requests decide.
export const LENGTHEN = 3

// The time budget (budgetSec): a step costs its planned length and settings.js STEP_OVERHEAD_SEC (the
// round's drain, recovery probe and judging). Steps aimed only at the
// looser targets fit within LOOSE_SHARE of the budget, the first target's (and the coarse climb, which
// counts for every target) within all of it: the looser targets' bisections stop first and the rest is
// kept for the first target's bracket. A step that does not fit is not offered; no sweep exceeds its budget.
export const LOOSE_SHARE = 0.8
// The budget grows with the work: budgetSec holds so many typical steps (one of minRequests at TYPICAL ×
// the ideal, with its overhead) of a work of budgetWorkMs (the work the budget was set on); a sweep of a
// slower work gets as many of its own steps, never less than budgetSec. A step's length grows with the
// service time, so a fixed budget that holds the default work's sweep cut every loop:1e8 sweep of the
// matrix to "at least" or "undecided: budget spent" after three steps (simple and cluster at 80 ms,
// reports/reference/validate-matrix/before-budget-scale/).
const TYPICAL = 0.75
function scaledBudget (budgetSec, budgetWorkMs, serviceMs, stepSec) {
  if (!(budgetSec > 0) || !(budgetWorkMs > 0) || !(serviceMs > 0)) return budgetSec
  const typical = (ms) => stepSec(ms) + STEP_OVERHEAD_SEC
  return Math.max(budgetSec, Math.round((budgetSec * typical(serviceMs)) / typical(budgetWorkMs)))
}
// A repeat of a rate whose steps were all undecided tops them up: it lasts for the requests its pool
// still needs (299 in all with none over, 473 with one, 628 with two), not a whole step's.
const TOP_UP_MAX_OVER = 2

// How a budget was scaled to the work, in words ('' when it was not).
function scaledText (budget) {
  if (!(budget.sec > budget.baseSec)) return ''
  return `${budget.baseSec} s scaled to this work's step length against a ${budget.workMs} ms work's; `
}

// The sweep's rule in words, for the report.
function ruleText (fractions, refine, { minRequests, minDurationSec, maxStepSec, budget, share }) {
  const p = `p${percentileOf(share)}`
  return `a floor step first, at a rate where requests rarely overlap (rate × p50 ≤ ${FLOOR_OVERLAP}; lowered until ` +
    `it is), then open-loop steps at ${fractions.map((f) => `${Math.round(f * 100)}%`).join(', ')} of the ideal ` +
    `(cores / service time) and on at ${CLIMB} × until one fails; a failure more than ${DOWN_RATIO} × above the ` +
    'highest pass (or the floor) is searched down geometrically (the first target\'s before the looser targets climb ' +
    'on); then up to ' +
    `${refine} bisections between the highest passing and the lowest failing rate (until within ` +
    `${PRECISION * 100}%); then one step at ${OVERLOAD} × the capacity, which must fail (if it holds, the sweep goes ` +
    'on upward from it); then, unless a passing step there lasted as long, one hold step at the capacity, long ' +
    `enough that a backlog growing at ${HOLD_EXCESS * 100} % of the rate would add the target's wait less the ` +
    `floor's p50 ${HOLD_TIMES} times over (at least ${HOLD_MIN_SEC} s, at most the longest step): the hold steps ` +
    'alone decide that rate, and ' +
    'a hold that fails lowers the capacity (one more bisection for each). ' +
    `Each step lasts long enough for ${minRequests} requests, at least ${minDurationSec} s and at ` +
    `most ${maxStepSec} s, lengthened up to ${LENGTHEN * maxStepSec} s when that is too short for them (past that ` +
    'the step is undecided unless its requests decide). ' +
    'A step holds when every request was answered 2xx with the expected body, its backlog did not grow and its ' +
    `requests over the target (latency from the due time) show ${p} within it at 95 % (binomial: ` +
    `${[0, 1, 2].map((k) => `${requestsToShow(k, { share })} requests with ${k || 'none'} over`).join(', ')}); ` +
    `it fails when they show ${p} above it; otherwise it is ` +
    'undecided and the rate is measured again, its steps pooled. A first failure is repeated before it counts ' +
    '(unless half its requests or more were over the target, the step undisturbed: no repeat could flip it); ' +
    "a disturbed failure, or one the generator's lag could flip (p99 less the lag p99 within the target), counts " +
    `only after ${MAX_TRIES} steps at its rate; a pass above a confirmed failure must hold twice. At ` +
    `${MAX_TRIES} steps the majority decides, a tie the pooled share over the target; a rate none of whose steps ` +
    'decided stays undecided. A repeat of a rate whose steps were all undecided lasts only for the requests its ' +
    'pool still needs. "Cannot meet the target" only from a true floor that failed; no passing rate and no true ' +
    'floor failure is "undecided", with why.' +
    (budget
      ? ` Time budget: ${budget.sec} s a sweep (${scaledText(budget)}each step its length and ${budget.stepOverheadSec} s); ` +
        'steps for the ' +
        `looser targets only within ${Math.round(budget.looseShare * 100)} % of it, so their bisections stop first ` +
        '(their capacity then a lower bound: "at least"); a step that does not fit is not offered.'
      : '')
}

// The floor the steps show: the lowest rate of the floor steps (and their repeats), its median p50, and
// whether its requests overlapped (rate × p50 over FLOOR_OVERLAP, or nothing answered); null before one.
function floorState (steps) {
  const floors = steps.filter((s) => s.kind === 'floor')
  if (!floors.length) return null
  const rate = Math.min(...floors.map((s) => s.rate))
  const p50s = steps.filter((s) => s.rate === rate).map((s) => s.p50).filter((x) => typeof x === 'number')
  const p50 = p50s.length ? median(p50s) : null
  return { rate, p50, overlapped: p50 === null || (rate * p50) / 1000 > FLOOR_OVERLAP }
}

// The next floor below one whose requests overlapped: FLOOR_MARGIN of the rate where its p50 would just
// meet FLOOR_OVERLAP, but at most FLOOR_DROP_MAX × lower (a saturated p50 is mostly queueing).
function lowerFloor ({ rate, p50 }) {
  const fit = p50 > 0 ? (FLOOR_MARGIN * FLOOR_OVERLAP * 1000) / p50 : 0
  return Math.min(rate / 1.25, Math.max(fit, rate / FLOOR_DROP_MAX))
}

// A target's lower end: its highest pass, or below any pass the floor (0 when the floor failed it).
function baseOf (v, floor) {
  const { lo } = bracketOf(v)
  return lo > 0 ? lo : v.get(floor.rate) === 'fail' ? 0 : floor.rate
}

// The next rate of a target's search down (null when its failure is within DOWN_RATIO × its lower end):
// halving from the failure while below any pass, else the geometric mean of pass and failure.
function downRate (v, floor) {
  const { lo, hi } = bracketOf(v)
  const base = baseOf(v, floor)
  if (hi === null || !(base > 0) || hi <= DOWN_RATIO * base) return null
  const rate = lo > 0 ? Math.sqrt(lo * hi) : hi / DOWN_RATIO
  return v.has(rate) ? null : rate
}

// The rate of the k-th coarse step: the ideal's fractions above the floor, then on at CLIMB ×.
function coarseRate (k, { idealRps, fractions, floorRate }) {
  const seeded = fractions.map((f) => f * idealRps).filter((r) => r > floorRate * (1 + 1e-9))
  if (k < seeded.length) return seeded[k]
  return (seeded.at(-1) ?? floorRate) * CLIMB ** (k - seeded.length + 1)
}

// The next rate of a sweep from its steps judged against each target, tightest first (`views[k]`: the
// steps as target k sees them, each { rate, kind, pass, call, disturbed, inDoubt, n, over, p50 }), and the
// target each step was offered for (`aims`). The floor comes first (lowered while its requests overlap);
// coarse steps climb until one fails the loosest target (a step counts for every target); a rate pending
// for any target is repeated (not a floor that was only undecided: the climb gives its evidence); a
// failure far above the highest pass (or the floor) is searched down geometrically; bisections go where a
// target's bracket is still wide (up to `refine` per target); the step past capacity is offered for the
// first target always and for another only while its knee is unproven (its bracket wider than 1.2 ×);
// last, a floor still pending for the first target with no pass above it is topped up.
function nextStep (views, aims, ctx) {
  const { firstFloorRate, refine, maxSteps, share } = ctx
  const steps = views[0]
  if (steps.length >= maxSteps) return null
  const floor = floorState(steps)
  if (!floor) return { kind: 'floor', rate: firstFloorRate, aim: null, first: true }
  if (floor.overlapped) return { kind: 'floor', rate: lowerFloor(floor), aim: null, first: true }
  const byRate = views.map((v) => verdicts(v, { share }))
  // the hold rule's length for the first target's capacity (carried on a hold step: its planned length)
  const holdSec = holdSecFor(floor.p50, ctx.sloMs, ctx.longestSec)
  const last = steps.at(-1)
  const onlyUndecidedFloor = last?.kind === 'floor' && last.call === 'undecided'
  if (last && !onlyUndecidedFloor && byRate.some((v) => v.get(last.rate) === 'pending')) {
    const pending = byRate.flatMap((v, k) => (v.get(last.rate) === 'pending' ? [k] : []))
    // a hold that is pending is measured again as a hold (the hold steps alone decide its rate)
    if (last.kind === 'hold') return { kind: 'hold', rate: last.rate, aim: 0, holdSec }
    return { kind: 'repeat', rate: last.rate, aim: aims.at(-1), pending }
  }
  // a true floor that failed the loosest target: nothing below it to find
  if (byRate.at(-1).get(floor.rate) === 'fail') return null
  const range = { ...ctx, floorRate: floor.rate }
  const coarse = steps.filter((s) => s.kind === 'coarse')
  const lastCoarse = coarse.at(-1)
  // the first target's search down is part of the climb: the looser targets' climb goes on after it
  const climbing = !steps.some((s) => !['coarse', 'repeat', 'floor', 'down'].includes(s.kind))
  if (climbing && (!lastCoarse || byRate.at(-1).get(lastCoarse.rate) === 'pass')) {
    // past the first target's failure the climb is the looser targets' (first: false); a first-target
    // failure far above its floor is searched down first (the decision's target before the looser ones)
    const first = byRate[0].get(floor.rate) !== 'fail' && (!lastCoarse || byRate[0].get(lastCoarse.rate) === 'pass')
    if (first || downRate(byRate[0], floor) === null) {
      return { kind: 'coarse', rate: coarseRate(coarse.length, range), aim: null, first }
    }
  }
  // The first target (the decision's) is refined and proven first, so a step limit cuts the others.
  for (const [k, v] of byRate.entries()) {
    const { lo, hi } = bracketOf(v)
    const base = baseOf(v, floor)
    const down = downRate(v, floor)
    if (down !== null) return { kind: 'down', rate: down, aim: k }
    const refines = steps.filter((s, i) => s.kind === 'refine' && aims[i] === k).length
    const wide = hi !== null && (hi - base) / hi > (k === 0 ? PRECISION : PRECISION_OTHERS)
    // a hold that failed (the first target's) earns one more bisection
    const allowed = refine + (k === 0 ? failedHolds(steps, v) : 0)
    if (hi !== null && refines < allowed && wide) return { kind: 'refine', rate: (base + hi) / 2, aim: k }
    if (lo === 0 || (k > 0 && hi !== null && hi <= lo * OVERLOAD * (1 + 1e-9))) continue
    // The step past capacity: offered once per capacity; its failure ends the sweep (a pass moved lo up).
    const over = lo * OVERLOAD
    const measured = [...v.keys()].some((r) => Math.abs(r - over) <= 1e-9 * over)
    // (at or above a failed hold every rate fails: nothing to offer there)
    const pastHold = k === 0 && steps.some((s) => s.kind === 'hold' && s.rate <= over && v.get(s.rate) === 'fail')
    if (!measured && !pastHold) return { kind: 'over', rate: over, aim: k }
    // the hold rule (the first target's capacity): its rate held one step of holdSec, or it is measured again
    if (k === 0 && heldAt(steps, lo, holdSec) === false) {
      return { kind: 'hold', rate: lo, aim: 0, holdSec }
    }
  }
  // no pass for the first target and its floor still pending: more evidence at the floor
  if (bracketOf(byRate[0]).lo === 0 && byRate[0].get(floor.rate) === 'pending') {
    return { kind: 'repeat', rate: floor.rate, aim: 0, pending: [0] }
  }
  return null
}

// The rates whose hold failed, for a target's verdicts `v`.
function failedHolds (steps, v) {
  return new Set(steps.filter((s) => s.kind === 'hold' && v.get(s.rate) === 'fail').map((s) => s.rate)).size
}

// The requests a repeat at `rate` still needs (topping up the undecided steps there for every target
// pending at it), or null for a whole step: a failure there, or too many over the target to top up.
function topUpRequests (views, step, share) {
  let need = 0
  for (const k of step.pending ?? []) {
    const at = views[k].filter((s) => s.rate === step.rate)
    const over = at.reduce((a, s) => a + (s.over ?? Infinity), 0)
    if (at.some((s) => s.call !== 'undecided') || !(over <= TOP_UP_MAX_OVER)) return null
    const n = at.reduce((a, s) => a + s.n, 0)
    if (percentileCall(n, over, { share }) !== 'undecided') return null
    need = Math.max(need, requestsToShow(over, { share }) - n)
  }
  return need > 0 ? need : null
}

// Is a step the first target's (or every target's)? A coarse step until the first target failed; a
// repeat when its rate is pending for the first target; a bisection or step past capacity when aimed at it.
function forFirst (step) {
  if (step.kind === 'coarse' || step.kind === 'floor') return step.first
  if (step.kind === 'repeat') return (step.pending ?? [0]).includes(0)
  return step.aim === 0
}

// A sweep over rates for one server: next(history) → the next rate to offer (null: done), where history
// is [{ rate, figures }] of the steps so far (figures: the round's, with `disturbed`; each judged against
// every target by result/capacity.js judgeStep). describe() says how the rates are chosen and how long a
// step lasts (plain data, stored in the report as the sweep's rule; its `budget` is updated as the sweep
// goes: spentSec, and `cut` when a step did not fit); durationFor(rate) is a step's length in seconds (for
// the step next() just chose, the length it planned: a top-up is shorter); `kinds` the kind of each rate
// handed out (floor, coarse, down, refine, over, repeat, hold), `lengths` each one's planned length (s).
// `slos`: the targets (default targetsFor's); `sloMs` alone: that one target. `budgetSec`: the sweep's time
// budget (null: none, only maxSteps). `share`: the percentile judged, as the share of requests allowed over
// the target (0.01: p99; 0.05: p95), with minRequests the fewest that can show it (requestsToShow(0,
// { share }) unless given); `why`: a sentence for the report when the percentile or the work differs from
// the default run's (--quick's).
export function createSweep ({
  serviceMs, cores, sloMs = null, slos = null, fractions = FRACTIONS, refine = SWEEP_LIMITS.refine,
  share = PERCENTILE_SHARE, minRequests = requestsToShow(0, { share }), minDurationSec = SWEEP_LIMITS.minDurationSec,
  maxStepSec = SWEEP_LIMITS.maxStepSec, maxSteps = SWEEP_LIMITS.maxSteps, budgetSec = null, budgetWorkMs = null,
  why = null
}) {
  const many = targetsFor(serviceMs, slos ?? (sloMs ? [sloMs] : null))
  const slo = slos?.length || sloMs ? sloFor(serviceMs, many.targets[0]) : sloFor(serviceMs)
  const targets = many.targets
  const idealRps = serviceMs > 0 ? (cores / serviceMs) * 1000 : null
  const kinds = [] // the kind of each rate handed out: floor, coarse, down, refine, over, repeat
  const aims = [] // the target each was offered for (null: every target, a coarse step)
  const planned = [] // each step's planned length, seconds
  let lastRate = null
  const longestSec = LENGTHEN * maxStepSec
  // A step's length for `requests` at `rate`: within [minDurationSec, maxStepSec], lengthened up to
  // longestSec when maxStepSec is too short for them (a floor step only up to FLOOR_MIN_REQUESTS: its p50).
  const lengthFor = (rate, requests, floor = false) => {
    const forRequests = (n) => Math.ceil((n / rate) * 10) / 10
    const capped = Math.max(minDurationSec, Math.min(maxStepSec, forRequests(requests)))
    const need = floor ? Math.min(requests, FLOOR_MIN_REQUESTS) : requests
    return Math.max(capped, Math.min(longestSec, forRequests(need)))
  }
  const typicalStep = (ms) => lengthFor((TYPICAL * cores * 1000) / ms, minRequests)
  const sec = scaledBudget(budgetSec, budgetWorkMs, serviceMs, typicalStep)
  const budget = budgetSec > 0
    ? {
        sec,
        baseSec: budgetSec, // before the work's scale (scaledBudget)
        workMs: budgetWorkMs,
        stepOverheadSec: STEP_OVERHEAD_SEC,
        looseShare: LOOSE_SHARE,
        spentSec: 0,
        cut: null
      }
    : null
  // Does a step of `sec` fit the budget (the looser targets' share of it when not the first target's)?
  const fits = (sec, first) =>
    !budget || budget.spentSec + sec + STEP_OVERHEAD_SEC <= budget.sec * (first ? 1 : LOOSE_SHARE) + 1e-9
  const lengthOf = (views, step) => {
    if (step.kind === 'hold') return Math.min(longestSec, Math.max(step.holdSec ?? 0, lengthFor(step.rate, minRequests)))
    const need = step.kind === 'repeat' ? topUpRequests(views, step, share) : null
    return lengthFor(step.rate, need ?? minRequests, step.kind === 'floor')
  }
  const firstFloorRate = serviceMs > 0 ? (FLOOR_MARGIN * FLOOR_OVERLAP * 1000) / serviceMs : null
  return {
    kinds,
    lengths: planned, // each step's planned length, seconds (a capacity's hold rule reads them)
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
        longestStepSec: longestSec,
        maxTries: MAX_TRIES,
        maxSteps,
        maxRate: RATE_RANGE.max, // no step offers more (--rate's cap)
        share, // the percentile judged: its share of requests allowed over the target
        percentile: percentileOf(share),
        why, // why this percentile or work (--quick), null for the default run's
        floorOverlap: FLOOR_OVERLAP,
        // the hold rule (result/capacity.js holdSecFor)
        hold: { excess: HOLD_EXCESS, times: HOLD_TIMES, minSec: HOLD_MIN_SEC },
        budget, // the same object as the sweep goes (null: no budget)
        rule: ruleText(fractions, refine, { minRequests, minDurationSec, maxStepSec, budget, share }) +
          (why ? ` ${why}` : '')
      }
    },
    durationFor (rate) {
      return kinds.length && rate === lastRate ? planned.at(-1) : lengthFor(rate, minRequests)
    },
    next (history) {
      if (idealRps === null || slo.sloMs === null) return null
      const views = targets.map((t) => history.map((h, i) => {
        const j = judgeStep(h.figures, t, { share })
        const p50 = h.figures.latency?.p50 ?? null
        const sec = planned[i] // its planned length (the hold rule)
        return {
          rate: h.rate, kind: kinds[i], ...j, p50, sec, pass: j.call === 'pass', disturbed: Boolean(h.figures.disturbed)
        }
      }))
      const opts = { idealRps, fractions, refine, maxSteps, share, firstFloorRate, sloMs: targets[0], longestSec }
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
      if (step && step.rate > RATE_RANGE.max) {
        // a rate is capped like --rate: past a step at the cap the sweep has nothing higher to offer
        if (history.some((h) => h.rate === RATE_RANGE.max)) step = null
        else step = { ...step, rate: RATE_RANGE.max }
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
