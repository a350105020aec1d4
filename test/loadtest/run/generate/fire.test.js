// run/generate/fire.js: what the closed loop reads of each answer, bodies verified as they stream, and the /health
// probe (a probe that times out counts at its timeout: a lower bound of how long a busy server made it wait).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import http, { createServer } from 'node:http'
import { join } from 'node:path'
import { getHeapStatistics } from 'node:v8'
import { setTimeout as delay } from 'node:timers/promises'
import pWaitFor from 'p-wait-for'
import { fireRound, startProbe } from '../../../../loadtest/run/generate/fire.js'
import { parseServerTiming } from '../../../../loadtest/run/generate/server-timing.js'
import { bodyReference } from '../../../../loadtest/run/generate/body.js'
import { request } from '../../../../loadtest/run/generate/http.js'
import { startServer } from '../../../helpers/server.js'
import { FIXTURES } from '../../../helpers/lab.js'

const MB = 1024 * 1024
// The fixture's body (test/fixtures/servers/big-body.js): 64 kB of a repeated phrase, repeated.
function bigBody (bytes) {
  const chunk = Buffer.alloc(64 * 1024, 'loadlab big body ')
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / chunk.length) }, () => chunk)).subarray(0, bytes)
}

test('parsing: Server-Timing', () => {
  assert.deepEqual(parseServerTiming('work;dur=12.5, queue;dur=3'), { work: 12.5, queue: 3 })
  assert.deepEqual(parseServerTiming('work;desc="x";dur=1'), { work: 1, queue: null })
  assert.deepEqual(parseServerTiming(undefined), { work: null, queue: null })
})

test('closed loop: 24 MB bodies are verified as they stream, never held whole (item 4)', async (t) => {
  const bytes = 24 * MB
  const server = await startServer('big-body', [], {
    entry: join(FIXTURES, 'big-body.js'),
    env: { LOADLAB_FIXTURE_BODY_BYTES: String(bytes) }
  })
  t.after(() => server.stop())
  const expected = bodyReference(bigBody(bytes))
  const before = getHeapStatistics().used_heap_size
  let peak = 0
  // Read at each answer, while the finished request's body is still in reach: a body kept whole shows.
  const onRecord = () => {
    peak = Math.max(peak, getHeapStatistics().used_heap_size - before)
  }
  const good = await fireRound({ url: `${server.url}/`, connections: 1, amount: 3, timeoutSec: 20, expected, onRecord })
  assert.equal(good.completed, 3)
  assert.equal(good.mismatches, 0, 'every 24 MB body matches its reference by hash and length')
  assert.deepEqual(good.bodies, { maxBytes: MB, overCap: 3, largestBytes: bytes }, 'each body over the 1 MB cap')
  assert.ok(peak < 12 * MB, `the lab's heap grew by ${(peak / MB).toFixed(1)} MB for 24 MB bodies: bodies kept whole`)
  const bad = await fireRound({ url: `${server.url}/?more=1`, connections: 1, amount: 1, timeoutSec: 20, expected, maxBody: 16 })
  assert.equal(bad.mismatches, 1, 'one byte more is a mismatch')
  assert.equal(bad.mismatchSample, `${bytes + 1} B (expected ${bytes} B, over the cap: only its head kept): loadlab big body`)
  const one = await request(`${server.url}/`, { timeoutMs: 20000, maxBody: 10 })
  assert.deepEqual([one.bytes, one.overCap, one.body], [bytes, true, 'loadlab bi'], 'a single request keeps its head too')
})

test('probe: a /health probe still waiting when the round ends counts the time it waited (item 1)', async (t) => {
  const held = new Set()
  // A server frozen for the whole round: it takes the probe's request and never answers.
  const frozen = http.createServer((req, res) => held.add(res))
  await new Promise((resolve) => frozen.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const res of held) res.destroy()
    frozen.close()
  })
  const probe = startProbe(`http://127.0.0.1:${frozen.address().port}/health`, { intervalMs: 100, timeoutMs: 5000 })
  await delay(800)
  const r = await probe.stop()
  assert.equal(r.abandoned, 1)
  assert.equal(r.latencies.length, 1, 'the cut-off probe is in the latencies')
  assert.ok(r.latencies[0] >= 750, `it counts at least the ${r.latencies[0].toFixed(0)} ms it waited`)
})

test('probe: answered probes are timed, timed-out ones count as failed and enter the latencies at the timeout', async (t) => {
  let seen = 0
  let answer = true
  const server = createServer((req, res) => {
    seen++
    if (answer) res.end('{"status":"ok"}')
    // else: never answered, like a server whose event loop is blocked
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${server.address().port}/health`
  const probe = startProbe(url, { intervalMs: 10, timeoutMs: 150 })
  await pWaitFor(() => seen >= 2, { interval: 5, timeout: 10000 })
  answer = false
  const answeredBefore = seen
  // Two more requests arriving means the first unanswered one has timed out.
  await pWaitFor(() => seen >= answeredBefore + 2, { interval: 5, timeout: 10000 })
  const r = await probe.stop()
  assert.ok(r.timedOut >= 1)
  assert.equal(r.failed, r.timedOut, 'every failure here was a timeout')
  const slow = r.latencies.filter((ms) => ms >= 150)
  // (an answer that came in before a starved timer fired is timed too, and may also be past 150 ms)
  assert.ok(slow.length >= r.timedOut, 'each timed-out probe enters the latencies at (at least) its timeout')
  assert.ok(r.latencies.length >= answeredBefore + r.timedOut - 1)
})

test('closed loop, drained: every request a duration round sent is counted, those still out at its end waited for to their timeout', async (t) => {
  let n = 0
  const held = new Set()
  // answers one request in three at once and never the others: a round's end always finds some out
  const server = createServer((req, res) => {
    if (n++ % 3 === 0) res.end('ok')
    else held.add(res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => {
    for (const res of held) res.destroy()
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${server.address().port}/`
  const started = performance.now()
  const r = await fireRound({ url, connections: 3, durationSec: 0.3, timeoutSec: 1, drain: true })
  const ms = performance.now() - started
  assert.ok(r.ok > 0 && r.timeouts > 0, JSON.stringify({ ok: r.ok, timeouts: r.timeouts }))
  assert.equal(r.sent, r.completed + r.errors + r.timeouts, 'each request sent is answered, failed or timed out')
  assert.ok(ms >= 1000, `the requests out at the end were waited for (${ms.toFixed(0)} ms)`)
  assert.ok(r.durationMs >= ms - 50 && r.durationMs <= ms, 'the round lasts until its last request ended')
  const dropped = await fireRound({ url, connections: 3, durationSec: 0.3, timeoutSec: 5 })
  assert.ok(dropped.sent > dropped.completed + dropped.errors + dropped.timeouts, 'undrained, autocannon drops what is out')
})
