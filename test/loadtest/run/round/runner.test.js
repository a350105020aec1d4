// run/round/runner.js: one plan entry end to end through runEntry, against real servers: the run record it
// returns (rounds, the work and runtime the server reported, how it stopped), and its failures as
// records, never as throws.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runEntry } from '../../../../loadtest/run/round/runner.js'
import { entryLoad } from '../../../../loadtest/run/round/load.js'
import { FIXTURES } from '../../../helpers/lab.js'

const load = entryLoad({ server: 'simple' }, {
  connections: 2, amount: 20, durationSec: null, timeoutSec: 10, warmup: 5, runs: 2, recovery: false, rate: null
})

test('runEntry: a server through warm-up and a round per call, each booted anew and continuing its record, ' +
  'its work and runtime as it reported them, a clean stop', async () => {
  const signal = new AbortController().signal
  const steps = []
  const entry = { server: 'simple', args: ['--work', 'loop:1e4'], work: 'loop:1e4' }
  const progress = (text) => steps.push(text)
  const first = await runEntry(entry, load, { signal, progress, at: { round: 1, place: 2, last: false } })
  const at = { round: 2, place: 1, last: true }
  const record = await runEntry(entry, load, { signal, progress, record: first, at })
  assert.equal(record, first, 'the same record, continued')
  assert.equal(record.failure, null)
  assert.equal(record.rounds.length, 2)
  assert.deepEqual(record.rounds.map((r) => [r.round, r.place]), [[1, 2], [2, 1]])
  assert.ok(record.rounds[0].startedAt < record.rounds[1].startedAt)
  for (const r of record.rounds) {
    assert.equal(r.fire.completed, 20)
    assert.equal(r.fire.mismatches, 0, 'every body checked against the work\'s expected body')
  }
  assert.equal(record.workReported, 'loop:1e4')
  assert.equal(record.runtime.node, process.version, 'the runtime the server said it runs')
  assert.deepEqual(record.stop, { exitCode: 0, signal: null, forced: false, leftovers: [] })
  const one = (k) => ['starting', 'warm-up', `measuring round ${k}/2`, 'stopping']
  assert.deepEqual(steps, [...one(1), ...one(2)])
})

test('runEntry: a server that exits at start is a failure record with its exit and stderr, not a throw', async () => {
  process.env.LOADLAB_EXTRA_SERVERS ??= FIXTURES
  const record = await runEntry({ server: 'exits-at-start', args: [] }, load, { signal: new AbortController().signal })
  assert.equal(record.rounds.length, 0)
  assert.match(record.failure.reason, /exited before it was ready \(code 3/)
  assert.equal(record.failure.exitCode, 3)
  assert.ok(record.failure.stderrTail.some((l) => /configuration is broken on purpose/.test(l)))
})

test('runEntry: a server whose stats give nothing is read twice, and its round says so', async () => {
  process.env.LOADLAB_EXTRA_SERVERS ??= FIXTURES
  // stalls-once takes the stats reset and answers 404 for the stats themselves
  const record = await runEntry({ server: 'stalls-once', args: [] }, { ...load, runs: 1 }, { signal: new AbortController().signal })
  assert.equal(record.failure, null)
  assert.equal(record.rounds[0].telemetry, null)
  assert.deepEqual(record.notes.filter((n) => n.code === 'stats-unread'), [{ code: 'stats-unread', status: 404, why: null }])
})

test('runEntry: a --url that does not answer is a failure record naming it', async () => {
  const record = await runEntry({ server: '127.0.0.1:9', work: null }, load, {
    signal: new AbortController().signal, url: 'http://127.0.0.1:9/'
  })
  assert.match(record.failure.reason, /^--url: GET http:\/\/127\.0\.0\.1:9\/ got no answer \(connect ECONNREFUSED/)
  assert.equal(record.rounds.length, 0)
})
