// Experiment `mixed` (loadtest/experiments/mixed.js): its plan (the capacity sweeps, then the built-in mix
// with the heavy class at the rule book's utilisation of one thread for every strategy, Poisson arrivals),
// its hand-off and its table (the cheap class's p99 per strategy, and the phase that holds it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mixed, { MIXED, MIXED_ARRIVAL, handOffMixed, heavyRateOf } from '../../../loadtest/experiments/mixed.js'
import { MIXED_LOAD } from '../../../loadtest/result/rules.js'
import { planLab } from '../../../loadtest/lab.js'
import { parseOptions } from '../../../loadtest/options.js'

test('mixed: each CPU strategy\'s sweep at one target, then each one\'s mixed round, the built-in mix with GET /cheap', async () => {
  const lab = await planLab(parseOptions(['--experiment', 'mixed', '--quick', '--server', 'simple,queued-threads']))
  assert.deepEqual(lab.plan.map((e) => [e.server, e.qualifier ?? null]), [
    ['simple', null], ['queued-threads', null], ['simple', MIXED], ['queued-threads', MIXED]
  ])
  for (const e of lab.plan.slice(0, 2)) {
    assert.equal(e.mixed, undefined)
    const sweep = e.sweep({ serviceMs: 8, cores: 2 })
    assert.equal(sweep.describe().targetsMs?.length ?? 1, 1, 'one target')
  }
  for (const e of lab.plan.slice(2)) {
    assert.equal(e.sweep, undefined)
    assert.equal(e.mixed.utilisation, MIXED_LOAD.utilisation)
    assert.equal(e.mixed.arrival, MIXED_ARRIVAL)
    assert.deepEqual(e.mixed.lowestOf, ['simple', 'queued-threads'])
    assert.deepEqual(e.mixed.mix.requests.map((c) => [c.name, c.weight, c.path]), [['heavy', 80, '/'], ['cheap', 20, '/cheap']])
    assert.equal(e.mixed.durationSec, mixed.quick.mixedSec)
  }
})

test('mixed: the heavy rate is the rule book\'s utilisation of one thread by the calibrated service time, ' +
  'the same whatever the sweeps found; the lowest C is handed on beside it', () => {
  const swept = (server, rps) => ({ kind: 'http', server, work: 'loop:1e7', capacity: { capacity: { rps } } })
  const entry = {
    server: 'simple', work: 'loop:1e7', qualifier: MIXED, mixed: { utilisation: 0.6, lowestOf: ['simple', 'queued-threads'] }
  }
  // the rule: utilisation × 1000 / serviceMs, the single thread loaded to that share of its time
  assert.equal(heavyRateOf(6.61, 0.6), 90.772)
  assert.ok(Math.abs(heavyRateOf(6.61) * 6.61 / 1000 - MIXED_LOAD.utilisation) < 1e-4, 'the default utilisation')
  assert.ok(MIXED_LOAD.utilisation >= 0.5 && MIXED_LOAD.utilisation < 0.8, 'loaded, but with room before saturation')
  assert.equal(heavyRateOf(null), null)
  assert.equal(heavyRateOf(Infinity), null)
  // a quiet sweep and a low one (the noisy case that used to set a rate the thread barely felt): one rate
  const quiet = handOffMixed(entry, [swept('simple', 120), swept('queued-threads', 95)], 6.61)
  const low = handOffMixed(entry, [swept('simple', 120), swept('queued-threads', 20)], 6.61)
  assert.deepEqual(quiet.mixed.heavy, { rps: 90.772, serviceMs: 6.61 })
  assert.deepEqual(low.mixed.heavy, quiet.mixed.heavy, 'the sweeps do not move the heavy rate')
  assert.deepEqual(quiet.mixed.capacity, { rps: 95, from: 'queued-threads' })
  const none = handOffMixed(entry, [swept('simple', 120), swept('queued-threads', null)], 6.61)
  assert.equal(none.mixed.capacity, null, 'a sweep without C leaves nothing to show beside the rate')
  assert.deepEqual(none.mixed.heavy, quiet.mixed.heavy, 'and does not refuse the round')
  assert.match(handOffMixed(entry, [], null).mixed.heavy.refused, /^no calibrated service time/)
  const other = { server: 'simple', sweep: () => {} }
  assert.equal(handOffMixed(other, []), other, 'a sweep entry runs as it is')
})

test('mixed: the table shows C, each class\'s rate and the cheap class\'s p99; a strategy without C says why', () => {
  const cls = (name, p99) => ({
    name,
    requests: { sent: 10, completed: 10, ok: 10, non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 },
    latency: { p50: 1, p99, max: p99 + 1 }
  })
  const report = {
    results: [
      { kind: 'http', server: 'simple', capacity: { capacity: { rps: 100 } } },
      { kind: 'http', server: 'simple', trusted: true, untrusted: [], mixed: { capacityRps: 100, heavyRate: 80, rate: 100, classes: [cls('heavy', 400), { ...cls('cheap', 350), phases: { at: { p99: { share: { sent: 0.01, wait: 0.93, run: 0.01, reply: 0.05 } } } } }] } },
      { kind: 'http', server: 'queued-threads', trusted: true, untrusted: [], capacity: { capacity: { rps: null } }, mixed: { refused: 'no capacity for the heavy work (cannot meet the target)' } }
    ]
  }
  const { head, rows } = mixed.table(report)
  const at = (row, col) => row[head.indexOf(col)]
  assert.equal(at(rows[0], 'cheap p99'), '350')
  assert.equal(at(rows[0], 'heavy req/s'), '80.0')
  assert.equal(at(rows[0], 'cheap req/s'), '20.0')
  assert.equal(at(rows[0], 'C req/s'), '100', 'its own C, from its sweep')
  assert.equal(at(rows[0], 'cheap p99 phase'), 'wait 93 %')
  assert.equal(rows.length, 2, 'one row per mixed round')
  assert.match(rows[1].at(-1), /^✗ no capacity for the heavy work/)
})
