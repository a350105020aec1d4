// The event-loop instruments' check (servers/lib/instruments.js) judged on readings shaped like each
// runtime's, and what telemetry makes of an untrusted instrument: null with its reason, over processes
// too (never a mean of the processes that could). The real runtimes are in test/loadtest/run/watch/runtimes.test.js.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BLOCK_MS, checkInstruments, judgeElu, judgeHistogram, runtimeFrom } from '../../servers/lib/instruments.js'
import { aggregate, unmeasuredOf } from '../../servers/lib/telemetry.js'

const ms = (x) => x * 1e6 // the histogram's nanoseconds

test('the delay histogram: trusted when it saw most of every block, with the offset its samples carry', () => {
  // Node: every sample carries the 10 ms timer interval
  const node = judgeHistogram([50, 44, 47].map((d) => ({ idle: ms(10.1), max: ms(10 + d), count: 6 })))
  assert.deepEqual(node, { trusted: true, offsetMs: 10, seenMs: [50, 44, 47], reason: null })
  // one block's idle samples read low (a sample of microseconds on a loaded machine): the offset is still Node's
  const odd = judgeHistogram([[50, 10.1], [44, 0.004], [47, 10.2]]
    .map(([d, i]) => ({ idle: ms(i), max: ms(10 + d), count: 6 })))
  assert.deepEqual(odd, node)
  // Bun: no interval in the samples, so nothing is subtracted
  const bun = judgeHistogram([49.9, 50.1, 40].map((d) => ({ idle: ms(0.08), max: ms(d), count: 6 })))
  assert.deepEqual([bun.trusted, bun.offsetMs, bun.seenMs], [true, 0, [49.9, 50.1, 40]])
  // Deno: sees one block of three
  const deno = judgeHistogram([53.8, 0.039, 0.018].map((d) => ({ idle: ms(0.00005), max: ms(d), count: 13 })))
  assert.equal(deno.trusted, false)
  assert.equal(deno.reason, `at start, monitorEventLoopDelay read 3 blocks of ${BLOCK_MS} ms as 53.8, 0.039, 0.018 ms`)
  const none = judgeHistogram([{ idle: 0, max: 0, count: 0 }, { idle: ms(10), max: ms(60), count: 3 }])
  assert.equal(none.trusted, false)
  assert.match(none.reason, /took no sample around a 50 ms block$/)
})

test('the utilisation: trusted when its active time covers most of the blocks', () => {
  assert.deepEqual(judgeElu({ active: 153.6, utilization: 0.7 }), { trusted: true, seenMs: 153.6, reason: null })
  assert.deepEqual(judgeElu({ active: 0, utilization: 0 }), {
    trusted: false, seenMs: 0, reason: 'at start, eventLoopUtilization read 3 blocks of 50 ms as 0 ms active'
  })
})

test('the runtime as it names itself, from its versions', () => {
  assert.deepEqual(runtimeFrom({ versions: { node: '24.21.0', v8: '13.6' } }), { name: 'node', version: '24.21.0', engine: 'V8 13.6' })
  assert.deepEqual(runtimeFrom({ versions: { node: '26.3.0', v8: '15.0', deno: undefined }, deno: '2.9.6' }), {
    name: 'deno', version: '2.9.6', engine: 'V8 15.0'
  })
  const bun = runtimeFrom({ versions: { node: '26.3.0', bun: '1.4.5', v8: '14.6', webkit: 'd6375c72affe0f70' } })
  assert.deepEqual(bun, { name: 'bun', version: '1.4.5', engine: 'JavaScriptCore (WebKit d6375c72affe)' })
})

test('this process checks its instruments once: under Node both are trusted', async () => {
  const [a, b] = await Promise.all([checkInstruments(), checkInstruments()])
  assert.equal(a, b, 'one check per process')
  assert.equal(a.eventLoopDelay.trusted, true, JSON.stringify(a))
  assert.equal(a.eventLoopDelay.offsetMs, 10)
  assert.equal(a.elu.trusted, true, JSON.stringify(a))
  assert.deepEqual(unmeasuredOf(a), {})
})

test('an untrusted instrument is null with its reason in every figure over processes', () => {
  const why = 'at start, eventLoopUtilization read 3 blocks of 50 ms as 0 ms active'
  const proc = (pid, over) => ({
    pid,
    role: 'worker',
    windowMs: 100,
    eventLoop: { p50: 1, p99: 2, max: 3, mean: 1 },
    elu: 0.5,
    ticks: 90,
    requests: { completed: 1, failed: 0 },
    taskSetups: 0,
    unmeasured: {},
    ...over
  })
  const all = aggregate({ strategy: 's', processes: [proc(1), proc(2, { elu: null, unmeasured: { elu: why } })] })
  assert.equal(all.elu, null, 'not the mean of the one process that could')
  assert.deepEqual(all.unmeasured, { elu: why })
  assert.deepEqual(all.eventLoop, { p50: 1, p99: 2, max: 3 })
  // on and trusted, but no sample anywhere: null, and said so
  const idle = aggregate({ strategy: 's', processes: [proc(1, { eventLoop: null })] })
  assert.equal(idle.eventLoop, null)
  assert.match(idle.unmeasured.eventLoop, /^monitorEventLoopDelay took no sample in the window/)
  // telemetry off: nothing to explain
  const off = aggregate({ strategy: 's', processes: [proc(1, { eventLoop: null, elu: null, ticks: null })] })
  assert.deepEqual(off.unmeasured, {})
  assert.equal(unmeasuredOf(null).elu, 'the instrument check has not finished')
})
