// The queued pools' FIFO gate (servers/lib/fifo-gate.js): --deadline is enforced by a timer, so a request
// that waits past it is refused then, not only when a slot frees.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { createFifoGate } from '../../servers/lib/fifo-gate.js'

test('--deadline: waiters are refused at their deadline while every slot stays busy', async () => {
  const counts = { aborted: 0, rejected: 0 }
  const gate = createFifoGate({ slots: 1, deadlineMs: 50, counts })
  const signal = new AbortController().signal
  await gate.acquire(signal) // the one slot, never released in this test
  const t0 = performance.now()
  const waits = [0, 1, 2].map(() => gate.acquire(signal).then(
    () => 'ran',
    (err) => ({ code: err.code, afterMs: performance.now() - t0 })))
  // a slot that never frees: without a timer they would wait for ever
  const outcome = await Promise.race([Promise.all(waits), delay(2000, 'still waiting')])
  assert.notEqual(outcome, 'still waiting', 'the deadline is enforced without a slot freeing')
  for (const w of outcome) {
    assert.equal(w.code, 'ERR_DEADLINE')
    assert.ok(w.afterMs >= 50, `refused at ${w.afterMs.toFixed(1)} ms, not before the deadline`)
  }
  assert.equal(counts.expired, 3)
  assert.equal(gate.waiting, 0)
})
