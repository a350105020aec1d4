// Capacity: the highest offered rate a strategy holds with p99 (from the due time) under a target, no
// failed request and a backlog that does not grow. The sweep finds each strategy's range itself: it
// measures the floor first, at a rate where requests rarely overlap (lowered until its rate × p50 is at
// most FLOOR.overlap), then climbs through open-loop rates seeded by the calibrated ideal (cores / service
// time; past its last fraction it goes on climbing: the ideal never bounds it) until one fails, searches
// down geometrically when that failure is far above the highest pass or the floor, bisects between the
// highest passing and the lowest failing rate, then offers 1.2 × the capacity, which must fail: if it
// holds, the sweep goes on upward from it. A step too short for the sample its percentile needs is
// lengthened (up to LENGTH.lengthen × its cap); one that still cannot decide is undecided, never failed.
// Noise only ever adds time, so a verdict that agrees with what the sweep already knows
// stands on one step, and one that contradicts it needs two: a first failure is repeated before it
// counts (a disturbed failure counts only when a rate has had REPEAT.maxTries steps; a clear one,
// REPEAT.clearShare of its requests over the target and undisturbed, counts at once), and a pass above a
// failure is re-measured.
// See verdictAt for the rule, result/rules.js for every rule and value, and docs/reference/rules.md.
import { belowLead, bracketOf, floorOf, heldAt, holdSecFor, judgeStep, verdicts } from './capacity.js'
import {
  BUDGET, CLIMB, FLOOR, HOLD, LENGTH, REPEAT, SAMPLE, SWEEP_LIMITS, firstFloorRate, percentileCall,
  percentileOf, requestsToShow, sloFor, targetsFor
} from './rules.js'
import { RATE_RANGE } from '../settings.js'
import { ROUNDING, sameRate } from './stats.js'

// The budget grows with the work (result/rules.js BUDGET): budgetSec holds so many typical steps (one of
// minRequests at BUDGET.typical × the ideal, with its overhead) of a work of budgetWorkMs; a sweep of a slower
// work gets as many of its own steps, never less than budgetSec. A step's length grows with the service time,
// so a fixed budget that holds the default work's sweep cut every loop:1e8 sweep of the matrix to "at least"
// or bound 'undecided' (budget-spent) after three steps.
function scaledBudget (budgetSec, budgetWorkMs, serviceMs, stepSec) {
  if (!(budgetSec > 0) || !(budgetWorkMs > 0) || !(serviceMs > 0)) return budgetSec
  const typical = (ms) => stepSec(ms) + BUDGET.stepOverheadSec
  return Math.max(budgetSec, Math.round((budgetSec * typical(serviceMs)) / typical(budgetWorkMs)))
}

// The floor the steps show: the lowest rate of the floor steps (and their repeats), judged by the capacity's
// own floor rule (result/capacity.js floorOf: its median p50, and whether its requests overlapped, rate × p50
// over FLOOR.overlap or nothing answered); null before one. (A bisection for the first target may go below a
// floor that failed it: the floor stays the floor steps' rate.)
function floorState (steps) {
  const floors = steps.filter((s) => s.kind === 'floor')
  if (!floors.length) return null
  const rate = Math.min(...floors.map((s) => s.rate))
  const floor = floorOf(steps.filter((s) => s.rate === rate))
  return { rate, p50: floor.p50, overlapped: !floor.true }
}

// The next floor below one whose requests overlapped: FLOOR.margin of the rate where its p50 would just
// meet FLOOR.overlap, at least FLOOR.dropMin and at most FLOOR.dropMax × lower (a saturated p50 is mostly
// queueing).
function lowerFloor ({ rate, p50 }) {
  const fit = p50 > 0 ? (FLOOR.margin * FLOOR.overlap * 1000) / p50 : 0
  return Math.min(rate / FLOOR.dropMin, Math.max(fit, rate / FLOOR.dropMax))
}

// A target's lower end: its highest pass, or below any pass the floor (0 when the floor failed it).
function baseOf (v, floor) {
  const { lo } = bracketOf(v)
  return lo > 0 ? lo : v.get(floor.rate) === 'fail' ? 0 : floor.rate
}

