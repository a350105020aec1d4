// The /health probe: a probe that times out counts at its timeout (a lower bound), so a server too busy
// to answer shows how long it made the probe wait, not the latency of its one lucky probe.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import pWaitFor from 'p-wait-for'
import { startProbe } from '../../loadtest/run/fire.js'

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
  assert.equal(slow.length, r.timedOut, 'each timed-out probe enters the latencies at (at least) its timeout')
  assert.ok(r.latencies.length >= answeredBefore + r.timedOut - 1)
})
