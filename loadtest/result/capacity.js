// A capacity sweep's verdicts: whether a step held the target, and the capacity its steps show. Pure;
// result/sweep.js chooses the rates, result/build.js reports the outcome. The rules (reports/README.md
// "capacity"): a step's p99 is decided by the binomial rule on its requests over the target (judgeStep);
// a failure the generator's lag could flip is in doubt (result/trust.js lagCouldFlip) and repeated; a
// sweep records its floor (the lowest rate offered) and its capacity is null — bound 'cannot-meet' — only
// when that floor is true (its requests did not overlap) and failed there; without the evidence for a
// verdict the bound is 'undecided', with why (a code: text/reasons.js says the bounds).

import { decodeHistogram } from './histogram.js'
import { errorsOf } from './requests.js'
import { median, roundTo, sameRate } from './stats.js'
import { lagCouldFlip } from './trust.js'
import { judgeByClass } from './mix.js'
import {
  BACKLOG, BOUND, CLIMB, FLOOR, HALVES, HOLD, REPEAT, SAMPLE, TIE, bracketConfidenceOf, percentileCall,
  percentileOf, requestsToShow
} from './rules.js'

// The sample-size rule, where its readers found it before the rule book (result/rules.js).
export { percentileCall, percentileOf, requestsToShow }

// The backlog rule (result/rules.js BACKLOG): a step's outstanding requests (sent, not yet ended) grow past
// BACKLOG.share of the requests sent and BACKLOG.min, or, growing more slowly, would add more wait than the
// target within BACKLOG.horizon requests (growingFor). Only the points while requests were being sent count:
// after the last send the round drains its backlog.

// The backlog of a round from its timeline (run/watch/timeline.js series): { early, late, growth, limit,
// growing }; null without a timeline of at least 4 points (one a quarter) in the round.
export function backlogOf (timeline) {
  const round = (timeline?.points ?? []).filter((p) => p.phase === 'round')
  const points = round.slice(0, round.findLastIndex((p) => p.sent > 0) + 1)
  const q = Math.floor(points.length / 4)
  if (q < 1) return null
  let outstanding = 0
  let sent = 0
  const series = points.map((p) => {
    sent += p.sent
    outstanding += p.sent - p.completed - p.timeouts - p.errors
    return outstanding
  })
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
  const early = mean(series.slice(q, 2 * q))
  const late = mean(series.slice(series.length - q))
  const limit = Math.max(BACKLOG.min, BACKLOG.share * sent)
  const growth = late - early
  // seconds between the middles of the two quarters (the points' times; else their index × the interval)
  const at = (i) => points[i].t ?? i * (timeline.intervalMs ?? 0)
  const middle = (from, to) => (at(from) + at(to - 1)) / 2
  const sec = (middle(series.length - q, series.length) - middle(q, 2 * q)) / 1000
  const r1 = (x) => roundTo(x, 1)
  return {
    early: r1(early),
    late: r1(late),
    growth: r1(growth),
    perSec: sec > 0 ? roundTo(growth / sec, 3) : null,
    limit,
    growing: growth > limit
  }
}

// The wait (ms) a backlog growing at its rate would add over BACKLOG.horizon requests at `rate` req/s,
// when it grew by more than BACKLOG.min: each request queued waits one arrival gap more (the server keeps
// up with about `rate` near its knee). null when it did not grow past BACKLOG.min or its rate is unknown.
export function backlogWaitMs (backlog, rate) {
  if (!(backlog?.growth > BACKLOG.min) || !(backlog.perSec > 0) || !(rate > 0)) return null
  const horizonSec = BACKLOG.horizon / rate
  return roundTo(((backlog.perSec * horizonSec) / rate) * 1000, 1)
}

// Is a step's backlog growing against a target: past the share rule (backlogOf), or past BACKLOG.min and
// adding more wait than the target within BACKLOG.horizon requests (backlogWaitMs).
export function growingFor (fig, sloMs) {
  if (fig.backlog?.growing) return true
  const wait = backlogWaitMs(fig.backlog, fig.open?.rate)
  return wait !== null && sloMs > 0 && wait > sloMs
}

// The hold rule (result/rules.js HOLD): near a sharp knee a short step can pass a rate above it, its backlog
// too small yet to show, so the capacity's rate must have held one step long enough (else a hold step).