// The next rate of a target's search down (null when its failure is within CLIMB.downRatio × its lower end):
// halving from the failure while below any pass, else the geometric mean of pass and failure.
function downRate (v, floor) {
  const { lo, hi } = bracketOf(v)
  const base = baseOf(v, floor)
  if (hi === null || !(base > 0) || hi <= CLIMB.downRatio * base) return null
  const rate = lo > 0 ? Math.sqrt(lo * hi) : hi / CLIMB.downRatio
  return v.has(rate) ? null : rate
}

// The rate of the k-th coarse step: the ideal's fractions above the floor, then on at CLIMB.climb ×; after a
// leader (`climbFrom`: CLIMB.ledStart × its pass at the first target), that rate first and the fractions above
// it (past CLIMB.ledGap × it).
function coarseRate (k, { idealRps, fractions, floorRate, climbFrom }) {
  const above = (r, x) => r > x * (1 + 1e-9)
  const led = climbFrom !== null && above(climbFrom, floorRate)
  const rates = fractions.map((f) => f * idealRps)
  const seeded = led
    ? [climbFrom, ...rates.filter((r) => above(r, climbFrom * CLIMB.ledGap))]
    : rates.filter((r) => above(r, floorRate))
  if (k < seeded.length) return seeded[k]
  return (seeded.at(-1) ?? floorRate) * CLIMB.climb ** (k - seeded.length + 1)
}

// The next rate of a sweep from its steps judged against each target, tightest first (`views[k]`: the
// steps as target k sees them, each { rate, kind, pass, call, disturbed, inDoubt, n, over, p50 }), and the
// target each step was offered for (`aims`). The floor comes first (lowered while its requests overlap);
// coarse steps climb until one fails the loosest target (a step counts for every target); a rate pending
// for any target is repeated (a floor only to confirm its failure at the first target: the climb gives the
// rest of its evidence); a
// failure far above the highest pass (or the floor) is searched down geometrically; bisections go where a
// target's bracket is still wide (up to `refine` per target); the step past capacity is offered for the
// first target always and for another only while its knee is unproven (its bracket wider than 1.2 ×);
// last, a floor still pending for the first target with no pass above it is topped up.
function nextStep (views, aims, ctx) {
  const { firstFloorRate, refine, maxSteps, judging } = ctx
  const steps = views[0]
  const floor = floorState(steps)
  if (!floor) return steps.length < maxSteps ? { kind: 'floor', rate: firstFloorRate, aim: null, first: true } : null
  const byRate = views.map((v) => verdicts(v, judging))
  // a target whose confirmed failure is the tie margin under a leader's pass there is searched no further (CLIMB),
  // but the first target only once it has a pass: ruled out, it still ends with a two-sided bracket
  const open = byRate.map((v, k) => !belowLead(bracketOf(v).hi, ctx.leads?.[k]) || (k === 0 && bracketOf(v).lo === 0))
  if (!open.some(Boolean)) return null
  // the hold rule's length for the first target's capacity (carried on a hold step: its planned length)
  const holdSec = holdSecFor(floor.p50, ctx.sloMs, ctx.longestSec)
  // past the step limit only the first target's hold step, while the sweep has room past its limits (HOLD)
  if (steps.length >= maxSteps) return ctx.holdPastLimits ? holdDue(steps, byRate[0], open[0], holdSec) : null
  // an overlapped floor is measured again lower (a leader's too: a lower floor tells "cannot meet" from a capacity)
  if (floor.overlapped) return { kind: 'floor', rate: lowerFloor(floor), aim: null, first: true }
  const last = steps.at(-1)
  // a floor (or a repeat of it) is repeated only to confirm its failure at the first target (cannot meet): the
  // climb gives the rest of its evidence, for the looser targets too
  const atFloor = last.rate === floor.rate && (last.kind === 'floor' || last.kind === 'repeat')
  const repeats = (k) => !atFloor || (k === 0 && last.call !== 'undecided')
  const pending = last
    ? byRate.flatMap((v, k) => (open[k] && repeats(k) && v.get(last.rate) === 'pending' ? [k] : []))
    : []
  if (pending.length) {
    // a hold that is pending is measured again as a hold (the hold steps alone decide its rate)
    if (last.kind === 'hold') return { kind: 'hold', rate: last.rate, aim: 0, holdSec }
    return { kind: 'repeat', rate: last.rate, aim: aims.at(-1), pending, floor: atFloor }
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
    if (first || !open[0] || downRate(byRate[0], floor) === null) {
      return { kind: 'coarse', rate: coarseRate(coarse.length, range), aim: null, first }
    }
  }
  // The first target (the decision's) is refined and proven first, so a step limit cuts the others.
  for (const [k, v] of byRate.entries()) {
    if (!open[k]) continue
    const { lo, hi } = bracketOf(v)
    const base = baseOf(v, floor)
    const down = downRate(v, floor)
    if (down !== null) return { kind: 'down', rate: down, aim: k }
    const refines = steps.filter((s, i) => s.kind === 'refine' && aims[i] === k).length
    const wide = hi !== null && (hi - base) / hi > (k === 0 ? CLIMB.precision : CLIMB.precisionOthers)
    // a hold that failed (the first target's) earns one more bisection
    const allowed = refine + (k === 0 ? failedHolds(steps, v) : 0)
    if (hi !== null && refines < allowed && wide) return { kind: 'refine', rate: (base + hi) / 2, aim: k }
    if (lo === 0 || (k > 0 && hi !== null && hi <= lo * CLIMB.overload * (1 + ROUNDING))) continue
    // The step past capacity: offered once per capacity; its failure ends the sweep (a pass moved lo up).
    const over = lo * CLIMB.overload
    const measured = [...v.keys()].some((r) => sameRate(r, over))
    // (at or above a failed hold every rate fails: nothing to offer there)
    const pastHold = k === 0 && steps.some((s) => s.kind === 'hold' && s.rate <= over && v.get(s.rate) === 'fail')
    if (!measured && !pastHold) return { kind: 'over', rate: over, aim: k }
    // the hold rule (the first target's capacity): its rate held one step of holdSec, or it is measured again
    const hold = k === 0 ? holdDue(steps, v, true, holdSec) : null
    if (hold) return hold
  }
  // no pass for the first target and its floor still pending: more evidence at the floor
  if (open[0] && bracketOf(byRate[0]).lo === 0 && byRate[0].get(floor.rate) === 'pending') {
    return { kind: 'repeat', rate: floor.rate, aim: 0, pending: [0], floor: true }
  }
  return null
}

