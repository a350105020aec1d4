// One sweep, several targets (result/sweep.js with result/capacity.js capacityAtTargets): every step counts
// for every target, the climb goes on until the loosest target fails, bisections go where a target's
// bracket is still wide; each target gets its capacity and bracket. Then two synthetic strategies whose
// ranking flips with the target, and the decision says where.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSweep } from '../../../loadtest/result/sweep.js'
import { sweepRuleText } from '../../../loadtest/text/reasons.js'
import { BUDGET, CLIMB, SLO, SWEEP_LIMITS, targetsFor } from '../../../loadtest/result/rules.js'

// Room for every target's bisections: the most steps a sweep here is given.
const MAX_STEPS = 30
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { capacityAtTargets, judgeStep, verdictAt } from '../../../loadtest/result/capacity.js'
import { decide } from '../../../loadtest/result/decision.js'

// A queueing server: p99 = floorMs / (1 − rate / limit), past the limit nothing holds.
const queue = (floorMs, limit) => (rate) => (rate < limit ? floorMs / (1 - rate / limit) : 60_000)

function figures (p99) {
  const requests = { sent: 400, completed: 400, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  return { requests, latency: { p50: p99 / 2, p99 }, disturbed: false }
}

// Run a sweep against a p99(rate) curve; the steps and figures as build.js hands them to capacityAtTargets.
function drive (sweep, p99At) {
  const history = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    history.push({ rate, figures: figures(p99At(rate)) })
    assert.ok(history.length <= MAX_STEPS, 'a sweep ends')
  }
  const steps = history.map((h, i) => ({ index: i, rate: h.rate, kind: sweep.kinds[i], ...h.figures.latency }))
  return { steps, figs: history.map((h) => h.figures) }
}

function capacities (server, p99At, slos) {
  const sweep = createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS }) // ideal 200 req/s
  const { steps, figs } = drive(sweep, p99At)
  const d = sweep.describe()
  return { steps, targets: capacityAtTargets(steps, figs, { targets: d.targetsMs, idealRps: d.idealRps }) }
}

test('sweep at several targets: each target its capacity and bracket from the same steps, never lower at a looser target', () => {
  const p99At = queue(20, 200) // true knees: 120 req/s at 50 ms, 160 at 100 ms, 190 at 400 ms
  const { steps, targets } = capacities('x', p99At, [50, 100, 400])
  assert.deepEqual(targets.map((t) => t.sloMs), [50, 100, 400])
  const knee = (t) => 200 * (1 - 20 / t)
  for (const t of targets) {
    assert.ok(t.rps <= knee(t.sloMs) && t.bracket.fail > knee(t.sloMs), `${t.sloMs} ms: ${t.rps}–${t.bracket.fail} brackets ${knee(t.sloMs)}`)
    assert.ok((t.bracket.fail - t.rps) / t.bracket.fail < 0.1, `${t.sloMs} ms: bisected to within 10 % (${t.rps}–${t.bracket.fail})`)
  }
  for (let i = 1; i < targets.length; i++) assert.ok(targets[i].rps >= targets[i - 1].rps, 'a looser target holds at least as much')
  // every step counts for every target: the loosest target's knee needed the climb past the tightest's
  assert.ok(steps.some((s) => s.kind === 'coarse' && s.rate > knee(50) * 1.2), 'coarse steps went on past the first target\'s knee')
  const refines = steps.filter((s) => s.kind === 'refine').length
  assert.ok(refines <= 3 * 3, `bisections only where a bracket was wide (${refines})`)
  // a single target is today's sweep: no climb past its first confirmed failure
  const one = capacities('x', p99At, [50])
  assert.ok(one.steps.length < steps.length)
  assert.equal(one.targets[0].rps, targets[0].rps, 'the first target\'s capacity does not depend on the others')
})

test('sweep targets: the default three from the service time, the loosest reachable by a fork per request', () => {
  assert.deepEqual(targetsFor(20).targets, SLO.multiples.map((m) => m * 20))
  assert.ok(SLO.multiples.length >= 3)
  assert.deepEqual(targetsFor(20, [100, 400]).targets, [100, 400])
  assert.deepEqual(createSweep({ serviceMs: 20, cores: 2 }).describe().targetsMs, [100, 200, 500])
})