// The length (s) a step must last to hold a capacity against `sloMs` from a floor of p50 `floorP50` ms, at
// most `longestSec`; null without a target above the floor's p50.
export function holdSecFor (floorP50, sloMs, longestSec = Infinity) {
  if (!(sloMs > 0)) return null
  const slack = sloMs - (floorP50 > 0 ? floorP50 : 0)
  if (!(slack > 0)) return null
  const sec = Math.max(HOLD.minSec, Math.ceil((HOLD.times * slack) / (1000 * HOLD.excess) * 10) / 10)
  return Math.min(longestSec, sec)
}

// Did `rate` hold for `holdSec` among `steps` ({ rate, kind, call, sec }): a hold step there, or a step
// that lasted that long (its planned length at least HOLD.lengthShare of it) and did not fail (passed, or
// undecided and pooled into the rate's pass: its backlog did not grow either). null when a step's length is
// unknown.
export function heldAt (steps, rate, holdSec) {
  const at = steps.filter((s) => s.rate === rate)
  if (at.some((s) => s.kind === 'hold')) return true
  if (!(holdSec > 0)) return true
  if (at.some((s) => typeof s.sec !== 'number')) return null
  return at.some((s) => callOf(s) !== 'fail' && s.sec >= HOLD.lengthShare * holdSec)
}

// A floor is true when its requests rarely overlap: its rate × p50 is at most FLOOR.overlap. Only a true floor
// can show "cannot meet the target".

// Requests and how many of them took longer than sloMs, from a round's encoded latency histogram (`name`,
// the whole round's by default) ({ n, over }); null without that histogram.
function overTarget (fig, sloMs, name = 'latency') {
  const text = fig?.histograms?.[name]
  if (typeof text !== 'string' || !(sloMs > 0)) return null
  const h = decodeHistogram(text)
  const limitUs = sloMs * 1000
  let over = 0
  const it = h.recordedValuesIterator
  it.reset()
  while (it.hasNext()) {
    const v = it.next()
    if (h.lowestEquivalentValue(v.valueIteratedTo) > limitUs) over += v.countAtValueIteratedTo
  }
  return { n: h.totalCount, over }
}

// Whether a step's halves contradict (result/rules.js HALVES): the first passes and the second fails, or the
// reverse, each ({ n, over }) judged alone at HALVES.confidence.
export function halvesDisagree (first, second, share = SAMPLE.share) {
  const opts = { share, confidence: HALVES.confidence }
  const calls = [percentileCall(first.n, first.over, opts), percentileCall(second.n, second.over, opts)]
  return calls.includes('pass') && calls.includes('fail')
}

// The same from a step's figures and its whole round's `counts`: false without the second half's histogram.
function halvesContradict (fig, sloMs, counts, share) {
  const late = overTarget(fig, sloMs, 'latencyLate')
  if (!counts || !late) return false
  return halvesDisagree({ n: counts.n - late.n, over: counts.over - late.over }, late, share)
}

// A step's verdict on the target from its round figures: { call, n, over, inDoubt, fault?, failed? } (fault:
// the code of a failure that is not the percentile's: 'requests' (`failed` of them), 'backlog', 'no-answer';
// text/reasons.js says a failure). call 'fail' when a
// request failed (error, timeout, non-2xx, mismatch, unanswered), the backlog grew, nothing was answered,
// or its requests over the target decide a p99 above it; 'pass' when they decide p99 within it;
// 'undecided' when too few requests decide either way (percentileCall), none at all included (a mix's class
// that a step's draw left out: too few to judge, never a failure of that class). Without a histogram (figures
// from before the rule) the p99 alone decides. `mark`: arrivals not as asked (rules.js FIT: 'bunched' makes a
// failure in doubt, 'smooth' a pass undecided) or halves that contradict (rules.js HALVES, 'drift': either);
// a failure the generator's lag could flip is in doubt too (result/trust.js lagCouldFlip).
export function judgeStep (fig, sloMs, { share = SAMPLE.share, confidence = SAMPLE.confidence } = {}) {
  // a mix: every class against its own target (result/mix.js)
  if (fig.classes?.length) return judgeByClass(fig, sloMs, (f, t) => judgeStep(f, t, { share, confidence }))
  const q = fig.requests
  const faults = errorsOf(q) + q.unanswered // errors as everywhere (result/requests.js), and unanswered
  const counts = overTarget(fig, sloMs)
  const base = { n: counts?.n ?? q.completed, over: counts?.over ?? null, inDoubt: false }
  if (faults > 0) return { ...base, call: 'fail', fault: 'requests', failed: faults }
  if (growingFor(fig, sloMs)) return { ...base, call: 'fail', fault: 'backlog' }
  // nothing sent (a mix's rare class in a short step): no evidence either way, never a failure
  if (q.sent === 0) return { ...base, n: 0, call: 'undecided' }
  if (!(q.completed > 0) || fig.latency.p99 === null) return { ...base, call: 'fail', fault: 'no-answer' }
  const call = counts
    ? percentileCall(counts.n, counts.over, { share, confidence })
    : fig.latency.p99 <= sloMs ? 'pass' : 'fail'
  // arrivals not as asked (FIT): a pass on a kinder load is not relied on, a failure on a harsher one is in doubt;
  // halves that contradict (HALVES): neither, nor an undecided step's requests in a pool
  const fit = fig.open?.fit?.tail ?? null
  const mark = halvesContradict(fig, sloMs, counts, share)
    ? 'drift'
    : (call === 'pass' && fit === 'smooth') || (call === 'fail' && fit === 'bunched') ? fit : null
  if (call !== 'fail') return mark ? { ...base, call: 'undecided', mark } : { ...base, call }
  const inDoubt = mark !== null || lagCouldFlip(fig.latency.p99, fig.open?.lag?.p99, sloMs)
  return { ...base, call, inDoubt, ...(mark ? { mark } : {}) }
}

