// The capacity sweep's rule on synthetic servers (a fake measure function): repeats, monotone verdicts,
// the step past capacity that must fail, and the capacity with its bracket.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSweep } from '../../../loadtest/result/sweep.js'
import { BACKLOG, CLIMB, LENGTH, SWEEP_LIMITS } from '../../../loadtest/result/rules.js'

const MAX_STEPS = SWEEP_LIMITS.maxSteps // createSweep's default
import {
  backlogOf, backlogWaitMs, capacityOf, growingFor, heldAt, holdSecFor, judgeStep, verdictAt
} from '../../../loadtest/result/capacity.js'

const SLO = 50

// A step's figures: p99 well under or well over the target, optionally disturbed.
function figures (pass, disturbed = false) {
  const requests = { sent: 200, completed: 200, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const p99 = pass ? SLO / 2 : SLO * 10
  return { requests, latency: { p50: p99 / 4, p99 }, disturbed }
}

// Drive a sweep with measure(rate, i) → { pass, disturbed }; returns the steps as the result carries them.
function drive (sweep, measure) {
  const history = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    const m = measure(rate, history.length)
    history.push({ rate, figures: figures(m.pass, m.disturbed) })
    assert.ok(history.length <= MAX_STEPS, 'a sweep ends')
  }
  return history.map((h, i) => ({
    index: i,
    rate: h.rate,
    kind: sweep.kinds[i],
    pass: judgeStep(h.figures, SLO).call === 'pass',
    disturbed: h.figures.disturbed,
    ...h.figures.latency
  }))
}

// 2 cores, 10 ms of service: ideal 200 req/s; a server that holds up to `limit` req/s.
const sweepFor = () => createSweep({ serviceMs: 10, cores: 2, sloMs: SLO })
const upTo = (limit) => (rate) => ({ pass: rate <= limit })

test('sweep: coarse steps to the first failure (repeated before it counts), bisection, and an over-step that fails', () => {
  const steps = drive(sweepFor(), upTo(130))
  const coarse = steps.filter((s) => s.kind === 'coarse').map((s) => s.rate)
  // the fractions of the ideal up to the first over 130 req/s, the first failure
  const rates = CLIMB.fractions.map((f) => f * 200)
  const firstFail = rates.findIndex((r) => r > 130)
  assert.deepEqual(coarse, rates.slice(0, firstFail + 1), `up to ${rates[firstFail]} req/s, the first failure`)
  assert.equal(steps[0].kind, 'floor', 'the floor first')
  assert.equal(steps[firstFail + 2].kind, 'repeat', 'the first failure is measured again before it counts')
  assert.equal(steps[firstFail + 2].rate, rates[firstFail])
  const cap = capacityOf(steps, { sloMs: SLO, idealRps: 200 })
  assert.ok(cap.rps > 125 && cap.rps <= 130, `capacity ${cap.rps} lies just under the server's real limit`)
  assert.equal(cap.bound, 'refined')
  assert.ok(cap.bracket.fail > 130 && cap.bracket.fail <= rates[firstFail], 'the bracket: the lowest confirmed failure above')
  const over = steps.find((s) => s.kind === 'over')
  assert.equal(over.rate, cap.rps * CLIMB.overload)
  assert.equal(over.pass, false)
  assert.equal(steps.at(-1).rate, over.rate, 'the failing over-step ends the sweep')
})

test('sweep: one bad step does not end it — a failure that does not repeat is a pass', () => {
  // The first coarse step fails once (a stall), then holds when repeated.
  const stall = CLIMB.fractions[0] * 200
  assert.ok(stall <= 130, 'a rate the server holds')
  let stalled = false
  const steps = drive(sweepFor(), (rate) => {
    if (rate === stall && !stalled) {
      stalled = true
      return { pass: false }
    }
    return { pass: rate <= 130 }
  })
  const atStall = steps.filter((s) => s.rate === stall)
  assert.deepEqual(atStall.map((s) => s.pass), [false, true, true], 'measured again until the majority decides')
  assert.ok(steps.some((s) => s.rate === CLIMB.fractions[1] * 200), 'the coarse sweep went on past it')
  const cap = capacityOf(steps, { sloMs: SLO, idealRps: 200 })
  assert.ok(cap.rps > 125 && cap.rps <= 130, `capacity ${cap.rps} as without the stall`)
  assert.ok(cap.repeated >= 2)
})

test('sweep: a disturbed failure counts only after MAX_TRIES steps at its rate', () => {
  assert.equal(verdictAt([{ pass: false, disturbed: true }, { pass: false, disturbed: true }]), 'pending')
  assert.equal(verdictAt([{ pass: false, disturbed: true }, { pass: false, disturbed: true }, { pass: false, disturbed: true }]), 'fail')
  assert.equal(verdictAt([{ pass: false }, { pass: false }]), 'fail')
  assert.equal(verdictAt([{ pass: true }]), 'pass')
  assert.equal(verdictAt([{ pass: true }], { contradicts: true }), 'pending', 'a pass above a failure is re-measured')
  assert.equal(verdictAt([{ pass: false }], { contradicts: true }), 'fail', 'a failure above a failure agrees')
})