test('ranking flip: a fast-floor strategy leads at tight targets, a high-throughput one at loose targets; the decision says where', () => {
  const slos = [50, 100, 400]
  const result = (server, curve) => {
    const { targets } = capacities(server, curve, slos)
    return { kind: 'http', status: 'ok', trusted: true, key: `${server}@loop#capacity`, server, capacity: { capacity: targets[0], targets } }
  }
  const a = result('quick-floor', queue(5, 150)) // 135 req/s at 50 ms, 142 at 100, 148 at 400
  const b = result('high-ceiling', queue(60, 220)) // cannot meet 50 ms, 88 req/s at 100, 187 at 400
  assert.equal(b.capacity.targets[0].rps, null, 'a floor above the target: cannot meet it')
  assert.equal(b.capacity.targets[0].bound, 'cannot-meet')
  const d = decide({ results: [a, b] })
  assert.equal(d.server, 'quick-floor')
  assert.equal(d.changes.length, 1)
  assert.deepEqual([d.changes[0].fromMs, d.changes[0].toMs, d.changes[0].to], [100, 400, 'high-ceiling@loop#capacity'])
  assert.ok(d.changes[0].atMs > 100 && d.changes[0].atMs < 400, `the lines cross at ${d.changes[0].atMs} ms`)
  assert.equal(decide({ results: [a, b] }, { sloMs: 400 }).server, 'high-ceiling')
})

test('a strategy far below the leaders: each target searched until a confirmed failure below the leader\'s pass there, then no further', () => {
  const slos = [50, 100, 400]
  const lead = capacities('lead', queue(5, 180), slos).targets // about 162, 171 and 178 req/s
  const leaders = [{ targetsMs: slos, passes: lead.map((t) => t.rps) }]
  const slow = queue(5, 40) // knees 36, 38 and 39.5 req/s
  const plain = drive(createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS }), slow)
  const sweep = createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, leaders })
  const { steps, figs } = drive(sweep, slow)
  const d = sweep.describe()
  assert.deepEqual(d.leads, lead.map((t) => t.rps), 'the leaders\' passes at its own targets')
  assert.ok(steps.length < plain.steps.length, `${steps.length} steps, ${plain.steps.length} without the leaders`)
  assert.ok(!steps.some((s) => ['refine', 'over', 'hold'].includes(s.kind)), 'no bisection, no step past capacity, no hold')
  const targets = capacityAtTargets(steps, figs, { targets: d.targetsMs, idealRps: d.idealRps, leads: d.leads })
  const truth = capacityAtTargets(plain.steps, plain.figs, { targets: slos, idealRps: d.idealRps })
  for (const [k, t] of targets.entries()) {
    assert.equal(t.bound, 'ruled-out', `${t.sloMs} ms`)
    assert.ok(t.bracket.fail < lead[k].rps, `${t.sloMs} ms: a failure confirmed at ${t.bracket.fail}, below the leader's ${lead[k].rps}`)
    assert.ok(t.rps <= truth[k].rps && truth[k].rps < t.bracket.fail, `${t.sloMs} ms: the full search's ${truth[k].rps} inside ${t.rps}–${t.bracket.fail}`)
  }
  // the leaders stand only at the same targets: judged at others, the sweep is the plain one
  const withLeaders = (leaders) => createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, leaders })
  const elsewhere = withLeaders([{ targetsMs: [60, 100, 400], passes: [150, 170, 178] }])
  assert.equal(elsewhere.describe().leads, null)
  assert.deepEqual(drive(elsewhere, slow).steps.map((s) => s.rate), plain.steps.map((s) => s.rate))
  // a leader it passes: its climb starts just under the leader's pass, and its capacity is refined as without one
  const near = withLeaders([{ targetsMs: slos, passes: [30, 30, 30] }])
  const nearRun = drive(near, slow)
  const first = nearRun.steps.find((s) => s.kind === 'coarse')
  assert.equal(first.rate, CLIMB.ledStart * 30, 'the climb starts at ledStart × the leader\'s pass')
  const refined = capacityAtTargets(nearRun.steps, nearRun.figs, { targets: slos, idealRps: 200, leads: [30, 30, 30] })
  for (const [k, t] of refined.entries()) {
    const knee = 40 * (1 - 5 / slos[k])
    assert.ok(t.rps <= knee && knee < t.bracket.fail, `${t.sloMs} ms: ${t.rps}–${t.bracket.fail} holds the knee ${knee}`)
  }
})