// A step's call: its own, or (steps from before the sample-size rule) its pass.
export function callOf (s) {
  return s.call ?? (s.pass ? 'pass' : 'fail')
}

// The pooled call of a rate's latency evidence: the requests and those over the target of its passing and
// undecided steps, summed (the sequential version of the sample-size rule). Disturbed steps pool too:
// noise only adds time, so their few requests over the target still count toward a pass; a pooled
// failure counts (`counted`) only when no disturbed step is in it. A marked pass (FIT, HALVES) does not pool.
// `judging`: the percentile's share and the confidence (the sweep's).
function pooledCall (steps, judging) {
  const pool = steps.filter((s) => callOf(s) !== 'fail' && typeof s.over === 'number' && !s.mark)
  if (!pool.length) return { call: 'undecided', share: null, counted: false }
  const n = pool.reduce((a, s) => a + s.n, 0)
  const over = pool.reduce((a, s) => a + s.over, 0)
  const counted = !pool.some((s) => s.disturbed)
  return { call: percentileCall(n, over, judging), share: n > 0 ? over / n : null, counted }
}

// A failure no repeat would flip: at least REPEAT.clearShare of its requests over the target, the step
// undisturbed and its lag unable to flip it. Noise only adds time, and the noise sampler saw none: it counts at
// once, like a second failure.
function clearFailure (s) {
  return callOf(s) === 'fail' && !s.disturbed && !s.inDoubt && s.n > 0 && typeof s.over === 'number' &&
    s.over / s.n >= REPEAT.clearShare
}

// The verdict at one rate from its steps ([{ call, disturbed, inDoubt, n, over }]): 'pass', 'fail',
// 'pending' (measure it again) or 'undecided' (REPEAT.maxTries steps, none of them nor their pool decided: too
// few requests, never a verdict). `contradicts`: a pass here would sit above a confirmed failure (it needs
// two passes) — and otherwise a failure needs two. Disturbed failures and failures the generator's lag
// could flip do not count until the rate has had REPEAT.maxTries steps; undecided steps pool their requests
// and count once their pool decides (pooledCall); at REPEAT.maxTries the majority decides (a tie of decided
// steps: the pooled share over the target against the percentile's share). `failOnce`: an undisturbed failure
// counts at once (a rate's hold steps: the hold is already the repeat of the shorter pass it tests).
export function verdictAt (
  steps, { contradicts = false, share = SAMPLE.share, confidence = SAMPLE.confidence, failOnce = false } = {}
) {
  const pooled = steps.some((s) => callOf(s) === 'undecided')
    ? pooledCall(steps, { share, confidence })
    : { call: 'undecided' }
  const extra = (c) => (pooled.call === c && !steps.some((s) => callOf(s) === c) ? 1 : 0)
  const passes = steps.filter((s) => callOf(s) === 'pass').length + extra('pass')
  const fails = steps.filter((s) => callOf(s) === 'fail').length + extra('fail')
  const counted = steps.filter((s) => callOf(s) === 'fail' && !s.disturbed && !s.inDoubt).length +
    (pooled.counted ? extra('fail') : 0)
  if (passes >= (contradicts ? 2 : 1) && passes > fails) return 'pass'
  if ((counted >= (contradicts || failOnce ? 1 : 2) || steps.some(clearFailure)) && fails >= passes) return 'fail'
  if (steps.length >= REPEAT.maxTries) {
    if (passes !== fails) return passes > fails ? 'pass' : 'fail'
    if (passes === 0) return 'undecided'
    return pooled.share !== null && pooled.share <= share ? 'pass' : 'fail'
  }
  return 'pending'
}

