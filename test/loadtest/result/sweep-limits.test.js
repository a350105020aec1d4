// What a sweep's limits (its step limit and budget) and a leader may cut, and what they may not: the first
// target's floor top-up keeps its room, its hold step runs past the limits, and a target ruled out under a
// leader still ends with a two-sided bracket. Synthetic strategies with real latency histograms, --quick's
// settings (p99 at 90 %: 230 requests), no servers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSweep } from '../../../loadtest/result/sweep.js'
import { BUDGET, CLIMB, HOLD, QUICK } from '../../../loadtest/result/rules.js'
import { capacityAtTargets, capacityOf, judgeStep, verdicts } from '../../../loadtest/result/capacity.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { reasonText } from '../../../loadtest/text/reasons.js'

// A strategy whose lone request takes floorMs and that holds up to `knee` req/s: above it a share of the
// requests (10 % just past the knee, all from 1.45 × on) take at least twice the first target.
function strategy ({ floorMs, knee, sloMs }) {
  return (rate, sec) => {
    const n = Math.max(1, Math.round(rate * sec))
    const share = rate <= knee ? 0 : Math.min(1, 0.1 + (rate / knee - 1) * 2)
    const h = createHistogram()
    const slowMs = Math.max(2 * sloMs, (10 * floorMs * rate) / knee)
    for (let i = 0; i < n; i++) recordMs(h, i < Math.ceil(share * n) ? slowMs : floorMs)
    const requests = { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
    const at = (p) => h.getValueAtPercentile(p) / 1000
    const histograms = { latency: encodeHistogram(h) }
    return { requests, latency: { p50: at(50), p99: at(99) }, histograms, disturbed: false }
  }
}

// --quick's sweep on loop:1e7 (8.2 ms of service on 2 cores: ideal 244 req/s, its floor at 24.4 req/s).
const QUICK_SWEEP = {
  serviceMs: 8.2,
  cores: 2,
  confidence: QUICK.confidence,
  minRequests: QUICK.minRequests,
  maxStepSec: QUICK.maxStepSec,
  minDurationSec: 2,
  fractions: QUICK.fractions,
  refine: QUICK.refine
}

// Run a sweep to its end; its steps as build.js makes them, each with its planned length, and its capacity at
// the first target (with the leaders' pass there) and at each.
function drive (sweep, measure) {
  const history = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    history.push({ rate, figures: measure(rate, sweep.durationFor(rate)) })
    assert.ok(history.length <= 40, 'a sweep ends')
  }
  const d = sweep.describe()
  const steps = history.map((h, i) => ({
    index: i,
    rate: h.rate,
    kind: sweep.kinds[i],
    sec: sweep.lengths[i],
    ...h.figures.latency,
    ...judgeStep(h.figures, d.sloMs, d)
  }))
  const capacity = capacityOf(steps, { ...d, lead: d.leads?.[0] ?? null })
  const targets = capacityAtTargets(steps, history.map((h) => h.figures), { ...d, targets: d.targetsMs })
  return { steps, capacity, targets, describe: d }
}

const kinds = (run) => run.steps.map((s) => `${s.kind} ${s.rate.toFixed(1)} ${s.call}`).join(', ')

test('floor top-up: with no pass at the first target, the floor\'s top-up keeps its room before the step limit', () => {
  // every rate above 26 req/s fails the target; the floor (24.4 req/s, 49 requests) holds it but shows no p99
  const measure = strategy({ floorMs: 8, knee: 26, sloMs: 41 })
  for (const maxSteps of [3, 4, 5, 6]) {
    const run = drive(createSweep({ ...QUICK_SWEEP, sloMs: 41, maxSteps }), measure)
    const floor = run.steps[0].rate
    assert.ok(run.steps.length <= maxSteps, `${maxSteps}: ${kinds(run)}`)
    assert.ok(run.steps.some((s) => s.kind === 'repeat' && s.rate === floor), `${maxSteps}: the floor topped up: ${kinds(run)}`)
    assert.equal(run.capacity.rps, floor, `${maxSteps}: the floor is the capacity (${run.capacity.bound}): ${kinds(run)}`)
    const atFloor = run.steps.filter((s) => s.rate === floor)
    assert.ok(atFloor.reduce((a, s) => a + s.n, 0) >= QUICK.minRequests, 'its pool holds p99\'s sample')
  }
})

test('floor top-up: the budget keeps its room too; a floor whose pool cannot reach its sample is not topped up', () => {
  const measure = strategy({ floorMs: 8, knee: 26, sloMs: 41 })
  for (const budgetSec of [20, 24, 30, 40]) {
    const run = drive(createSweep({ ...QUICK_SWEEP, sloMs: 41, maxSteps: 11, budgetSec }), measure)
    assert.equal(run.capacity.rps, run.steps[0].rate, `${budgetSec} s: ${kinds(run)}`)
    assert.ok(run.describe.budget.spentSec <= budgetSec, `${run.describe.budget.spentSec} s of ${budgetSec}`)
  }
  // 50 ms of service: a floor at 4 req/s, whose three steps at the longest hold fewer than 230 requests; the
  // sweep ends at its step limit undecided, and the floor is not pooled in vain
  const slow = strategy({ floorMs: 40, knee: 4.5, sloMs: 200 })
  const run = drive(createSweep({ ...QUICK_SWEEP, serviceMs: 50, sloMs: 200, maxSteps: 5 }), slow)
  const longest = run.describe.longestStepSec
  assert.ok(3 * longest * run.steps[0].rate < QUICK.minRequests, 'out of reach')
  assert.deepEqual([run.capacity.rps, run.capacity.bound, run.capacity.undecided?.code], [null, 'undecided', 'step-limit'])
  assert.ok(!run.steps.some((s) => s.kind === 'repeat' && s.rate === run.steps[0].rate), kinds(run))
})

