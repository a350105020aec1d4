// Phases on real runs: every strategy family stamps its answers (servers/lib/stamps.js) and the open loop
// joins them into phases that add up to each request's latency, within the clocks' agreement; the
// phases each family has are the ones it crosses. A server whose header lies is ignored, and counted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { fork } from 'node:child_process'
import { now } from '../../servers/lib/stamps.js'
import { fireOpenLoop } from '../../loadtest/run/generate/open-loop.js'
import { phaseFigures } from '../../loadtest/result/phases.js'
import { summarizeHistogram } from '../../loadtest/result/histogram.js'
import { startServer } from '../helpers/server.js'
import { expectedBody } from '../../servers/lib/workloads.js'

// The most a request's phases may miss its latency by: stamps from two threads or processes out of
// order by their clocks' disagreement (a few microseconds on one machine; a millisecond is far above).
const AGREEMENT_MS = 1

test('one clock: processes started at once read the shared clock alike, to within their messages\' round trip', async () => {
  const child = `import { now } from ${JSON.stringify(new URL('../../servers/lib/stamps.js', import.meta.url).href)}
process.on('message', () => process.send(now()))`
  const kids = Array.from({ length: 8 }, () => fork('--input-type=module', [], { execArgv: ['-e', child], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }))
  try {
    for (const kid of kids) {
      let best = null // the reading with the shortest round trip brackets the child's moment closest
      for (let i = 0; i < 10; i++) {
        const a = now()
        kid.send(1)
        const [t] = await once(kid, 'message')
        const b = now()
        if (best === null || b - a < best.rtt) best = { rtt: b - a, off: t - (a + b) / 2 }
      }
      assert.ok(Math.abs(best.off) <= best.rtt / 2 + 0.001, `a child's clock ${best.off.toFixed(3)} ms off, round trip ${best.rtt.toFixed(3)} ms`)
    }
  } finally {
    for (const kid of kids) kid.kill()
    await Promise.all(kids.map((k) => k.exitCode === null && k.signalCode === null ? once(k, 'exit') : null))
  }
})

// A small open-loop round at `url` (the request count bounds the test, not its timing).
function smallRound (url) {
  return fireOpenLoop({ url, rate: 20, amount: 16, connections: 4, timeoutSec: 30 })
}

const FAMILIES = [
  ['simple', ['sent', 'wait', 'run', 'reply']],
  ['queued-threads', ['sent', 'wait', 'queue', 'send', 'run', 'return', 'reply']],
  ['queued-processes', ['sent', 'wait', 'queue', 'send', 'run', 'return', 'reply']],
  ['worker-per-request', ['sent', 'wait', 'start', 'send', 'run', 'return', 'reply']],
  ['child-process', ['sent', 'wait', 'start', 'send', 'run', 'return', 'reply']]
]

for (const [name, expected] of FAMILIES) {
  test(`${name}: its phases, adding up to every request's latency`, async (t) => {
    const server = await startServer(name, ['--work', 'loop:1e4', '--telemetry', 'off'])
    t.after(() => server.stop())
    const raw = await smallRound(server.url + '/')
    assert.equal(raw.ok, 16)
    const f = phaseFigures(raw.phases)
    const seen = JSON.stringify(f)
    assert.deepEqual([f.count, f.missing, f.ignored], [16, 0, 0], `every answer stamped and read: ${seen}`)
    assert.deepEqual(Object.keys(f.phases), expected, seen)
    assert.ok(f.unexplained.maxMs <= AGREEMENT_MS, `every request within ${AGREEMENT_MS} ms, got ${f.unexplained.maxMs}`)
    // the phases' totals against the latencies' (both exact sums, the latency read back from its histogram)
    const phaseTotal = raw.phases.sums.reduce((a, v) => a + v, 0)
    const latency = summarizeHistogram(raw.latency)
    assert.ok(Math.abs(phaseTotal / 16 - latency.mean) <= AGREEMENT_MS + 0.01 * latency.mean)
  })
}