// The verdict at each rate of a sweep's steps (a Map, rate → verdict) (contradicting: above a confirmed
// failure; a rate with hold steps: theirs alone; above a failed hold, without one: a failure).
export function verdicts (steps, { share = SAMPLE.share, confidence = SAMPLE.confidence } = {}) {
  const byRate = new Map()
  for (const s of steps) {
    if (!byRate.has(s.rate)) byRate.set(s.rate, [])
    byRate.get(s.rate).push(s)
  }
  const rates = [...byRate.keys()].sort((a, b) => a - b)
  const out = new Map()
  let lowestFail = Infinity
  let failedHold = Infinity
  for (const rate of rates) {
    // a rate held once more (the hold rule): its hold steps alone decide it; above a hold that failed, a
    // rate without a hold of its own fails (its shorter steps could not show what the hold showed)
    const at = byRate.get(rate)
    const hold = at.filter((s) => s.kind === 'hold')
    const v = !hold.length && rate > failedHold
      ? 'fail'
      : verdictAt(hold.length ? hold : at,
        { contradicts: rate > lowestFail, share, confidence, failOnce: hold.length > 0 })
    out.set(rate, v)
    if (v === 'fail') lowestFail = Math.min(lowestFail, rate)
    if (v === 'fail' && hold.length) failedHold = Math.min(failedHold, rate)
  }
  return out
}

// The bracket the verdicts show: lo the highest pass with no failure below it unless a higher pass
// overruled that failure; hi the lowest failure above lo (null: none).
export function bracketOf (verdictByRate) {
  const passes = [...verdictByRate].filter(([, v]) => v === 'pass').map(([r]) => r)
  const lo = passes.length ? Math.max(...passes) : 0
  const fails = [...verdictByRate].filter(([r, v]) => v === 'fail' && r > lo).map(([r]) => r)
  const overruled = [...verdictByRate].filter(([r, v]) => v === 'fail' && r < lo).map(([r]) => r)
  return { lo, hi: fails.length ? Math.min(...fails) : null, overruled }
}

// The floor of a sweep: the lowest rate offered, with the median p50 and p99 of its steps there, the
// requests they answered, its overlap (rate × p50: the share of the gap between arrivals one request
// took) and whether it is true (overlap ≤ FLOOR.overlap: its requests rarely waited for each other)
// ({ rps, p50, p99, requests, overlap, true }); null without a step.
export function floorOf (steps) {
  if (!steps.length) return null
  const rate = Math.min(...steps.map((s) => s.rate))
  const at = steps.filter((s) => s.rate === rate)
  const mid = (k) => {
    const xs = at.map((s) => s[k]).filter((x) => typeof x === 'number')
    return xs.length ? median(xs) : null
  }
  const p50 = mid('p50')
  const overlap = typeof p50 === 'number' ? roundTo((rate * p50) / 1000, 3) : null
  return {
    rps: rate,
    p50,
    p99: mid('p99'),
    requests: at.reduce((a, s) => a + (s.n ?? s.requests?.completed ?? 0), 0),
    overlap,
    true: overlap !== null && overlap <= FLOOR.overlap
  }
}

// Is the target within BOUND.sensitive of the floor's p99 (a few ms more or less on the target moves the
// capacity from nothing to something)? false without a floor or target.
function sensitiveTo (floor, sloMs) {
  if (!(floor?.p99 > 0) || !(sloMs > 0)) return false
  return Math.max(sloMs / floor.p99, floor.p99 / sloMs) <= BOUND.sensitive
}