test('hold: the first target\'s hold step runs past the step limit and the budget, once; the capacity holds', () => {
  // a sharp knee at 200 req/s, targets 100 and 400 ms: the hold step (3.5 s) comes after the step past capacity
  const measure = strategy({ floorMs: 8, knee: 200, sloMs: 100 })
  const base = { ...QUICK_SWEEP, slos: [100, 400] }
  const free = drive(createSweep({ ...base, maxSteps: 30 }), measure)
  const hold = free.steps.findIndex((s) => s.kind === 'hold')
  assert.ok(hold > 0 && free.capacity.held === true, kinds(free))
  // a step limit that ends the sweep just before its hold: the hold runs, one past the limit, and nothing else
  const cut = drive(createSweep({ ...base, maxSteps: hold }), measure)
  assert.equal(cut.steps.length, hold + HOLD.pastLimits, kinds(cut))
  assert.equal(cut.steps.at(-1).kind, 'hold')
  assert.deepEqual([cut.capacity.rps, cut.capacity.bound, cut.capacity.held], [free.capacity.rps, 'refined', true])
  // a budget that ends the sweep just before its hold: the same
  const spent = free.steps.slice(0, hold).reduce((a, s) => a + s.sec + BUDGET.stepOverheadSec, 0)
  const poor = drive(createSweep({ ...base, maxSteps: 30, budgetSec: spent }), measure)
  assert.equal(poor.steps.at(-1).kind, 'hold', kinds(poor))
  assert.deepEqual([poor.capacity.rps, poor.capacity.held], [free.capacity.rps, true])
  assert.ok(poor.describe.budget.spentSec <= spent + poor.steps.at(-1).sec + BUDGET.stepOverheadSec + 1e-9)
})

test('hold: a capacity left not held names the step it needs and the command that runs it', () => {
  const text = reasonText({
    code: 'not-held',
    rps: 189.34,
    holdSec: 3.4,
    argv: ['--server', 'queued-threads', '--work', 'loop:1e7', '--rate', '189.3', '--duration', '3.4']
  })
  assert.match(text, /the step it needs, 3\.4 s at 189\.3 req\/s: npm run lab -- --server queued-threads --work loop:1e7 --rate 189\.3 --duration 3\.4$/)
  assert.match(reasonText({ code: 'not-held', rps: 189.34, holdSec: 3.4, argv: null }), /the step it needs, 3\.4 s at 189\.3 req\/s$/)
})

test('ruled out: under a leader the first target still ends with a two-sided bracket (its pass, its confirmed failure)', () => {
  const leaders = [{ targetsMs: [100, 400], passes: [190, 230] }]
  const { budgetSec, budgetWorkMs } = QUICK
  const base = { ...QUICK_SWEEP, slos: [100, 400], maxSteps: 12, budgetSec, budgetWorkMs }
  for (const knee of [100, 60, 30]) {
    const measure = strategy({ floorMs: 8, knee, sloMs: 100 })
    const run = drive(createSweep({ ...base, leaders }), measure)
    const c = run.capacity
    assert.equal(c.bound, 'ruled-out', `knee ${knee}: ${kinds(run)}`)
    assert.ok(c.rps > 0 && c.rps <= knee, `knee ${knee}: a pass at or under the knee (${c.rps}): ${kinds(run)}`)
    assert.ok(c.bracket.fail > knee && c.bracket.fail <= (1 - 0.08) * leaders[0].passes[0], `knee ${knee}: ${c.bracket.fail}`)
    assert.equal(c.held, null, 'a ruled-out pass cannot be chosen: the hold rule is not its')
    assert.ok(!run.steps.some((s) => ['over', 'hold'].includes(s.kind)), 'no step past capacity, no hold')
    assert.equal(verdicts(run.steps, run.describe).get(c.rps), 'pass')
    assert.deepEqual([run.targets[0].rps, run.targets[0].bracket], [c.rps, c.bracket], 'the table\'s figure is the same')
  }
  // without a leader the same strategy is searched to its knee: ruling out cut the precision, not the answer
  const measure = strategy({ floorMs: 8, knee: 60, sloMs: 100 })
  const alone = drive(createSweep(base), measure).capacity
  const led = drive(createSweep({ ...base, leaders }), measure).capacity
  assert.ok(led.rps <= alone.rps && alone.rps < led.bracket.fail, `${alone.rps} inside ${led.rps}–${led.bracket.fail}`)
  assert.ok(alone.bracket.fail <= alone.rps * CLIMB.overload * (1 + 1e-9), 'alone: refined')
})
