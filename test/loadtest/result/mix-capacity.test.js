// A capacity with a request mix whose weights leave a class rare (99:1, 999:1, 1:1e-300; issue 48 H2): a step
// where a class has too few requests to judge is undecided — measured again, lengthened, or "undecided" —
// never a failure of that class. A class that did fail still fails the step.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { capacityOf, judgeStep } from '../../../loadtest/result/capacity.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { capacitySweep } from '../../../loadtest/experiments/capacity.js'
import { QUICK, SWEEP_LIMITS } from '../../../loadtest/result/rules.js'
import { requestFactor } from '../../../loadtest/result/mix.js'
import { reasonText } from '../../../loadtest/text/reasons.js'

const SLO = 50

// One class's figures: n requests answered in `ms` each, `errors` of them failed.
function cls (name, n, { ms = 5, errors = 0 } = {}) {
  const h = createHistogram()
  for (let i = 0; i < n - errors; i++) recordMs(h, ms)
  const requests = { sent: n, completed: n - errors, errors, timeouts: 0, non2xx: 0, mismatches: 0 }
  const latency = n - errors > 0 ? { p50: ms, p99: ms, max: ms } : { p50: null, p99: null, max: null }
  return { name, requests, latency, histogram: encodeHistogram(h), sloMs: null }
}

// A mixed step's round figures from its classes: the round whole is their sum, healthy (no backlog).
function mixed (classes, rate = 10) {
  const sum = (k) => classes.reduce((a, c) => a + c.requests[k], 0)
  const requests = { sent: sum('sent'), completed: sum('completed'), errors: sum('errors'), timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const h = createHistogram()
  for (let i = 0; i < requests.completed; i++) recordMs(h, 5)
  return {
    requests,
    latency: { p50: 5, p99: 5, max: 5 },
    histograms: { latency: encodeHistogram(h) },
    backlog: null,
    open: { rate, lag: { p99: 1 } },
    classes
  }
}

test('a mixed step\'s failure names its class as data ({ code: \'class-fail\', … }); text/ says it', () => {
  const slow = judgeStep(mixed([cls('a', 400), cls('b', 400, { ms: 80 })]), SLO)
  assert.equal(slow.call, 'fail')
  assert.deepEqual(slow.why, { code: 'class-fail', cls: 'b', sloMs: SLO, fault: null, failed: null })
  assert.equal(reasonText(slow.why), `class b: p99 over the target (${SLO} ms)`)
  const broken = judgeStep(mixed([cls('a', 400), cls('b', 400, { errors: 3 })]), SLO)
  assert.deepEqual([broken.why.cls, broken.why.fault, broken.why.failed], ['b', 'requests', 3])
  assert.equal(reasonText(broken.why), `class b: 3 failed requests (${SLO} ms)`)
})

test('a class a step did not draw, or drew too few of, is undecided, never failed', () => {
  // the floor step of the report: 159 requests, none of class b
  const none = judgeStep(mixed([cls('a', 159), cls('b', 0)]), SLO)
  assert.equal(none.call, 'undecided', JSON.stringify(none))
  assert.equal(none.why, null, 'nothing failed: no "class b: no answer"')
  // a handful of b's, all fast: too few to show its percentile, so undecided too
  assert.equal(judgeStep(mixed([cls('a', 400), cls('b', 3)]), SLO).call, 'undecided')
  // enough of both, both fast: a pass; a class that failed still fails the step, by name
  assert.equal(judgeStep(mixed([cls('a', 400), cls('b', 400)]), SLO).call, 'pass')
  const failed = judgeStep(mixed([cls('a', 400), cls('b', 3, { errors: 1 })]), SLO)
  assert.equal(failed.call, 'fail')
  assert.equal(failed.cls, 'b')
})

// Drive a --quick capacity sweep with a mix of these weights against a healthy service (every request 5 ms,
// the service never saturates below 1,000 req/s): class b drawn every `1 / share` requests in order.
function sweepWith (weights) {
  const mix = { requests: weights.map((weight, k) => ({ name: 'ab'[k], weight })) }
  const settings = { ...QUICK, durationSec: SWEEP_LIMITS.minDurationSec }
  const make = capacitySweep({ settings, user: {} }, [SLO])
  const sweep = make({ serviceMs: 5, cores: 2, requestFactor: requestFactor(mix) })
  const shareB = weights[1] / (weights[0] + weights[1])
  const history = []
  let drawn = 0 // requests drawn so far, over every step (class b at each multiple of 1 / shareB)
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    const n = Math.max(1, Math.round(rate * sweep.durationFor(rate)))
    const b = Math.floor((drawn + n) * shareB) - Math.floor(drawn * shareB)
    drawn += n
    history.push({ rate, figures: mixed([cls('a', n - b), cls('b', b)], rate) })
    assert.ok(history.length <= 40, 'a sweep ends')
  }
  const steps = history.map((h, i) => ({
    index: i, rate: h.rate, kind: sweep.kinds[i], sec: sweep.lengths[i], ...judgeStep(h.figures, SLO)
  }))
  return { steps, capacity: capacityOf(steps, { sloMs: SLO, idealRps: 400 }) }
}

test('capacity with weights 99:1, 999:1 and 1:1e-300 on a healthy service: no step fails, no class fails', () => {
  for (const weights of [[99, 1], [999, 1], [1, 1e-300]]) {
    const { steps, capacity } = sweepWith(weights)
    assert.deepEqual(steps.filter((s) => s.call === 'fail').map((s) => [s.rate, s.why]), [], `${weights}: a step failed`)
    assert.notEqual(capacity.bound, 'cannot-meet', `${weights}: a healthy service cannot fail to meet 50 ms`)
    assert.notEqual(capacity.bound, 'below-lowest', `${weights}`)
    // what could not be judged is said so: a capacity from the steps that decided, or undecided with why
    assert.ok(capacity.rps > 0 || capacity.bound === 'undecided', `${weights}: ${capacity.bound}`)
  }
})