// Why a sweep with no passing rate has no verdict, as a code with its figures (text/reasons.js says it): its
// floor was never true ('floor-overlap'), its budget or step limit cut it ('budget-spent', 'step-limit'), a
// failure at its lowest rate awaits its repeat ('lowest-pending'), or that rate had too few requests to decide
// ('few-at-lowest').
function undecidedWhy (floor, lowest, { budget = null, maxSteps = null, steps }) {
  if (!floor.true) return { code: 'floor-overlap', overlap: floor.overlap, limit: FLOOR.overlap }
  if (budget?.cut === 'sweep') return { code: 'budget-spent' }
  if (maxSteps && steps.length >= maxSteps) return { code: 'step-limit', maxSteps }
  if (lowest === 'pending') return { code: 'lowest-pending' }
  return { code: 'few-at-lowest' }
}

// Is a target ruled out (rule book CLIMB): its lowest confirmed failure `hi` at or under 1 − TIE.capacityMargin of
// `lead`, the pass there of a strategy swept before it? Its capacity lies under `hi`, the leader's at or above
// `lead`: neither their brackets overlap nor is it within the margin (result/decision.js capacitiesTie), so it can
// neither win nor tie there, whatever more steps show.
export function belowLead (hi, lead) {
  return hi !== null && lead > 0 && hi <= (1 - TIE.capacityMargin) * lead
}

// The bound of a capacity with no passing rate ({ bound, undecided? }): 'cannot-meet' (a true floor failed
// with its p99 above the target), 'below-lowest' (a true floor failed otherwise: errors, backlog), 'ruled-out'
// (a failure confirmed TIE's margin or more under the leaders' pass: the search stopped) or 'undecided' (no
// evidence for either), with why (undecidedWhy; 'no-step' without a step).
function boundWithout (floor, lowest, sweep, sloMs) {
  if (floor?.true && lowest === 'fail') return { bound: floor.p99 > sloMs ? 'cannot-meet' : 'below-lowest' }
  if (sweep.ruledOut) return { bound: 'ruled-out' }
  return { bound: 'undecided', undecided: floor ? undecidedWhy(floor, lowest, sweep) : { code: 'no-step' } }
}

// A capacity's bound as every copy of it carries it: its code, and an undecided one's why beside it.
export function boundFields (c) {
  return c?.bound === 'undecided' ? { bound: c.bound, undecided: c.undecided ?? null } : { bound: c?.bound ?? null }
}