test('a work with bytes: its input carried into each thread or process and its result back, every body checked', async (t) => {
  const spec = 'loop:1e3:bytes=1e5'
  for (const name of ['queued-threads', 'queued-processes', 'worker-per-request', 'child-process']) {
    const server = await startServer(name, ['--work', spec, '--telemetry', 'off'])
    try {
      const raw = await fireOpenLoop({ url: server.url + '/', rate: 20, amount: 6, connections: 2, timeoutSec: 30, expected: expectedBody(spec) })
      assert.deepEqual([raw.ok, raw.mismatches], [6, 0], name)
      const f = phaseFigures(raw.phases)
      assert.ok(f.phases.send && f.phases.return, `${name}: send and return stamped`)
      assert.ok(f.unexplained.maxMs <= AGREEMENT_MS)
    } finally {
      await server.stop()
    }
  }
})

test('the cheap route is answered on the main thread, stamped with wait and run only', async (t) => {
  const server = await startServer('queued-threads', ['--work', 'loop:1e4', '--telemetry', 'off'])
  t.after(() => server.stop())
  const res = await fetch(server.url + '/cheap')
  assert.equal(await res.text(), '{"cheap":true}')
  assert.match(res.headers.get('lab-stamps'), /^wait=\d+\.\d{3},run=\d+\.\d{3}$/)
})

test('a server whose Lab-Stamps lie is ignored and counted; LOADLAB_STAMPS=off sends none', async (t) => {
  const values = ['wait=0,run=1', 'run=5,wait=1', 'x'.repeat(600), 'wait=NaN']
  let i = 0
  const liar = createServer((req, res) => {
    const t = now()
    const value = i < values.length ? values[i++] : `wait=${t.toFixed(3)},run=${(t + 3600e3).toFixed(3)}`
    res.setHeader('lab-stamps', value)
    res.end('{}')
  })
  liar.listen(0, '127.0.0.1')
  await once(liar, 'listening')
  t.after(() => liar.close())
  const raw = await smallRound(`http://127.0.0.1:${liar.address().port}/`)
  assert.equal(raw.ok, 16)
  assert.deepEqual([raw.phases.count, raw.phases.ignored], [0, 16])

  const off = await startServer('simple', ['--work', 'loop:1e3', '--telemetry', 'off'], { env: { LOADLAB_STAMPS: 'off' } })
  t.after(() => off.stop())
  const plain = await smallRound(off.url + '/')
  assert.deepEqual([plain.phases.count, plain.phases.missing], [0, 16])
})

// A server of its own whose handler sets `lab-stamps` with `lines(t0, t1)` (an array: one header line each).
async function linesServer (t, lines) {
  const server = createServer((req, res) => {
    const t0 = now()
    while (now() - t0 < 1); // a millisecond of work, so that `run` is a phase of its own
    res.setHeader('lab-stamps', lines(t0, now()))
    res.end('{}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => server.close())
  return `http://127.0.0.1:${server.address().port}/`
}

test('Lab-Stamps sent as two header lines are read as one list (RFC 9110), never the last line alone', async (t) => {
  const url = await linesServer(t, (t0, t1) => [`wait=${t0.toFixed(3)}`, `run=${t1.toFixed(3)}`])
  const raw = await smallRound(url)
  const f = phaseFigures(raw.phases)
  assert.deepEqual([f.count, f.ignored], [16, 0])
  assert.deepEqual(Object.keys(f.phases), ['sent', 'wait', 'run', 'reply'], 'wait and run both read: the split is the true one')
  assert.ok(f.unexplained.maxMs <= AGREEMENT_MS)
})

test('Lab-Stamps lines that together repeat a phase are ignored and counted, not split by the last one', async (t) => {
  const one = (t0, t1) => `wait=${t0.toFixed(3)},run=${t1.toFixed(3)}`
  const url = await linesServer(t, (t0, t1) => [one(t0 - 0.5, t1 - 0.5), one(t0, t1)])
  const raw = await smallRound(url)
  assert.deepEqual([raw.phases.count, raw.phases.ignored], [0, 16])
})