test('sweep: a passing over-step is re-measured and, holding again, the sweep goes on upward', () => {
  // The server fails from 145 to 155 req/s every time (noise in that band), yet holds from there to 190.
  const steps = drive(sweepFor(), (rate) => ({ pass: rate <= 145 || (rate > 155 && rate <= 190) }))
  const overs = steps.filter((s) => s.kind === 'over')
  assert.ok(overs.length >= 2, `${overs.length} over-steps: the sweep went on upward`)
  const firstOver = overs[0]
  assert.equal(firstOver.pass, true)
  const again = steps[firstOver.index + 1]
  assert.equal(again.kind, 'repeat', 'the pass above a confirmed failure is measured again')
  assert.equal(again.rate, firstOver.rate)
  const cap = capacityOf(steps, { sloMs: SLO, idealRps: 200 })
  assert.ok(cap.rps > 155 && cap.rps <= 190, `capacity ${cap.rps} moved up past the overruled failure`)
  assert.ok(cap.overruled.includes(150), 'the failure at 150 req/s is named as overruled')
  assert.ok(cap.bracket.fail > 190, 'the bracket ends at a confirmed failure above the capacity')
  const byRate = (r) => steps.filter((s) => s.rate === r)
  assert.equal(byRate(cap.bracket.fail).at(-1).pass, false)
})

test('sweep: steps last long enough for the minimum of requests; no calibration, no sweep', () => {
  const sweep = createSweep({ serviceMs: 10, cores: 2, minRequests: 200, minDurationSec: 3, maxStepSec: 8 })
  assert.equal(sweep.durationFor(20), 10, 'past maxStepSec (8 s), lengthened for its 200 requests')
  assert.equal(sweep.durationFor(5), 24, 'lengthened at most LENGTH.lengthen × maxStepSec: 120 requests')
  const byDefault = createSweep({ serviceMs: 10, cores: 2 })
  assert.equal(byDefault.durationFor(1), LENGTH.lengthen * SWEEP_LIMITS.maxStepSec, 'settings.js by default, lengthened')
  assert.equal(sweep.durationFor(50), 4)
  assert.equal(sweep.durationFor(1000), 3)
  assert.equal(sweep.describe().minRequests, 200)
  assert.equal(createSweep({ serviceMs: null, cores: 2 }).next([]), null)
})

test('backlog: outstanding requests that grow through a step fail it, a steady queue does not', () => {
  const point = (sent, completed) => ({ phase: 'round', sent, completed, timeouts: 0, errors: 0 })
  const steady = { points: Array.from({ length: 20 }, () => point(10, 10)) }
  const growing = { points: Array.from({ length: 20 }, () => point(10, 7)) }
  assert.equal(backlogOf(steady).growing, false)
  const b = backlogOf(growing)
  assert.equal(b.growing, true)
  assert.ok(b.growth > b.limit)
  const fig = { ...figures(true), backlog: b }
  assert.equal(judgeStep(fig, SLO).call === 'pass', false, 'a p99 within the target does not hold with a growing backlog')
  assert.equal(backlogOf({ points: [point(1, 1)] }), null)
})

test('backlog: a slow growth fails a short step when it would add more wait than the target within the brute force\'s 600 requests', () => {
  // queued-threads on loop:3e7 at 78 req/s for 3.9 s (39 points of 100 ms): the outstanding requests
  // climb from about 3.7 to 8.1, under the share rule's limit (5 % of 305 sent), p99 110 ms ≤ 122.6 ms
  const t = (i) => i * 100
  const points = Array.from({ length: 39 }, (_, i) => ({
    t: t(i), phase: 'round', sent: i % 5 === 4 ? 7 : 8, completed: i % 5 === 4 ? 7 : (i % 4 === 0 ? 7 : 8), timeouts: 0, errors: 0
  }))
  const b = backlogOf({ intervalMs: 100, points })
  assert.equal(b.growing, false, `by the share rule alone it holds: ${JSON.stringify(b)}`)
  assert.ok(b.growth > 3 && b.perSec > 1, JSON.stringify(b))
  const fig = { ...figures(true), backlog: b, open: { rate: 78 } }
  const wait = backlogWaitMs(b, 78)
  assert.ok(wait > 122.6, `${wait} ms more wait within ${BACKLOG.horizon} requests`)
  assert.equal(growingFor(fig, 122.6), true)
  assert.equal(judgeStep(fig, 122.6).call, 'fail')
  assert.equal(judgeStep(fig, 122.6).fault, 'backlog')
  assert.equal(judgeStep(fig, 2 * wait).call, 'pass', 'against a target the added wait stays within, it holds')
  // noise: the same queue a few requests up and down, or a growth at a low rate under BACKLOG_MIN, holds
  const jitter = (p, i) => ({ ...p, completed: p.sent + (i % 2 ? -1 : 1) * (i > 0 ? 1 : 0) })
  const flat = backlogOf({ intervalMs: 100, points: points.map(jitter) })
  assert.equal(growingFor({ ...figures(true), backlog: flat, open: { rate: 78 } }, 122.6), false, JSON.stringify(flat))
  assert.equal(backlogWaitMs({ growth: 2.5, perSec: 0.2 }, 10), null, 'a growth under BACKLOG_MIN is noise whatever the rate')
})