test('after a leader the climb starts just under its pass: a strategy that ties takes less time than from the ideal, same knee', () => {
  const slos = [50, 100, 400]
  // a pool near its ideal, where the ideal's fractions climb longest: knees 171, 180.5 and 187.6 req/s (ideal 200)
  const tie = queue(5, 190)
  const lead = capacities('lead', queue(5, 192), slos).targets
  const leaders = [{ targetsMs: slos, passes: lead.map((t) => t.rps) }]
  const sweep = (extra) => createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, ...extra })
  const plain = driveTimed(sweep({}), tie)
  const led = driveTimed(sweep({ leaders }), tie)
  assert.equal(led.steps.find((s) => s.kind === 'coarse').rate, CLIMB.ledStart * lead[0].rps)
  assert.ok(!led.steps.some((s) => s.kind === 'coarse' && s.rate < CLIMB.ledStart * lead[0].rps), 'no coarse step below it')
  assert.ok(led.sec < plain.sec, `${led.sec} s led, ${plain.sec} s from the ideal's fractions`)
  for (const [k, t] of led.targets.entries()) {
    const knee = 190 * (1 - 5 / slos[k])
    assert.ok(t.rps <= knee && knee < t.bracket.fail, `${t.sloMs} ms: ${t.rps}–${t.bracket.fail} holds the knee ${knee}`)
  }
  // a --tune seed gave the fractions: the seed's climb, not the leader's
  const seeded = driveTimed(sweep({ leaders, seeded: true, fractions: [0.5, 0.7] }), tie)
  assert.equal(seeded.steps.find((s) => s.kind === 'coarse').rate, 0.5 * 200)
})

// Drive a sweep and account its time as the budget does: each step its planned length and the overhead.
function driveTimed (sweep, p99At) {
  const history = []
  let sec = 0
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    sec += sweep.durationFor(rate) + BUDGET.stepOverheadSec
    history.push({ rate, figures: figures(p99At(rate)) })
  }
  const steps = history.map((h, i) => ({ index: i, rate: h.rate, kind: sweep.kinds[i], ...h.figures.latency }))
  const d = sweep.describe()
  const figs = history.map((h) => h.figures)
  const targets = capacityAtTargets(steps, figs, { targets: d.targetsMs, idealRps: d.idealRps })
  return { sec, steps, budget: d.budget, targets }
}

test('budget: no sweep exceeds its time budget; the looser targets\' bisections stop first, the first target\'s bracket is refined as without a budget', () => {
  // a slow server (knees 18, 24 and 29 req/s of an ideal 200): its steps last 8 s, the budget holds ~10
  const p99At = queue(20, 30)
  const slos = [50, 100, 400]
  const fractions = [0.05, 0.1, 0.15, 0.2]
  const make = (budgetSec) => createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, fractions, budgetSec })
  const free = driveTimed(make(null), p99At)
  assert.equal(free.budget, null)
  for (const budgetSec of [60, 100, 200]) {
    const run = driveTimed(make(budgetSec), p99At)
    assert.ok(run.sec <= budgetSec, `${budgetSec} s: the steps took ${run.sec} s`)
    assert.ok(Math.abs(run.budget.spentSec - run.sec) < 0.5, 'the sweep accounts what it spent')
    const fewer = `${run.steps.length} < ${free.steps.length}`
    assert.ok(run.steps.length < free.steps.length, `${budgetSec} s: fewer steps than without a budget (${fewer})`)
    assert.ok(['looser-targets', 'sweep'].includes(run.budget.cut), 'the cut is recorded')
  }
  // a budget that cuts only the looser targets: the first target's capacity and bracket as without one
  const mid = driveTimed(make(200), p99At)
  assert.equal(mid.budget.cut, 'looser-targets')
  assert.deepEqual(mid.targets[0].bracket, free.targets[0].bracket, 'the first target refined as without a budget')
  assert.equal(mid.targets[0].bound, 'refined')
  const width = (t) => (t.bracket.fail ?? Infinity) - t.rps
  const wider = (t, i) => width(t) > width(free.targets[i]) + 1e-9
  assert.ok(mid.targets.slice(1).some(wider), 'a looser target kept a wider bracket')
  for (let i = 1; i < mid.targets.length; i++) assert.ok(mid.targets[i].rps >= mid.targets[i - 1].rps, 'never lower at a looser target')
})