// The first target's hold step (the hold rule), when its capacity's rate has not held a step of holdSec
// (`v`: its verdicts; `open`: still searched), else null.
function holdDue (steps, v, open, holdSec) {
  const { lo } = bracketOf(v)
  if (!open || !(lo > 0) || heldAt(steps, lo, holdSec) !== false) return null
  return { kind: 'hold', rate: lo, aim: 0, holdSec }
}

// The rates whose hold failed, for a target's verdicts `v`.
function failedHolds (steps, v) {
  return new Set(steps.filter((s) => s.kind === 'hold' && v.get(s.rate) === 'fail').map((s) => s.rate)).size
}

// The requests a repeat at `rate` still needs (topping up the undecided steps there for every target
// pending at it), or null for a whole step: a failure there, or too many over the target to top up. `judging`:
// the percentile's share and the confidence.
function topUpRequests (views, step, judging) {
  let need = 0
  for (const k of step.pending ?? []) {
    const at = views[k].filter((s) => s.rate === step.rate)
    const over = at.reduce((a, s) => a + (s.over ?? Infinity), 0)
    if (at.some((s) => s.call !== 'undecided') || !(over <= LENGTH.topUpMaxOver)) return null
    const n = at.reduce((a, s) => a + s.n, 0)
    if (percentileCall(n, over, judging) !== 'undecided') return null
    need = Math.max(need, requestsToShow(over, judging) - n)
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

// The loosest target a step's verdict is wanted for (an index of the targets): for a repeat, the loosest its
// rate is pending for; for any other step every target, since each judges every step (a bisection for the first
// target also brackets the looser ones: cut at the first, they would need a step of their own).
function forWhich (step, count) {
  if (step.kind === 'repeat' && step.pending) return Math.max(...step.pending)
  return count - 1
}

// A step's lengths (s) for a sweep's settings: lengthFor(rate, requests, floor) within [minDurationSec,
// maxStepSec], lengthened up to longestSec when maxStepSec is too short for them (a floor step: FLOOR.minRequests,
// its p50, within [minDurationSec, longestSec]); lengthOf(views, step) the planned length of a step nextStep
// chose (a hold: its hold length; a repeat of undecided steps: the requests its pool still needs; a repeat of a
// floor's failure: the floor's).
function stepLengths ({ minDurationSec, maxStepSec, minRequests, judging }) {
  const longestSec = LENGTH.lengthen * maxStepSec
  const lengthFor = (rate, requests, floor = false) => {
    const forRequests = (n) => Math.ceil((n / rate) * 10) / 10
    // a floor step: its p50's requests (the steps above it show the percentile, or a top-up where none passes)
    if (floor) return Math.max(minDurationSec, Math.min(longestSec, forRequests(FLOOR.minRequests)))
    const capped = Math.max(minDurationSec, Math.min(maxStepSec, forRequests(requests)))
    return Math.max(capped, Math.min(longestSec, forRequests(requests)))
  }
  const lengthOf = (views, step) => {
    if (step.kind === 'hold') {
      return Math.min(longestSec, Math.max(step.holdSec ?? 0, lengthFor(step.rate, minRequests)))
    }
    const need = step.kind === 'repeat' ? topUpRequests(views, step, judging) : null
    // a floor, and a repeat of its failure (`floor`: nextStep's), last as long as the floor (a top-up as long as
    // its pool needs)
    return lengthFor(step.rate, need ?? minRequests, step.kind === 'floor' || (step.floor === true && need === null))
  }
  return { longestSec, lengthFor, lengthOf }
}

// A sweep's time budget (null: none, only maxSteps), scaled to the work (scaledBudget; `typicalStep(ms)`: the
// length of a typical step of a work of `ms`): updated as the sweep goes (spentSec, and `cut`).
function sweepBudget ({ budgetSec, budgetWorkMs, serviceMs }, typicalStep) {
  if (!(budgetSec > 0)) return null
  return {
    sec: scaledBudget(budgetSec, budgetWorkMs, serviceMs, typicalStep),
    baseSec: budgetSec, // before the work's scale (scaledBudget)
    workMs: budgetWorkMs,
    stepOverheadSec: BUDGET.stepOverheadSec,
    looseShare: BUDGET.looseShare,
    spentSec: 0,
    cut: null
  }
}

// Does a step of `sec` fit the budget (the looser targets' share of it when not the first target's)?
function fits (budget, sec, first) {
  if (!budget) return true
  return budget.spentSec + sec + BUDGET.stepOverheadSec <= budget.sec * (first ? 1 : BUDGET.looseShare) + ROUNDING
}

// The next step of a sweep and its planned length ({ step, sec }; step null: done), from its steps so far
// judged for each target (`views`): nextStep's, within the budget (the looser targets' share spent: the first
// target's steps only; cut: 'looser-targets' when only theirs were left out, 'sweep' when a first target's
// step was) and the rate cap (like --rate: past a step at the cap the sweep has nothing higher to offer).
function plannedStep (views, history, { aims, budget, lengthOf, lengthFor, opts }) {
  const limits = { ...opts, holdPastLimits: opts.room.holds > 0 }
  let step = nextStep(views, aims, limits)
  let sec = step && lengthOf(views, step)
  // the first target's hold step runs past the step limit and the budget, HOLD.pastLimits of them at most: where
  // the budget cuts the first target's search, its hold step (if due) is offered in its place
  let pastLimits = step?.kind === 'hold' && (views[0].length >= opts.maxSteps || !fits(budget, sec, true))
  if (!pastLimits && step && !fits(budget, sec, forFirst(step))) {
    const loose = !forFirst(step)
    step = loose ? nextStep([views[0]], aims, limits) : null
    sec = step && lengthOf([views[0]], step)
    budget.cut = loose && (!step || fits(budget, sec, true)) ? 'looser-targets' : 'sweep'
    if (step && !fits(budget, sec, true)) step = null
    if (!step) {
      step = nextStep(views, aims, { ...limits, maxSteps: 0 }) // the hold alone, past the limits
      sec = step && lengthOf(views, step)
      pastLimits = step !== null
    }
  }
  if (pastLimits) opts.room.holds--
  // no pass yet at the first target: its floor's top-up keeps its room before the step limit and the budget
  const topUp = pastLimits ? null : floorTopUp(views, opts, lengthFor)
  const room = { maxSteps: opts.maxSteps, budget, taken: views[0].length }
  const isTopUp = step?.kind === 'repeat' && step.rate === topUp?.step.rate
  if (topUp && !isTopUp && !roomAfter(step, sec, topUp, room) && roomAfter(null, 0, topUp, room)) {
    step = topUp.step
    sec = lengthOf(views, step)
  }
  if (step && step.rate > RATE_RANGE.max) {
    step = history.some((h) => h.rate === RATE_RANGE.max) ? null : { ...step, rate: RATE_RANGE.max }
  }
  return { step, sec }
}

// The first target's floor top-up while it has no pass ({ step, steps, sec }: the repeat, how many repeats
// its pool needs at the longest step and their seconds), or null: a pass, a floor decided, or a pool too far
// from its sample for the tries left at the floor (REPEAT.maxTries).
function floorTopUp (views, { judging, longestSec }, lengthFor) {
  const steps = views[0]
  const floor = floorState(steps)
  const v = floor && verdicts(steps, judging)
  if (!floor || bracketOf(v).lo > 0 || v.get(floor.rate) !== 'pending') return null
  const step = { kind: 'repeat', rate: floor.rate, aim: 0, pending: [0], floor: true }
  let need = topUpRequests(views, step, judging)
  const left = REPEAT.maxTries - steps.filter((s) => s.rate === floor.rate).length
  if (need === null || need > left * floor.rate * longestSec) return null
  let count = 0
  let sec = 0
  for (; need > 0 && count < left; count++) {
    const len = lengthFor(floor.rate, need)
    sec += len
    need -= floor.rate * len
  }
  return { step, steps: count, sec }
}

// Is there room for a top-up ({ steps, sec }) after `step` of `sec` (null: none), within the step limit and
// the budget?
function roomAfter (step, sec, topUp, { maxSteps, budget, taken }) {
  const after = taken + (step ? 1 : 0) + topUp.steps
  const more = (step ? sec + BUDGET.stepOverheadSec : 0) + topUp.sec + (topUp.steps - 1) * BUDGET.stepOverheadSec
  return after <= maxSteps && fits(budget, more, true)
}

// The steps so far as each target sees them: judged against it (result/capacity.js judgeStep), with their
// kind, p50 and planned length (the hold rule).
function viewsOf (history, targets, { judging, kinds, planned }) {
  return targets.map((t) => history.map((h, i) => {
    const j = judgeStep(h.figures, t, judging)
    const p50 = h.figures.latency?.p50 ?? null
    return {
      rate: h.rate,
      kind: kinds[i],
      ...j,
      p50,
      sec: planned[i],
      pass: j.call === 'pass',
      disturbed: Boolean(h.figures.disturbed)
    }
  }))
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
// the target (0.01: p99), at `confidence` (the sample rule's; --quick's looser), with minRequests the fewest
// that can show it (requestsToShow(0, { share, confidence }) unless given); `why`: a sentence for the report when
// the confidence or the work differs from the default run's (--quick's). `leaders`: the trusted passes of the
// strategies swept before it (lab.js led), where a target is ruled out; `guides` (else `leaders`): every one of
// their passes, where the climb starts unless `seeded` (a --tune seed gave the fractions).
// Every default is the rule book's (result/rules.js).
export function createSweep ({
  serviceMs, cores, sloMs = null, slos = null, fractions = CLIMB.fractions, refine = SWEEP_LIMITS.refine,
  share = SAMPLE.share, confidence = SAMPLE.confidence, minRequests = requestsToShow(0, { share, confidence }),
  minDurationSec = SWEEP_LIMITS.minDurationSec, maxStepSec = SWEEP_LIMITS.maxStepSec, maxSteps = SWEEP_LIMITS.maxSteps,
  budgetSec = null, budgetWorkMs = null, why = null, leaders = null, guides = null, seeded = false
}) {
  const judging = { share, confidence } // how a step's requests over a target are judged (result/rules.js SAMPLE)
  const many = targetsFor(serviceMs, slos ?? (sloMs ? [sloMs] : null))
  const slo = slos?.length || sloMs ? sloFor(serviceMs, many.targets[0]) : sloFor(serviceMs)
  const targets = many.targets
  const leads = leadsAt(leaders, targets)
  const idealRps = serviceMs > 0 ? (cores / serviceMs) * 1000 : null
  const kinds = [] // the kind of each rate handed out: floor, coarse, down, refine, over, repeat, hold
  const aims = [] // the target each was offered for (null: every target, a coarse step)
  const planned = [] // each step's planned length, seconds
  let lastRate = null
  let forTarget = null // the loosest target the last step is offered for
  const { longestSec, lengthFor, lengthOf } = stepLengths({ minDurationSec, maxStepSec, minRequests, judging })
  const typicalStep = (ms) => lengthFor((BUDGET.typical * cores * 1000) / ms, minRequests)
  const budget = sweepBudget({ budgetSec, budgetWorkMs, serviceMs }, typicalStep)
  // after a strategy with a pass the climb starts just under the highest (not where a --tune seed gave the fractions)
  const start = leadsAt(guides ?? leaders, targets)?.[0]
  const climbFrom = !seeded && start > 0 ? CLIMB.ledStart * start : null
  const opts = { idealRps, fractions, refine, maxSteps, judging, sloMs: targets[0], longestSec, leads, climbFrom }
  opts.firstFloorRate = firstFloorRate(serviceMs) // the first floor step (result/rules.js)
  opts.room = { holds: HOLD.pastLimits } // the hold steps still allowed past the step limit or the budget
  const settings = { fractions, refine, minRequests, minDurationSec, maxStepSec, longestSec, maxSteps, judging, why }
  return {
    kinds,
    lengths: planned, // each step's planned length, seconds (a capacity's hold rule reads them)
    describe: () => describeSweep({ idealRps, serviceMs, cores, slo, many, budget, leads }, settings),
    // The loosest target the step next() just chose is offered for (ms): where it may be cut short (CUT).
    cutTargetMs () {
      return forTarget === null ? null : targets[forTarget]
    },
    durationFor (rate) {
      return kinds.length && rate === lastRate ? planned.at(-1) : lengthFor(rate, minRequests)
    },
    next (history) {
      if (idealRps === null || slo.sloMs === null) return null
      const views = viewsOf(history, targets, { judging, kinds, planned })
      const { step, sec } = plannedStep(views, history, { aims, budget, lengthOf, lengthFor, opts })
      if (!step) return null
      kinds.push(step.kind)
      aims.push(step.aim)
      forTarget = forWhich(step, targets.length)
      planned.push(sec)
      if (budget) budget.spentSec = Math.round((budget.spentSec + sec + BUDGET.stepOverheadSec) * 10) / 10
      lastRate = step.rate
      return step.rate
    }
  }
}

// The sweep's rule as plain data (describe()): its targets, steps, limits, percentile, hold rule and budget
// (text/reasons.js sweepRuleText says it in words: experiments/capacity.js adds it as `rule`).
function describeSweep ({ idealRps, serviceMs, cores, slo, many, budget, leads }, settings) {
  const { fractions, refine, minRequests, minDurationSec, maxStepSec, longestSec, maxSteps, judging, why } = settings
  return {
    idealRps,
    serviceMs,
    cores,
    sloMs: slo.sloMs,
    sloRule: slo.rule,
    sloOwn: slo.own, // the user's target (--slo), or the lab's default from the service time
    targetsMs: many.targets, // every target the steps are judged against (the first is sloMs)
    targetsRule: many.rule,
    fractions,
    refine,
    overload: CLIMB.overload,
    minRequests,
    minDurationSec,
    maxStepSec,
    longestStepSec: longestSec,
    maxTries: REPEAT.maxTries,
    maxSteps,
    maxRate: RATE_RANGE.max, // no step offers more (--rate's cap)
    share: judging.share, // the percentile judged: its share of requests allowed over the target
    percentile: percentileOf(judging.share),
    confidence: judging.confidence, // the sample rule's confidence a step is judged at (--quick's looser)
    why, // why this confidence or work (--quick), null for the default run's
    floorOverlap: FLOOR.overlap,
    // the hold rule (result/capacity.js holdSecFor)
    hold: { excess: HOLD.excess, times: HOLD.times, minSec: HOLD.minSec },
    budget, // the same object as the sweep goes (null: no budget)
    leads // the leaders' passes at each target when it started (null: none), where a target is ruled out
  }
}

// The leaders' passes at this sweep's targets (`leaders`: [{ targetsMs, passes }] from the strategies swept
// before it): [rps or null] per target from the ones judged at exactly these targets, or null for none.
function leadsAt (leaders, targets) {
  const same = leaders?.find((l) => l.targetsMs.length === targets.length &&
    l.targetsMs.every((t, k) => t === targets[k]))
  return same?.passes.some((p) => p > 0) ? same.passes.map((p) => (p > 0 ? p : null)) : null
}
