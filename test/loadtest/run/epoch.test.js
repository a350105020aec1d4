import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { epochNow, wallOffsetMs } from '../../../loadtest/run/epoch.js'

// Date.now() counts whole ms: a moment read between two of its reads lies within [first, second + 1).
function bracketed (read) {
  const lo = Date.now()
  const at = read()
  const hi = Date.now() + 1
  return { lo, at, hi }
}

// The offset is good to half the gap of its best pair of reads: a busy machine that preempts all five tries
// widens that gap (Node 24's suite at load 10 read 0.135 ms under its bracket), so the slack is half a ms.
const SLACK_MS = 0.5

test('epochNow is the wall clock Date.now() reads, to within its whole ms, on every read', () => {
  for (let i = 0; i < 200; i++) {
    const { lo, at, hi } = bracketed(epochNow)
    assert.ok(at >= lo - SLACK_MS && at <= hi + SLACK_MS, `${at} outside [${lo}, ${hi}]`)
  }
  const a = wallOffsetMs()
  const b = wallOffsetMs()
  assert.ok(Math.abs(a - b) < 0.2, `two reads of the offset ${a} and ${b} apart`)
  const { lo, at, hi } = bracketed(() => performance.now() + a)
  assert.ok(at >= lo - 0.1 && at <= hi + 0.1)
})

test('a thread reads the same epoch as the thread that started it (its own offset, not its timeOrigin)', async () => {
  const src = `const { parentPort } = require('node:worker_threads')
    parentPort.once('message', async (url) => {
      const { epochNow } = await import(url)
      const lo = Date.now(); const at = epochNow(); const hi = Date.now() + 1
      parentPort.postMessage({ lo, at, hi })
    })`
  const worker = new Worker(src, { eval: true })
  try {
    const got = new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
    worker.postMessage(new URL('../../../loadtest/run/epoch.js', import.meta.url).href)
    const { lo, at, hi } = await got
    assert.ok(at >= lo - SLACK_MS && at <= hi + SLACK_MS, `the thread's ${at} outside [${lo}, ${hi}]`)
  } finally {
    await worker.terminate()
  }
})
