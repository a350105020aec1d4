// Experiment `mixed` (loadtest/experiments/mixed.js): its plan (a capacity sweep, then the built-in mix
// with the heavy class at 80 % of C) and its table (the cheap class's p99 per strategy).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mixed, { HEAVY_SHARE_OF_C } from '../../../loadtest/experiments/mixed.js'
import { planLab } from '../../../loadtest/lab.js'
import { parseOptions } from '../../../loadtest/options.js'

test('mixed: one entry per CPU strategy, its sweep at one target, then the built-in mix at 80 % of C', async () => {
  const lab = await planLab(parseOptions(['--experiment', 'mixed', '--quick', '--server', 'simple,queued-threads']))
  assert.deepEqual(lab.plan.map((e) => e.server), ['simple', 'queued-threads'])
  for (const e of lab.plan) {
    assert.equal(typeof e.sweep, 'function')
    assert.equal(e.mixed.heavyShareOfC, HEAVY_SHARE_OF_C)
    assert.deepEqual(e.mixed.mix.requests.map((c) => [c.name, c.weight, c.path]), [['heavy', 80, '/'], ['cheap', 20, '/?work=loop:1e3']])
    assert.equal(e.mixed.durationSec, mixed.quick.mixedSec)
    const sweep = e.sweep({ serviceMs: 8, cores: 2 })
    assert.equal(sweep.describe().targetsMs?.length ?? 1, 1, 'one target')
  }
})

test('mixed: the table shows C, each class\'s rate and the cheap class\'s p99; a strategy without C says why', () => {
  const cls = (name, p99) => ({
    name,
    requests: { sent: 10, completed: 10, ok: 10, non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 },
    latency: { p50: 1, p99, max: p99 + 1 }
  })
  const report = {
    results: [
      { kind: 'http', server: 'simple', trusted: true, untrusted: [], mixed: { capacityRps: 100, heavyRate: 80, rate: 100, classes: [cls('heavy', 400), cls('cheap', 350)] } },
      { kind: 'http', server: 'queued-threads', trusted: true, untrusted: [], capacity: { capacity: { rps: null } }, mixed: { refused: 'no capacity for the heavy work (cannot meet the target)' } }
    ]
  }
  const { head, rows } = mixed.table(report)
  const at = (row, col) => row[head.indexOf(col)]
  assert.equal(at(rows[0], 'cheap p99'), '350')
  assert.equal(at(rows[0], 'heavy req/s'), '80.0')
  assert.equal(at(rows[0], 'cheap req/s'), '20.0')
  assert.match(rows[1].at(-1), /^✗ no capacity for the heavy work/)
})
