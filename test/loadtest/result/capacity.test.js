// The capacity rules on synthetic steps with real latency histograms: the sample-size rule (how many
// requests decide p99), a failure the generator's lag could flip repeated, and the floor: a capacity
// that cannot be met is null with its floor, never 0.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { capacityAtTargets, capacityOf, judgeStep, percentileCall, requestsToShow, verdictAt } from '../../../loadtest/result/capacity.js'
import { stepFigures } from '../../../loadtest/result/figures.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { createSweep } from '../../../loadtest/result/sweep.js'
import { capacityLine } from '../../../loadtest/text/sentences.js'
import { boundText } from '../../../loadtest/text/reasons.js'
import { FLOOR, SAMPLE, TIE } from '../../../loadtest/result/rules.js'
import { capacitiesTie } from '../../../loadtest/result/decision.js'

const SLO = 115

// A step's round figures: n requests at 40 ms, `over` of them at 400 ms; an open loop with a lag p99.
function figures (n, over = 0, { lag = 1, p99 = null, p50 = 40 } = {}) {
  const h = createHistogram()
  for (let i = 0; i < n - over; i++) recordMs(h, 40)
  for (let i = 0; i < over; i++) recordMs(h, 400)
  const requests = { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const shown = p99 ?? (over / n > 0.01 ? 400 : 40)
  const histograms = { latency: encodeHistogram(h) }
  return { requests, latency: { p50, p99: shown }, histograms, open: { lag: { p99: lag } } }
}

test('sample size: p99 needs 299 requests with none over, 473 with one, 628 with two', () => {
  assert.equal(requestsToShow(0), 299)
  assert.equal(requestsToShow(1), 473)
  assert.equal(requestsToShow(2), 628)
  assert.equal(percentileCall(298, 0), 'undecided')
  assert.equal(percentileCall(299, 0), 'pass')
  assert.equal(percentileCall(200, 0), 'undecided', 'the old 200-request step could not show p99')
  assert.equal(percentileCall(300, 20), 'fail', '20 of 300 over: p99 is above the target')
  assert.equal(percentileCall(300, 4), 'undecided', 'p99 near the target: more requests needed')
  // a step is judged on its histogram: the count over the target, not a point p99
  assert.deepEqual({ ...judgeStep(figures(299), SLO), why: null }, { n: 299, over: 0, inDoubt: false, call: 'pass', why: null })
  assert.equal(judgeStep(figures(200), SLO).call, 'undecided')
  assert.equal(judgeStep(figures(300, 30), SLO).call, 'fail')
})

test('sample size: undecided steps at a rate pool their requests until they decide (the sequential rule)', () => {
  const step = (fig) => ({ ...judgeStep(fig, SLO), disturbed: false })
  // 300 requests with one over: p99 ≤ target is not shown; the rate is measured again
  const first = step(figures(300, 1))
  assert.equal(first.call, 'undecided')
  assert.equal(verdictAt([first]), 'pending')
  // pooled with 300 more with none over: 600 requests, one over, decide p99 within the target
  assert.equal(verdictAt([first, step(figures(300, 0))]), 'pass')
  // three undecided steps whose pool does not decide: undecided at the cap, never a verdict
  const near = step(figures(150, 2))
  assert.equal(near.call, 'undecided')
  assert.equal(verdictAt([near, near]), 'pending')
  assert.equal(verdictAt([near, near, near]), 'undecided', '6 of 450 over: too few requests to decide p99')
  // noise only adds time: disturbed steps with none over still pool toward a pass
  const noisy = { ...step(figures(150, 0)), disturbed: true }
  assert.equal(verdictAt([noisy, noisy]), 'pass', '300 requests, none over, though disturbed')
  // a pooled failure of disturbed steps does not count until the cap
  const three = step(figures(100, 3))
  assert.equal(three.call, 'undecided', '3 of 100 over')
  // above a confirmed failure one counted failure decides: pooled, 6 of 200 over show p99 above the target
  assert.equal(verdictAt([three, three], { contradicts: true }), 'fail')
  const noisyThree = { ...three, disturbed: true }
  assert.equal(verdictAt([noisyThree, noisyThree], { contradicts: true }), 'pending', 'but not when the pool was disturbed')
})

test('lag rule: a failure the lag could flip is in doubt and repeated; one it cannot flip counts', () => {
  // p99 120 ms against 115 ms with lag p99 8 ms: in doubt
  const doubt = judgeStep(figures(300, 30, { p99: 120, lag: 8 }), SLO)
  assert.equal(doubt.call, 'fail')
  assert.equal(doubt.inDoubt, true)
  // p99 400 ms with lag p99 13 ms: stands
  const stands = judgeStep(figures(300, 30, { lag: 13 }), SLO)
  assert.equal(stands.inDoubt, false)
  const s = (j) => ({ ...j, disturbed: false })
  assert.equal(verdictAt([s(stands), s(stands)]), 'fail', 'two failures that stand confirm it')
  assert.equal(verdictAt([s(doubt), s(doubt)]), 'pending', 'failures in doubt do not count yet')
  assert.equal(verdictAt([s(doubt), s(doubt), s(doubt)]), 'fail', 'at MAX_TRIES the majority decides')
  // in a sweep: after the floor, the first coarse step fails in doubt, the next step is the same rate again
  const sweep = createSweep({ serviceMs: 10, cores: 2, sloMs: SLO, minRequests: 300 })
  const history = []
  history.push({ rate: sweep.next(history), figures: figures(300, 0, { p50: 10 }) })
  const rate = sweep.next(history)
  assert.equal(sweep.kinds[1], 'coarse')
  history.push({ rate, figures: figures(300, 30, { p99: 120, lag: 8 }) })
  assert.equal(sweep.next(history), rate)
  assert.equal(sweep.kinds[2], 'repeat')
})

test('floor: a floor above the target gives capacity null with "cannot meet the target", never 0', () => {
  // child-process: p99 195 ms at the lowest rate offered (3.2 req/s, p50 70 ms: a true floor), every rate
  // above fails too
  const steps = [
    { index: 0, rate: 31.3, kind: 'coarse', call: 'fail', p50: 3000, p99: 6200, n: 200, over: 190 },
    { index: 1, rate: 31.3, kind: 'repeat', call: 'fail', p50: 3100, p99: 6400, n: 200, over: 190 },
    { index: 2, rate: 6.4, kind: 'refine', call: 'fail', p50: 100, p99: 175, n: 64, over: 30 },
    { index: 3, rate: 6.4, kind: 'repeat', call: 'fail', p50: 101, p99: 180, n: 64, over: 31 },
    { index: 4, rate: 3.2, kind: 'refine', call: 'fail', p50: 71, p99: 195, n: 32, over: 12 },
    { index: 5, rate: 3.2, kind: 'repeat', call: 'fail', p50: 69, p99: 195, n: 32, over: 11 }
  ]
  const cap = capacityOf(steps, { sloMs: SLO, idealRps: 100 })
  assert.equal(cap.rps, null)
  assert.equal(cap.bound, 'cannot-meet')
  assert.deepEqual(cap.floor, { rps: 3.2, p50: 70, p99: 195, requests: 64, overlap: 0.224, true: true })
  // the same failures on a floor whose requests overlapped (p50 98 ms at 3.2 req/s) show nothing
  const overlapped = steps.map((s) => (s.rate === 3.2 ? { ...s, p50: 98 } : s))
  const saturated = capacityOf(overlapped, { sloMs: SLO, idealRps: 100 })
  assert.deepEqual([saturated.bound, saturated.undecided], ['undecided', { code: 'floor-overlap', overlap: 0.314, limit: FLOOR.overlap }])
  assert.equal(boundText(saturated), 'undecided: the floor was not measured where requests do not overlap ' +
    `(rate × p50 0.314 > ${FLOOR.overlap})`)
  assert.equal(cap.ratioToIdeal, null)
  assert.equal(cap.sensitive, false, '195 ms is more than 1.5 × of 115 ms')
  assert.equal(capacityLine('child-process', cap), 'child-process cannot meet p99 ≤ 115 ms at any rate tried: p99 195 ms at 3.2 req/s')
  // at 172 ms the floor is within 1.5 × of the target: the line says a slightly looser one may be met
  const at172 = capacityOf(steps.map((s) => (s.rate === 3.2 ? { ...s, p99: 172 } : s)), { sloMs: SLO, idealRps: 100 })
  assert.equal(at172.sensitive, true)
  assert.equal(capacityLine('child-process', at172), 'child-process cannot meet p99 ≤ 115 ms at any rate tried: p99 172 ms at 3.2 req/s ' +
    '(within 1.5 × of the target: a slightly looser one may be met)')
  // a floor at 106 ms: the capacity exists but is sensitive to the target
  const near = [
    { index: 0, rate: 4, kind: 'refine', call: 'pass', p50: 60, p99: 106, n: 300, over: 0 },
    { index: 1, rate: 8, kind: 'refine', call: 'fail', p50: 90, p99: 300, n: 300, over: 40 },
    { index: 2, rate: 8, kind: 'repeat', call: 'fail', p50: 90, p99: 300, n: 300, over: 40 }
  ]
  const c = capacityOf(near, { sloMs: SLO, idealRps: 100 })
  assert.equal(c.rps, 4)
  assert.equal(c.sensitive, true)
  // the bracket's stated confidence: each end wrong at most 5 %, so 90 %; a lower bound 95 %; no pass, none
  assert.deepEqual([c.confidence, SAMPLE.bracketConfidence], [0.9, 0.9], 'with SAMPLE.confidence 0.95')
  assert.equal(capacityOf(near.slice(0, 1), { sloMs: SLO, idealRps: 100 }).confidence, SAMPLE.confidence)
  assert.equal(cap.confidence, null)
  assert.match(capacityLine('worker-per-request', c), /within 1.5 × of its floor \(p99 106 ms at 4 req\/s\): its capacity is sensitive/)
  // no rate passed, but the floor's p99 is within the target (its steps failed otherwise): null as well
  const errors = [{ index: 0, rate: 10, kind: 'floor', call: 'fail', p50: 20, p99: 40, n: 300, over: 0 }]
  const e = capacityOf([...errors, { ...errors[0], index: 1, kind: 'repeat' }], { sloMs: SLO, idealRps: 100 })
  assert.equal(e.rps, null)
  assert.equal(e.bound, 'below-lowest')
  assert.equal(capacityLine('x', { ...cap, floor: null }), null)
})

test('ruled out: a failure confirmed the tie margin under the leaders\' pass bounds the capacity, with a pass or without one', () => {
  const steps = [
    { index: 0, rate: 2, kind: 'floor', call: 'pass', p50: 60, p99: 80, n: 300, over: 0 },
    { index: 1, rate: 25, kind: 'coarse', call: 'fail', p50: 900, p99: 2000, n: 300, over: 290 }
  ]
  const at = (lead, s = steps) => capacityOf(s, { sloMs: SLO, idealRps: 100, lead })
  assert.deepEqual([at(60).rps, at(60).bound, at(60).bracket], [2, 'ruled-out', { pass: 2, fail: 25 }])
  assert.equal(at(null).bound, 'at-least', 'without leaders a wide bracket is a lower bound')
  assert.equal(at(20).bound, 'at-least', 'a failure above the leader\'s pass rules nothing out')
  // a failure the tie margin under the leader's pass: its capacity lies under it, the leader's at or above the pass,
  // so that neither their brackets overlap nor is it within the margin: it can neither win nor tie
  const edge = (25 / (1 - TIE.capacityMargin)) * (1 + 1e-9) // the failure at 25 just the margin under it
  assert.equal(at(edge).bound, 'ruled-out', 'a failure the margin under the leader\'s pass rules it out')
  const under = { rps: 24.99, bracket: { pass: 24.99, fail: 25 } } // the most it could hold
  assert.equal(capacitiesTie(under, { rps: edge, bracket: { pass: edge, fail: 30 } }), false, 'the decision sees no tie')
  assert.equal(at(edge * 0.99).bound, 'at-least', 'a failure within the margin of the leader\'s pass rules nothing out: it may tie')
  // no pass: its floor's failure awaits its repeat, yet nothing it could show would reach the leader
  const pending = [{ ...steps[0], call: 'fail', p99: 130, over: 20 }, steps[1]]
  assert.deepEqual([at(60, pending).rps, at(60, pending).bound], [null, 'ruled-out'])
  assert.equal(at(null, pending).bound, 'undecided')
  assert.equal(boundText(at(60, pending)), 'ruled out: a failure confirmed 8 % or more under the leader\'s capacity')
})

test('several targets from one sweep: each step judged again, the floor says which targets cannot be met', () => {
  // a step of 300 requests at 40 ms with 10 at 400 ms: p99 400 ms
  const fig = { ...figures(300, 10), backlog: null, durationMs: 60000, rps: 5, open: { rate: 5, lag: { p99: 1 } } }
  const step = stepFigures(fig, 0, 'floor', SLO)
  assert.equal(step.call, 'fail', '10 of 300 over 115 ms')
  const [once] = capacityAtTargets([step], [fig], { targets: [SLO], idealRps: 200 })
  assert.deepEqual([once.bound, once.undecided], ['undecided', { code: 'lowest-pending' }], 'one marginal failure is no verdict')
  assert.equal(boundText(once), 'undecided: a failure at the lowest rate not confirmed')
  const again = { ...step, index: 1, kind: 'repeat' }
  const [tight, loose] = capacityAtTargets([step, again], [fig, fig], { targets: [SLO, 500], idealRps: 200 })
  assert.equal(tight.rps, null)
  assert.equal(tight.bound, 'cannot-meet', 'p99 400 ms at the lowest rate offered')
  assert.equal(loose.rps, 5, 'none of 300 over 500 ms')
})