// A step's figures with a latency histogram: n requests, `over` of them at 10 × the target, the rest at half.
function counted (n, over, sloMs) {
  const h = createHistogram()
  for (let i = 0; i < n; i++) recordMs(h, i < over ? sloMs * 10 : sloMs / 5)
  const requests = { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const latency = { p50: h.getValueAtPercentile(50) / 1000, p99: h.getValueAtPercentile(99) / 1000 }
  return { requests, latency, histograms: { latency: encodeHistogram(h) }, disturbed: false }
}

test('top-up: a repeat of an undecided rate lasts for the requests its pool still needs, a repeat of a failure a whole step', () => {
  const sweep = createSweep({
    serviceMs: 10, cores: 2, sloMs: 50, minRequests: 299, minDurationSec: 1, maxStepSec: 10, fractions: [0.3, 0.6, 0.9]
  })
  const history = []
  history.push({ rate: sweep.next(history), figures: counted(200, 0, 50) }) // the floor, 20 req/s: p50 10 ms
  const first = sweep.next(history) // 30 % of the ideal, 60 req/s: 299 requests need 5 s
  assert.equal(sweep.durationFor(first), 5)
  history.push({ rate: first, figures: counted(250, 0, 50) }) // undecided: 49 more with none over
  const again = sweep.next(history)
  assert.equal(sweep.kinds.at(-1), 'repeat')
  assert.equal(again, first)
  assert.equal(sweep.durationFor(again), 1, '49 requests at 60 req/s: the shortest step (1 s)')
  history.push({ rate: again, figures: counted(60, 0, 50) }) // 310 in all, none over: a pass
  const up = sweep.next(history)
  assert.ok(up > first && sweep.kinds.at(-1) === 'coarse', 'the pooled pass climbs on')
  history.push({ rate: up, figures: counted(300, 20, 50) }) // a marginal failure: repeated whole
  assert.equal(sweep.next(history), up)
  assert.equal(sweep.durationFor(up), Math.ceil((299 / up) * 10) / 10)
})

test('a clear failure (half its requests over the target, undisturbed) counts at once; a marginal or disturbed one is repeated', () => {
  const at = (steps) => verdictAt(steps.map((s) => ({ ...s, ...judgeStep(s.figures, 50) })))
  const clear = counted(300, 200, 50)
  assert.equal(at([{ figures: clear, disturbed: false }]), 'fail', 'two thirds over: no repeat could flip it')
  assert.equal(at([{ figures: counted(300, 20, 50), disturbed: false }]), 'pending', '20 of 300 over: measured again')
  assert.equal(at([{ figures: clear, disturbed: true }]), 'pending', 'disturbed: measured again')
  // in a sweep: the failing coarse step is followed by a bisection, not by its repeat
  const sweep = createSweep({ serviceMs: 10, cores: 2, sloMs: 50, minRequests: 299, minDurationSec: 1, maxStepSec: 10 })
  const history = []
  history.push({ rate: sweep.next(history), figures: counted(200, 0, 50) }) // the floor
  const first = sweep.next(history)
  history.push({ rate: first, figures: counted(300, 0, 50) })
  const second = sweep.next(history)
  history.push({ rate: second, figures: counted(300, 250, 50) })
  assert.ok(sweep.next(history) < second && sweep.kinds.at(-1) === 'refine', `after ${sweep.kinds.join(', ')}`)
})

test('budget: it grows with the work\'s step length, never under budgetSec; a slow work\'s sweep gets as many of its steps', () => {
  const { budgetSec, budgetWorkMs } = SWEEP_LIMITS
  const sweepOf = (serviceMs, more = {}) => createSweep({ serviceMs, cores: 2, budgetSec, budgetWorkMs, ...more })
  const budgetOf = (serviceMs, more) => sweepOf(serviceMs, more).describe().budget
  assert.equal(budgetOf(budgetWorkMs).sec, budgetSec, 'the work it was set on: budgetSec')
  assert.equal(budgetOf(8.2).sec, budgetSec, 'a faster work: never less')
  const slow = budgetOf(82) // loop:1e8: a step at 0.75 × 24.4 req/s holds its 299 requests in 16.4 s, 5 s at 24.6 ms
  assert.equal(slow.sec, Math.round((budgetSec * (16.4 + BUDGET.stepOverheadSec)) / (5 + BUDGET.stepOverheadSec)))
  assert.equal(slow.baseSec, budgetSec)
  assert.match(sweepRuleText(createSweep({ serviceMs: 82, cores: 2, budgetSec, budgetWorkMs }).describe()), /scaled to this work's step length/)
  assert.equal(budgetOf(82, { budgetWorkMs: null }).sec, budgetSec, 'without the work it was set on: as given')
  // a slow work driven to its end: its sweep reaches a refined capacity within its own budget
  const p99At = queue(200, 20) // 80 ms of service on 2 cores (ideal 24.4 req/s); 20 req/s is its limit
  const run = driveTimed(createSweep({ serviceMs: 82, cores: 2, slos: [410], budgetSec, budgetWorkMs }), p99At)
  assert.ok(run.sec <= slow.sec, `${run.sec} s within ${slow.sec} s`)
  assert.equal(run.targets[0].bound, 'refined', `${run.targets[0].bound}: ${run.steps.map((x) => x.rate.toFixed(1)).join(' ')}`)
  const fixed = driveTimed(createSweep({ serviceMs: 82, cores: 2, slos: [410], budgetSec }), p99At)
  assert.notEqual(fixed.targets[0].bound, 'refined', 'the same sweep within the unscaled budget stops short')
})

test('budget: the climb past the first target\'s failure is the looser targets\' and fits within their share', () => {
  const p99At = queue(20, 200) // knees 120 req/s at 50 ms, 190 at 400 ms; coarse steps every 30 req/s
  let climbs = 0
  for (let budgetSec = 20; budgetSec <= 80; budgetSec += 4) {
    const steps = { minRequests: 299, minDurationSec: 1, maxStepSec: 10 }
    const sweep = createSweep({ serviceMs: 10, cores: 2, slos: [50, 400], ...steps, budgetSec })
    const history = []
    let spent = 0
    let firstFailed = Infinity // the lowest coarse rate the first target failed at
    for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
      spent += sweep.durationFor(rate) + BUDGET.stepOverheadSec
      if (sweep.kinds.at(-1) === 'coarse' && rate > firstFailed) {
        assert.ok(spent <= budgetSec * BUDGET.looseShare + 1e-9, `${budgetSec} s: a climb for the looser target at ${rate} req/s ended at ${spent} s`)
        climbs++
      }
      const p99 = p99At(rate)
      if (sweep.kinds.at(-1) === 'coarse' && p99 > 50) firstFailed = Math.min(firstFailed, rate)
      history.push({ rate, figures: figures(p99) })
    }
    assert.ok(spent <= budgetSec)
  }
  assert.ok(climbs > 0, 'some budgets let the looser target climb')
})

test('under a leader an overlapped floor is searched lower as without one: a strategy that cannot meet the target says so', () => {
  const slos = [50, 100, 400]
  const fork = () => 2000 // a fork per request on a busy machine: every rate far over every target
  const leaders = [{ targetsMs: slos, passes: [150, 160, 170] }]
  const plain = drive(createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS }), fork)
  const ledSweep = createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, leaders })
  const led = drive(ledSweep, fork)
  const firstRate = plain.steps[0].rate
  assert.ok(plain.steps.some((s) => s.kind === 'floor' && s.rate < firstRate), 'without a leader: a lower floor')
  assert.deepEqual(led.steps.map((s) => [s.kind, s.rate]), plain.steps.map((s) => [s.kind, s.rate]),
    'with one: the same floors, down to a true one')
  const d = { targets: slos, idealRps: 200, leads: leaders[0].passes }
  const [first] = capacityAtTargets(led.steps, led.figs, d)
  assert.deepEqual([first.rps, first.bound], [null, 'cannot-meet'], 'no capacity only where none exists')
})

test('a disturbed leader guides the climb\'s start and rules nothing out: the capacity below it is still found', () => {
  const slos = [50, 100, 400]
  const slow = queue(5, 40) // knees 36, 38 and 39.5 req/s
  const guides = [{ targetsMs: slos, passes: [150, 160, 170] }] // a pass the lab did not trust
  const sweep = createSweep({ serviceMs: 10, cores: 2, slos, maxSteps: MAX_STEPS, guides })
  const { steps, figs } = drive(sweep, slow)
  assert.equal(steps.find((s) => s.kind === 'coarse').rate, CLIMB.ledStart * 150, 'the climb starts under the guide')
  assert.equal(sweep.describe().leads, null, 'no leader: nothing is ruled out')
  const targets = capacityAtTargets(steps, figs, { targets: slos, idealRps: 200 })
  for (const [k, t] of targets.entries()) {
    const knee = 40 * (1 - 5 / slos[k])
    assert.notEqual(t.bound, 'ruled-out')
    assert.ok(t.rps <= knee && knee < t.bracket.fail, `${t.sloMs} ms: ${t.rps}–${t.bracket.fail} holds the knee ${knee}`)
  }
})
