// The sweep finds each strategy's range itself, and gives no verdict without its evidence: synthetic
// strategies (step outcomes with real latency histograms, no servers), one test per rule. Each step holds
// the requests its planned length gives at its rate, so a step too short for its sample shows it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSweep } from '../../../loadtest/result/sweep.js'
import { FLOOR, SLO, SWEEP_LIMITS } from '../../../loadtest/result/rules.js'
import { RATE_RANGE } from '../../../loadtest/settings.js'
import { roundTo } from '../../../loadtest/result/stats.js'
import { capacityOf, judgeStep, verdicts } from '../../../loadtest/result/capacity.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'

// A strategy whose lone request takes floorMs and that holds up to `knee` req/s: below it every request
// takes floorMs; above it a share of them (10 % just past the knee, half from 1.2 × on) queue, for
// 10 × floorMs × rate / knee (at least twice the target). Figures of a step of `sec` s at `rate`.
function strategy ({ floorMs, knee, sloMs }) {
  return (rate, sec) => {
    const n = Math.max(1, Math.round(rate * sec))
    const share = rate <= knee ? 0 : Math.min(1, 0.1 + (rate / knee - 1) * 2)
    const slow = Math.ceil(share * n)
    const h = createHistogram()
    for (let i = 0; i < n; i++) recordMs(h, i < slow ? Math.max(2 * sloMs, (10 * floorMs * rate) / knee) : floorMs)
    const requests = { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
    const at = (p) => h.getValueAtPercentile(p) / 1000
    const histograms = { latency: encodeHistogram(h) }
    return { requests, latency: { p50: at(50), p99: at(99) }, histograms, disturbed: false }
  }
}

// Run a sweep to its end against a strategy; the steps as build.js makes them, each with its planned length.
function drive (sweep, measure) {
  const history = []
  const secs = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    const sec = sweep.durationFor(rate)
    secs.push(sec)
    history.push({ rate, figures: measure(rate, sec) })
    assert.ok(history.length <= SWEEP_LIMITS.maxSteps, 'a sweep ends')
  }
  const d = sweep.describe()
  const steps = history.map((h, i) => ({
    index: i,
    rate: h.rate,
    kind: sweep.kinds[i],
    sec: secs[i],
    ...h.figures.latency,
    ...judgeStep(h.figures, d.sloMs, d)
  }))
  return { steps, capacity: capacityOf(steps, d), describe: d }
}

test('range: a strategy whose capacity is 1/20 of its ideal is found by working down from the first failure', () => {
  // 10 ms of service on 2 cores: ideal 200 req/s; the strategy holds 10 req/s (a cost per request)
  const knee = 10
  const sweep = createSweep({ serviceMs: 10, cores: 2, sloMs: 50, maxStepSec: 8 })
  const { steps, capacity } = drive(sweep, strategy({ floorMs: 10, knee, sloMs: 50 }))
  assert.ok(capacity.rps <= knee && capacity.bracket.fail > knee, `bracket ${capacity.rps}–${capacity.bracket.fail} holds ${knee}`)
  assert.ok(capacity.bracket.fail <= 1.2 * capacity.rps * (1 + 1e-9), 'refined to within 1.2 ×')
  assert.equal(capacity.bound, 'refined')
  assert.ok(steps.some((s) => s.kind === 'down'), `searched down: ${steps.map((s) => s.kind).join(', ')}`)
  assert.ok(capacity.ratioToIdeal < 0.06, 'far below the ideal, which only seeded the search')
})