// The capacity found by a finished sweep (steps: { index, rate, kind, call, disturbed, inDoubt, p50, p99,
// n, over }), one plain object (reports/README.md "capacity"):
//   rps       the highest rate whose verdict is a pass (verdicts); null when no rate passed — never 0
//   bound     a code (text/reasons.js boundText says it): 'refined' (a failure confirmed within 1.2 × of
//             it), 'ruled-out' (a failure confirmed further above, below `lead`: the pass of a strategy swept
//             before it, so the search stopped), 'at-least' (the step past it held, or the sweep ran out of
//             steps or budget), 'cannot-meet'
//             (a true floor failed, its p99 above the target), 'below-lowest' (a true floor failed
//             otherwise), or 'undecided' (no rate passed and no true floor failed)
//   undecided (bound 'undecided' only) why, { code, …figures }: 'budget-spent', 'step-limit',
//             'lowest-pending', 'few-at-lowest', 'floor-overlap' (a floor whose requests overlapped), 'no-step'
//   floor     { rps, p50, p99, requests, overlap, true } at the lowest rate offered (floorOf)
//   sensitive the target is within BOUND.sensitive of the floor's p99
//   bracket   { pass, fail }: that rate and the lowest failing rate above it (so far, when undecided);
//   confidence how often the knee lies in the bracket (bracketConfidenceOf the sweep's; a lower bound: its own);
//   held, holdSec: whether that rate held a step of holdSec (the hold rule, heldAt; null without the rule, or
//   ruled out);
//   ratioToIdeal; p99 and step: the step whose figures show it; over: the step past it; overruled:
//   failures a confirmed pass above them overruled; repeated, disturbedSteps, inDoubtSteps: step counts.
// Pure, one target: a caller judging several targets calls it once per target on steps judged for it.
// `share`: the percentile's share over the target (0.01: p99), `confidence` the sample rule's (--quick's looser);
// `budget`, `maxSteps`: the sweep's, for why;
// `hold`, `longestStepSec`: the sweep's hold rule (result/rules.js HOLD; null: a sweep without it); `lead`: the
// leaders' pass at this target when the sweep started (its `leads`), null for none.
export function capacityOf (
  steps,
  {
    sloMs, idealRps, share = SAMPLE.share, confidence = SAMPLE.confidence, budget = null, maxSteps = null, hold = null,
    longestStepSec = Infinity, lead = null
  }
) {
  const byRate = verdicts(steps, { share, confidence })
  const { lo, hi, overruled } = bracketOf(byRate)
  const atLo = steps.filter((s) => s.rate === lo && byRate.get(lo) === 'pass')
  // the step whose figures show it: its last pass, or (a pooled verdict) its undecided step with the lowest p99
  const undecided = atLo.filter((s) => callOf(s) === 'undecided')
    .sort((a, b) => (a.p99 ?? Infinity) - (b.p99 ?? Infinity))
  const best = atLo.filter((s) => callOf(s) === 'pass').at(-1) ?? undecided[0] ?? null
  // The step past capacity: offered as such, or already measured at that rate (a bisection can land on it).
  const at = (s) => sameRate(s.rate, lo * CLIMB.overload)
  const over = best ? (steps.find((s) => s.kind === 'over' && at(s)) ?? steps.find(at) ?? null) : null
  // The knee is proven when a failure is confirmed at or below 1.2 × capacity; else (the sweep's step
  // limit) the capacity is a lower bound.
  const proven = hi !== null && hi <= lo * CLIMB.overload * (1 + 1e-9)
  const ruledOut = belowLead(hi, lead)
  const floor = floorOf(steps)
  const lowest = floor ? byRate.get(floor.rps) : null
  // the hold rule (a sweep that applied it: its `hold`): the length the capacity's rate had to hold for; not for
  // a target ruled out (its pass cannot be chosen: the search stopped at it)
  const holds = Boolean(hold && best && !ruledOut)
  const holdSec = holds ? holdSecFor(floor?.p50, sloMs, longestStepSec) : null
  return {
    sloMs,
    percentile: percentileOf(share), // the percentile judged (99; 95 in --quick's reports before it judged p99)
    rps: best?.rate ?? null,
    // 'at-least': the step past it did not fail, the real capacity may be higher
    ...(best === null
      ? boundWithout(floor, lowest, { budget, maxSteps, steps, ruledOut }, sloMs)
      : { bound: proven ? 'refined' : ruledOut ? 'ruled-out' : 'at-least' }),
    floor,
    sensitive: sensitiveTo(floor, sloMs),
    bracket: { pass: best?.rate ?? null, fail: hi },
    // how often the knee lies in the bracket (a lower bound: at or above its pass) by the sample rule's confidence
    confidence: best === null ? null : hi === null ? confidence : bracketConfidenceOf(confidence),
    // held for holdSec (a hold step, or a passing step that long); null: no capacity, ruled out, or no hold rule
    held: holds ? heldAt(steps, best.rate, holdSec) : null,
    holdSec,
    ratioToIdeal: best && idealRps ? best.rate / idealRps : null,
    p99: best?.p99 ?? null,
    step: best?.index ?? null,
    over,
    overruled,
    repeated: steps.filter((s) => s.kind === 'repeat').length,
    disturbedSteps: steps.filter((s) => s.disturbed).map((s) => s.index),
    inDoubtSteps: steps.filter((s) => s.inDoubt).map((s) => s.index)
  }
}

// The capacity at every target of a sweep from one set of steps: each step judged again against each
// target from its round figures (`figs[i]`: its latency histogram counts its requests over that target),
// then capacityOf per target. [{ sloMs, rps, bracket, bound, sensitive, p99 }], tightest first.
export function capacityAtTargets (
  steps, figs, {
    targets = [], idealRps, share = SAMPLE.share, confidence = SAMPLE.confidence, budget = null, maxSteps = null,
    leads = null
  }
) {
  return targets.map((sloMs, k) => {
    const judged = steps.map((s, i) => {
      const j = judgeStep(figs[i], sloMs, { share, confidence })
      return { ...s, ...j, pass: j.call === 'pass' }
    })
    const c = capacityOf(judged, { sloMs, idealRps, share, confidence, budget, maxSteps, lead: leads?.[k] ?? null })
    const { rps, bracket, sensitive, p99 } = c
    return { sloMs, rps, bracket, confidence: c.confidence, ...boundFields(c), sensitive, p99 }
  })
}
