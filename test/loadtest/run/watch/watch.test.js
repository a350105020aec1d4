// run/watch/watch.js: a round watched in time from the engine's events, the server's pushed samples and the
// outside samples; the recovery watch ends when the server says nothing is in flight and no outside
// CPU figure says otherwise.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { watchRound } from '../../../../loadtest/run/watch/watch.js'
import { totals } from '../../../../loadtest/run/watch/timeline.js'

test('watchRound: counts, the live progress, server gauges combined over processes, recovery until idle', async () => {
  const child = new EventEmitter()
  const events = []
  const w = watchRound({ intervalMs: 100, child, amount: 3, onProgress: (e) => events.push(e) })
  for (let i = 0; i < 3; i++) w.sent()
  w.record({ latencyMs: 5, status: 200 })
  w.record({ latencyMs: 7, status: 500 })
  w.record({ latencyMs: 10000, timeout: true })
  const now = Date.now()
  child.emit('message', { lab: 'sample', t: now, pid: 1, inFlight: 2, queueLength: 1, elu: 0.5, eventLoopMaxMs: 3 })
  child.emit('message', { lab: 'sample', t: now, pid: 2, inFlight: 1, queueLength: 0, elu: 0.1, eventLoopMaxMs: 9 })
  child.emit('message', { lab: 'not-a-sample', t: now })
  await delay(300) // at least one live progress event (every 250 ms)
  w.endRound()
  child.emit('message', { lab: 'sample', t: Date.now(), pid: 1, inFlight: 0, elu: 0 })
  child.emit('message', { lab: 'sample', t: Date.now(), pid: 2, inFlight: 0, elu: 0 })
  const started = Date.now()
  await w.recover({ capMs: 5000 })
  assert.ok(Date.now() - started < 2000, 'idle at once: nothing in flight, no outside samples')
  const series = w.stop()
  assert.deepEqual(totals(series), { sent: 3, completed: 2, ok: 1, non2xx: 1, timeouts: 1, errors: 0 })
  const gauges = series.points.map((p) => p.server).filter(Boolean)
  assert.equal(gauges[0].inFlight, 3, 'in flight summed over the processes')
  assert.equal(gauges[0].eventLoopMaxMs, 9, 'the worst loop of the processes')
  assert.ok(events.length >= 1)
  assert.equal(events.at(-1).type, 'round')
  assert.equal(events.at(-1).completed, 2, 'answered requests (any status); the timeout is counted apart')
  assert.equal(events.at(-1).timeouts, 1)
  assert.equal(child.listenerCount('message'), 0, 'stop() stops listening to the server')
})

test('watchRound: the recovery watch lasts while the server has requests in flight, up to its cap', async () => {
  const child = new EventEmitter()
  const w = watchRound({ intervalMs: 100, child })
  child.emit('message', { lab: 'sample', t: Date.now(), pid: 1, inFlight: 1, elu: 1 })
  const started = Date.now()
  await w.recover({ capMs: 400 })
  const waited = Date.now() - started
  assert.ok(waited >= 350, `kept watching a busy server until the cap (${waited} ms)`)
  const series = w.stop()
  assert.ok(series.recoveryEndMs >= series.endMs)
})
