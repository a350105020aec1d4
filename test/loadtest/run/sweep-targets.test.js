// One sweep, several targets (run/sweep.js with result/capacity.js capacityAtTargets): every step counts
// for every target, the climb goes on until the loosest target fails, bisections go where a target's
// bracket is still wide; each target gets its capacity and bracket. Then two synthetic strategies whose
// ranking flips with the target, and the decision says where.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_STEPS, SLO_MULTIPLES, createSweep, targetsFor } from '../../../loadtest/run/sweep.js'
import { capacityAtTargets } from '../../../loadtest/result/capacity.js'
import { decide } from '../../../loadtest/result/decision.js'

// A queueing server: p99 = floorMs / (1 − rate / limit), past the limit nothing holds.
const queue = (floorMs, limit) => (rate) => (rate < limit ? floorMs / (1 - rate / limit) : 60_000)

function figures (p99) {
  const requests = { sent: 400, completed: 400, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  return { requests, latency: { p99 }, disturbed: false }
}

// Run a sweep against a p99(rate) curve; the steps and figures as build.js hands them to capacityAtTargets.
function drive (sweep, p99At) {
  const history = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    history.push({ rate, figures: figures(p99At(rate)) })
    assert.ok(history.length <= MAX_STEPS, 'a sweep ends')
  }
  const steps = history.map((h, i) => ({ index: i, rate: h.rate, kind: sweep.kinds[i], p99: h.figures.latency.p99 }))
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
  assert.deepEqual(targetsFor(20).targets, SLO_MULTIPLES.map((m) => m * 20))
  assert.ok(SLO_MULTIPLES.length >= 3)
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
  assert.equal(b.capacity.targets[0].bound, 'cannot meet the target')
  const d = decide({ results: [a, b] })
  assert.equal(d.server, 'quick-floor')
  assert.equal(d.changes.length, 1)
  assert.deepEqual([d.changes[0].fromMs, d.changes[0].toMs, d.changes[0].to], [100, 400, 'high-ceiling@loop#capacity'])
  assert.ok(d.changes[0].atMs > 100 && d.changes[0].atMs < 400, `the lines cross at ${d.changes[0].atMs} ms`)
  assert.equal(decide({ results: [a, b] }, { sloMs: 400 }).server, 'high-ceiling')
})