test('capacity: a bisection that lands on 1.2 × capacity proves the knee; the sweep does not offer it again', () => {
  // lo 100, then a failure confirmed at exactly 120 (a refine step): no over-step, and the bound is refined.
  const steps = [
    { index: 0, rate: 100, kind: 'coarse', pass: true, disturbed: false, p99: 10 },
    { index: 1, rate: 150, kind: 'coarse', pass: false, disturbed: false, p99: 500 },
    { index: 2, rate: 150, kind: 'repeat', pass: false, disturbed: false, p99: 500 },
    { index: 3, rate: 100 * CLIMB.overload, kind: 'refine', pass: false, disturbed: false, p99: 500 },
    { index: 4, rate: 100 * CLIMB.overload, kind: 'repeat', pass: false, disturbed: false, p99: 500 }
  ]
  const cap = capacityOf(steps, { sloMs: SLO, idealRps: 200 })
  assert.equal(cap.rps, 100)
  assert.equal(cap.bound, 'refined', 'a failure confirmed at 1.2 × capacity proves the knee')
  assert.equal(cap.over.index, 3, 'the step at 1.2 × capacity, whatever its kind')
  assert.deepEqual(cap.bracket, { pass: 100, fail: 100 * CLIMB.overload })
})

test('sweep: the hold rule — a short pass above a sharp knee is measured again for long enough, and its failure lowers the capacity', () => {
  // A pool with a sharp knee at 100 req/s: a step shorter than 1.5 s holds up to 130 (its backlog too small to
  // show yet), a longer one only up to 100. Short steps (p95: 59 requests, 0.5 to 1 s), climbing from 30 % of the
  // ideal so that a short step passes above the knee.
  const fractions = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2]
  const brief = { share: 0.05, minRequests: 59, minDurationSec: 0.5, maxStepSec: 1, refine: 1 }
  const sweep = createSweep({ serviceMs: 10, cores: 2, sloMs: SLO, ...brief, fractions })
  const history = []
  const lengths = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    const sec = sweep.durationFor(rate)
    lengths.push(sec)
    history.push({ rate, figures: figures(rate <= (sec < 1.5 ? 130 : 100)) })
    assert.ok(history.length <= 30, 'a sweep ends')
  }
  const steps = history.map((h, i) => ({
    index: i,
    rate: h.rate,
    kind: sweep.kinds[i],
    sec: sweep.lengths[i],
    ...judgeStep(h.figures, SLO),
    ...h.figures.latency
  }))
  const holdSec = holdSecFor(figures(true).latency.p50, SLO)
  assert.equal(holdSec, 2, '3 × (50 − 6.25 ms) / 8 % is 1.7 s: at least the default run\'s shortest step, 2 s')
  const holds = steps.filter((s) => s.kind === 'hold')
  assert.ok(holds.length >= 2, `${holds.length} hold steps: the first failed, the lowered capacity held`)
  assert.ok(holds.every((s) => s.sec >= holdSec), 'each as long as the rule asks')
  assert.ok(holds[0].rate > 100 && holds[0].call === 'fail', `the short pass at ${holds[0].rate} req/s did not hold`)
  const rule = { sloMs: SLO, idealRps: 200, share: 0.05, hold: sweep.describe().hold, longestStepSec: 3 }
  const cap = capacityOf(steps, rule)
  assert.ok(cap.rps <= 100 && cap.rps > 80, `capacity ${cap.rps} at or under the knee a long step shows`)
  assert.equal(cap.held, true)
  assert.equal(cap.holdSec, holdSec)
  // without its hold step the same short passes leave the capacity above the knee, and not held
  const short = steps.filter((s) => s.kind !== 'hold')
  const unheld = capacityOf(short, rule)
  assert.ok(unheld.rps > 100, `${unheld.rps}`)
  assert.equal(unheld.held, false)
  assert.equal(heldAt(short, cap.rps, holdSec), false)
})

test('sweep: a capacity found on steps as long as the hold rule asks gets no hold step', () => {
  // the default run's steps (2 to 10 s) last the 2 s asked: nothing to hold again
  const steps = drive(sweepFor(), upTo(130))
  assert.equal(steps.filter((s) => s.kind === 'hold').length, 0)
})
