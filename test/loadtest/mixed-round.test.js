// The mixed experiment's round on a real server (run/round/runner.js, experiments/mixed.js): the heavy
// class at the rate handed on (the rule book's utilisation of one thread), no other round; the cheap class answered by
// GET /cheap on the main thread, its phases those of the main thread only, the heavy class's the strategy's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runEntry } from '../../loadtest/run/round/runner.js'
import { entryLoad } from '../../loadtest/run/round/load.js'
import { builtInMix } from '../../loadtest/result/mix.js'
import { phaseFigures } from '../../loadtest/result/phases.js'
import { MIX, handOffMixed } from '../../loadtest/experiments/mixed.js'

const load = entryLoad({ server: 'simple' }, {
  connections: 2, amount: null, durationSec: 2, timeoutSec: 10, warmup: 0, runs: 1, recovery: false, rate: null
})

for (const [server, heavyPhases] of [
  ['simple', ['sent', 'wait', 'run', 'reply']],
  ['queued-threads', ['sent', 'wait', 'queue', 'send', 'run', 'return', 'reply']]
]) {
  test(`${server}: a mixed round at the handed-on heavy rate; cheap answered on the main thread`, async () => {
    const entry = {
      server,
      args: ['--work', 'loop:1e4'],
      work: 'loop:1e4',
      qualifier: 'mixed',
      mixed: { mix: builtInMix(MIX), utilisation: 0.2, arrival: 'poisson', durationSec: 1, lowestOf: ['simple', 'queued-threads'] }
    }
    const swept = (s, rps) => ({ kind: 'http', server: s, work: 'loop:1e4', capacity: { capacity: { rps } } })
    const run = handOffMixed(entry, [swept('simple', 50), swept('queued-threads', 25)], 10) // 0.2 × 1000 / 10 ms: 20 req/s
    const record = await runEntry(run, load, { signal: new AbortController().signal })
    assert.equal(record.failure, null)
    assert.equal(record.rounds.length, 0, 'no round but the mixed one')
    const m = record.mixed
    assert.deepEqual([m.capacityRps, m.capacityFrom, m.heavyRate, m.rate, m.arrival], [25, 'queued-threads', 20, 25, 'poisson'])
    const [heavy, cheap] = m.round.fire.classes
    assert.equal(cheap.name, 'cheap')
    assert.ok(cheap.ok > 0 && cheap.ok === cheap.completed && cheap.mismatches === 0)
    assert.ok(heavy.ok > 0 && heavy.ok === heavy.completed)
    const [hp, cp] = m.round.fire.classPhases.map(phaseFigures)
    assert.deepEqual(Object.keys(cp.phases), ['sent', 'wait', 'run', 'reply'], 'the cheap route never leaves the main thread')
    assert.deepEqual(Object.keys(hp.phases), heavyPhases)
    assert.equal(cp.count, cheap.ok)
  })
}
