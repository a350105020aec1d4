// A capacity sweep's verdicts: whether a step held the target, and the capacity its steps show. Pure;
// run/sweep.js chooses the rates, result/build.js reports the outcome.

import { roundTo } from './stats.js'
import { errorsOf } from './requests.js'

// The backlog rule: a step's outstanding requests (sent, not yet ended) grow when their mean over its
// last quarter exceeds their mean over its second quarter by more than BACKLOG_SHARE of the requests
// sent, and at least BACKLOG_MIN requests (the first quarter is the ramp to steady state). Only the
// points while requests were being sent count: after the last send the round drains its backlog.
export const BACKLOG_SHARE = 0.05
export const BACKLOG_MIN = 3

// The backlog of a round from its timeline (run/timeline.js series): { early, late, growth, limit,
// growing }; null without a timeline of at least 4 points in the round.
export function backlogOf (timeline) {
  const round = (timeline?.points ?? []).filter((p) => p.phase === 'round')
  const points = round.slice(0, round.findLastIndex((p) => p.sent > 0) + 1)
  if (points.length < 4) return null
  let outstanding = 0
  let sent = 0
  const series = points.map((p) => {
    sent += p.sent
    outstanding += p.sent - p.completed - p.timeouts - p.errors
    return outstanding
  })
  const q = Math.floor(series.length / 4)
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
  const early = mean(series.slice(q, 2 * q))
  const late = mean(series.slice(series.length - q))
  const limit = Math.max(BACKLOG_MIN, BACKLOG_SHARE * sent)
  const growth = late - early
  const r1 = (x) => roundTo(x, 1)
  return { early: r1(early), late: r1(late), growth: r1(growth), limit, growing: growth > limit }
}

// Did a step (its round figures) hold the target: p99 ≤ sloMs, no errors (result/requests.js) and none
// unanswered (every request answered 2xx and verified), and the backlog not growing through it.
export function holds (fig, sloMs) {
  const q = fig.requests
  const clean = errorsOf(q) === 0 && q.unanswered === 0
  const steady = !fig.backlog?.growing
  return clean && steady && q.completed > 0 && fig.latency.p99 !== null && fig.latency.p99 <= sloMs
}

// The step past capacity: this multiple of it.
export const OVERLOAD = 1.2
// At most this many steps at one rate: then the majority of its steps decides.
export const MAX_TRIES = 3

// The verdict at one rate from its steps ([{ pass, disturbed }]): 'pass', 'fail' or 'pending' (measure
// it again). `contradicts`: a pass here would sit above a confirmed failure (it needs two passes) — and
// otherwise a failure needs two. Disturbed failures do not count until the rate has had MAX_TRIES steps;
// then the majority decides (a tie fails).
export function verdictAt (steps, { contradicts = false } = {}) {
  const passes = steps.filter((s) => s.pass).length
  const fails = steps.length - passes
  const counted = steps.filter((s) => !s.pass && !s.disturbed).length
  if (passes >= (contradicts ? 2 : 1) && passes > fails) return 'pass'
  if (counted >= (contradicts ? 1 : 2) && fails >= passes) return 'fail'
  if (steps.length >= MAX_TRIES) return passes > fails ? 'pass' : 'fail'
  return 'pending'
}

// The verdict at each rate of a sweep's steps (a Map, rate → verdict) (contradicting: above a confirmed failure).
export function verdicts (steps) {
  const byRate = new Map()
  for (const s of steps) {
    if (!byRate.has(s.rate)) byRate.set(s.rate, [])
    byRate.get(s.rate).push(s)
  }
  const rates = [...byRate.keys()].sort((a, b) => a - b)
  const out = new Map()
  let lowestFail = Infinity
  for (const rate of rates) {
    const v = verdictAt(byRate.get(rate), { contradicts: rate > lowestFail })
    out.set(rate, v)
    if (v === 'fail') lowestFail = Math.min(lowestFail, rate)
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

// The capacity found by a finished sweep (steps: { index, rate, kind, pass, disturbed, p99 }): the
// highest rate whose verdict is a pass (verdicts), with its bracket (that rate and the lowest failing
// rate above it), the step whose figures show it, the step past it (`over`), the failures a confirmed
// pass above them overruled, and the steps that were disturbed.
export function capacityOf (steps, { sloMs, idealRps }) {
  const byRate = verdicts(steps)
  const { lo, hi, overruled } = bracketOf(byRate)
  const best = steps.filter((s) => s.rate === lo && s.pass).at(-1) ?? null
  // The step past capacity: offered as such, or already measured at that rate (a bisection can land on it).
  const at = (s) => Math.abs(s.rate - lo * OVERLOAD) <= 1e-9 * lo
  const over = steps.find((s) => s.kind === 'over' && at(s)) ?? steps.find(at) ?? null
  // The knee is proven when a failure is confirmed at or below 1.2 × capacity; else (the sweep's step
  // limit) the capacity is a floor.
  const proven = hi !== null && hi <= lo * OVERLOAD * (1 + 1e-9)
  return {
    sloMs,
    rps: best?.rate ?? 0,
    // 'at least': the step past it did not fail, the real capacity may be higher
    bound: best === null ? 'below the lowest rate offered' : proven ? 'refined' : 'at least',
    bracket: { pass: best?.rate ?? null, fail: hi },
    ratioToIdeal: best && idealRps ? best.rate / idealRps : null,
    p99: best?.p99 ?? null,
    step: best?.index ?? null,
    over,
    overruled,
    repeated: steps.filter((s) => s.kind === 'repeat').length,
    disturbedSteps: steps.filter((s) => s.disturbed).map((s) => s.index)
  }
}