test('range: a first-target failure far above the floor is searched down before the looser targets climb on, within the budget', () => {
  // a thread per request (as worker-per-request on loop:3e7): 24.6 ms calibrated (ideal 81 req/s), a lone
  // request 75 ms; it holds 20 req/s; at 24.4 req/s (the first coarse step) it sits on its knee: p99 over the
  // first target (123 ms) but within the looser ones, and its steps there fail, pass, fail (as measured on
  // 2026-11-26 16:04 UTC); from 30 req/s on it collapses. With a 100 s budget the first target's search down
  // must come before the looser targets' climb, or the budget is spent first and nothing is decided.
  const tries = new Map()
  const measure = (rate, sec) => {
    const k = (tries.get(rate) ?? 0) + 1
    tries.set(rate, k)
    const slowShare = rate <= 20 ? 0 : rate < 30 ? (k === 2 ? 0 : 0.05) : 0.9
    const slowMs = rate < 30 ? 180 : 5000
    const n = Math.max(1, Math.round(rate * sec))
    const h = createHistogram()
    for (let i = 0; i < n; i++) recordMs(h, i < Math.ceil(slowShare * n) ? slowMs : 75)
    const requests = { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
    const at = (p) => h.getValueAtPercentile(p) / 1000
    const histograms = { latency: encodeHistogram(h) }
    return { requests, latency: { p50: at(50), p99: at(99) }, histograms, disturbed: false }
  }
  const sweep = createSweep({ serviceMs: 24.6, cores: 2, slos: [123, 246, 616], budgetSec: 100 })
  const { steps, capacity } = drive(sweep, measure)
  const kinds = steps.map((s) => `${s.kind} ${s.rate.toFixed(1)}`).join(', ')
  const down = steps.findIndex((s) => s.kind === 'down')
  const climbPastFailure = steps.findIndex((s, i) => i > 2 && s.kind === 'coarse')
  assert.ok(down > 0, `searched down: ${kinds}`)
  assert.ok(climbPastFailure === -1 || climbPastFailure > down, `down before the looser climb: ${kinds}`)
  assert.ok(capacity.rps !== null && capacity.rps <= 20,
    `a capacity at the first target, at most the knee: ${capacity.rps} (${capacity.bound}; ${kinds})`)
  assert.ok(capacity.bracket.fail > 20)
})

test('range: the ideal seeds the climb and never bounds it (a capacity 3 × the calibrated ideal)', () => {
  const knee = 600 // the calibration said 10 ms, the work takes about 3
  const sweep = createSweep({ serviceMs: 10, cores: 2, sloMs: 50, maxStepSec: 8 })
  const { steps, capacity } = drive(sweep, strategy({ floorMs: 3, knee, sloMs: 50 }))
  assert.ok(capacity.rps <= knee && capacity.bracket.fail > knee, `bracket ${capacity.rps}–${capacity.bracket.fail} holds ${knee}`)
  assert.ok(steps.some((s) => s.kind === 'coarse' && s.rate > 1.2 * 200), 'coarse steps went on past the ideal\'s last fraction')
})

test('evidence: a step that cannot reach its sample size is lengthened, and past that is undecided, never failed', () => {
  // 100 ms of service: ideal 20 req/s; the strategy holds 4 req/s at 30 ms, target 500 ms; steps of 2 s,
  // lengthened up to 6 s: 18 requests at 3 req/s, far from the 299 that show p99
  const knee = 4
  const sweep = createSweep({ serviceMs: 100, cores: 2, sloMs: 500, minDurationSec: 1, maxStepSec: 2 })
  const { steps, capacity } = drive(sweep, strategy({ floorMs: 30, knee, sloMs: 500 }))
  const low = steps.filter((s) => s.rate <= knee && s.kind !== 'floor')
  assert.ok(low.length > 0, `a step below the knee: ${steps.map((s) => `${s.kind} ${s.rate}`).join(', ')}`)
  for (const s of low) {
    assert.ok(s.sec > 2, `${s.rate} req/s: lengthened past maxStepSec (${s.sec} s)`)
    assert.notEqual(s.call, 'fail', `${s.rate} req/s with none over is never failed`)
  }
  const byRate = verdicts(steps)
  assert.ok(low.every((s) => byRate.get(s.rate) !== 'fail'), 'no rate below the knee is failed')
  assert.equal(capacity.rps, null, 'no rate showed p99 within the target')
  assert.equal(capacity.bound, 'undecided', capacity.bound)
  assert.ok(capacity.bracket.fail > knee, 'the failure it knows is above the knee')
})

test('evidence: a budget cut while the lowest rate is undecided is undecided (budget-spent), with the bracket so far', () => {
  // 8.2 ms of service, ideal 245 req/s, the strategy holds 100 req/s; a budget that ends after a failure
  const sweep = createSweep({
    serviceMs: 8.2, cores: 2, sloMs: 41, fractions: [0.6], minDurationSec: 0.5, maxStepSec: 0.6, budgetSec: 12
  })
  const { steps, capacity, describe } = drive(sweep, strategy({ floorMs: 8, knee: 100, sloMs: 41 }))
  assert.equal(describe.budget.cut, 'sweep')
  const lowest = Math.min(...steps.map((s) => s.rate))
  assert.ok(steps.filter((s) => s.rate === lowest).every((s) => s.call !== 'fail'), 'the lowest rate held every request')
  assert.equal(capacity.rps, null)
  assert.deepEqual([capacity.bound, capacity.undecided], ['undecided', { code: 'budget-spent' }])
  assert.ok(capacity.bracket.fail > 100, `the failure so far: ${capacity.bracket.fail} req/s`)
})

test('floor: a saturated floor is measured again lower; "cannot meet" only from a true floor', () => {
  // a fork per request: 60 ms alone, 8.2 ms calibrated (the first floor guess, 24 req/s, overlaps)
  const measure = strategy({ floorMs: 60, knee: 20, sloMs: 41 })
  const { steps, capacity } = drive(createSweep({ serviceMs: 8.2, cores: 2, sloMs: 41, maxStepSec: 8 }), measure)
  const floors = steps.filter((s) => s.kind === 'floor')
  assert.ok(floors.length >= 2, `floors at ${floors.map((s) => s.rate).join(', ')}`)
  assert.ok((floors[0].rate * floors[0].p50) / 1000 > FLOOR.overlap, 'the first floor overlapped')
  const last = floors.at(-1)
  assert.ok((last.rate * last.p50) / 1000 <= FLOOR.overlap, `the floor measured where requests do not overlap (${last.rate} req/s)`)
  assert.equal(capacity.bound, 'cannot-meet')
  assert.equal(capacity.floor.rps, last.rate)
  assert.equal(capacity.floor.true, true)
  // cut before the floor came down: the saturated floor shows nothing
  const cut = drive(createSweep({ serviceMs: 8.2, cores: 2, sloMs: 41, maxStepSec: 8, maxSteps: 1 }), measure)
  assert.equal(cut.capacity.bound, 'undecided')
  assert.equal(cut.capacity.undecided.code, 'floor-overlap')
  assert.ok(cut.capacity.undecided.overlap > FLOOR.overlap, `rate × p50 ${cut.capacity.undecided.overlap}`)
})

test('range: a work of a microsecond (loop:1) is swept at rates no higher than --rate accepts, against a target shown right', () => {
  // 0.001 ms of service on 2 cores: an ideal of 2,000,000 req/s; the strategy holds every rate offered
  const sweep = createSweep({ serviceMs: 0.001, cores: 2 })
  const { steps, describe } = drive(sweep, strategy({ floorMs: 0.05, knee: Infinity, sloMs: 1 }))
  assert.ok(steps.length > 0)
  assert.ok(steps.every((s) => s.rate <= RATE_RANGE.max), `rates ${steps.map((s) => s.rate).join(', ')}`)
  assert.equal(describe.maxRate, RATE_RANGE.max)
  assert.equal(describe.sloMs, SLO.leastMs, 'a default target is never under the least default target')
  assert.match(describe.sloRule, /raised to 10 ms \(the least default target/)
  const [, ten, twentyFive] = SLO.multiples
  const oneMs = createSweep({ serviceMs: 0.82, cores: 2 }).describe()
  assert.deepEqual(oneMs.targetsMs, [10, roundTo(twentyFive * 0.82, 3)], `5 and ${ten} × 0.82 ms both raised to 10 ms, one target`)
  const given = createSweep({ serviceMs: 0.82, cores: 2, sloMs: 4.1 }).describe()
  assert.equal(given.sloMs, 4.1, '--slo is never raised to it')
})
