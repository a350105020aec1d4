import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WORKLOADS, expectedBody, parseWork, runWork, waitMs } from '../../servers/lib/workloads.js'
import { now, portable, timedRun } from '../../servers/lib/task.js'

test('parseWork reads NAME:ARG, with 1e8-style numbers', () => {
  assert.deepEqual(parseWork('loop:1e8'), { name: 'loop', arg: 1e8, spec: 'loop:1e8' })
  assert.deepEqual(parseWork(' fib:30 '), { name: 'fib', arg: 30, spec: 'fib:30' })
  assert.deepEqual(parseWork({ name: 'sleep', arg: 5 }), { name: 'sleep', arg: 5, spec: 'sleep:5' })
  assert.deepEqual(WORKLOADS, ['loop', 'fib', 'render', 'ssr', 'sleep', 'sleep-sync', 'crash', 'fail'])
})

test('a spec with bytes: an input of N bytes carried to the work and answered back, the same body everywhere', async () => {
  assert.deepEqual(parseWork('loop:10:bytes=1e3'), { name: 'loop', arg: 10, spec: 'loop:10:bytes=1e3', bytes: 1000 })
  const body = JSON.parse(expectedBody('loop:10:bytes=1e3'))
  assert.equal(body.sum, 45)
  assert.equal(body.data.length, 1000)
  const carried = portable(parseWork('loop:10:bytes=1e3'))
  assert.equal(carried.input, body.data, 'the main thread hands the work its input')
  assert.equal((await timedRun(carried)).body, expectedBody('loop:10:bytes=1e3'))
  assert.equal((await timedRun(parseWork('loop:10:bytes=1e3'))).body, expectedBody('loop:10:bytes=1e3'), 'inline: made in place')
  assert.equal(JSON.parse(expectedBody('sleep:1:bytes=5')).data, 'abcde')
  assert.equal(portable(parseWork('loop:10')), 'loop:10', 'no bytes: the spec alone')
  assert.throws(() => runWork(parseWork('loop:10:bytes=4'), 'abc'), /expected an input of 4 bytes/)
  for (const bad of ['loop:10:bytes=', 'loop:10:bytes=1.5', 'loop:10:bytes=2e7', 'loop:10:size=3']) {
    assert.throws(() => parseWork(bad), { code: 'ERR_BAD_WORK' }, bad)
  }
})

test('bad specs throw ERR_BAD_WORK naming the spec and every valid one', () => {
  for (const bad of [
    'loop:abc',
    'loop',
    'nope:1',
    'fib:46',
    'fib:0',
    'loop:1e10',
    'render:100001',
    'ssr:20001',
    'sleep:60001',
    'sleep-sync:-1',
    'loop:1.5',
    'loop:0x10',
    '',
    'fib:30:1',
    { name: 'fib', arg: 99 }
  ]) {
    assert.throws(
      () => parseWork(bad),
      (err) => {
        assert.equal(err.code, 'ERR_BAD_WORK')
        assert.equal(err.statusCode, 400)
        const named = typeof bad === 'object' ? `${bad.name}:${bad.arg}` : bad
        assert.ok(
          err.message.startsWith(`bad work spec ${JSON.stringify(named)}: expected loop:N (1..1e9), fib:N (1..45)`),
          err.message
        )
        for (const k of WORKLOADS) assert.ok(err.message.includes(`${k}:`), k)
        assert.ok(!err.message.includes('\n'))
        return true
      },
      String(bad)
    )
  }
})

test('CPU workloads give the documented deterministic results', () => {
  assert.deepEqual(runWork('loop:1e6'), { sum: (1e6 * (1e6 - 1)) / 2 })
  assert.deepEqual(runWork('loop:1'), { sum: 0 })
  assert.deepEqual(runWork('fib:20'), { fib: 6765 })
  assert.deepEqual(runWork('fib:1'), { fib: 1 })
  const { html } = runWork('render:3')
  assert.equal(html.match(/<button style="color:#[0-9a-f]{6}">Button<\/button>/g).length, 3)
  assert.equal(html.match(/<a style="background-color:#[0-9a-f]{6}">I&#x27;m a link<\/a>/g).length, 3)
  assert.equal(runWork('render:3').html, html, 'colours come from the index, not random')
  assert.equal(new Set(html.match(/#[0-9a-f]{6}/g)).size, 6, 'each block has its own colours')
  const one = runWork('ssr:1').bytes
  assert.equal(one, Buffer.byteLength('<div><ul>' + '<li>text</li>'.repeat(5) + '</ul></div>'))
  assert.deepEqual(runWork('ssr:40'), { bytes: 40 * one })
})

test('sleep returns a Promise of {hello:"world"}; sleep-sync blocks the thread', async () => {
  const p = runWork('sleep:5')
  assert.ok(p instanceof Promise)
  assert.deepEqual(await p, { hello: 'world' })
  const t = performance.now()
  assert.deepEqual(runWork('sleep-sync:30'), { hello: 'world' })
  assert.ok(performance.now() - t >= 29)
})

test('fail:N throws "requested failure"', () => {
  assert.throws(() => runWork('fail:10'), /requested failure \(fail:10\)/)
  assert.throws(() => expectedBody('fail:0'), /requested failure/)
})

test('expectedBody is JSON.stringify of the result, memoised, and does not sleep', () => {
  const t1 = performance.now()
  assert.equal(expectedBody('loop:1e8'), '{"sum":4999999950000000}')
  const firstMs = performance.now() - t1
  assert.equal(expectedBody('fib:25'), '{"fib":75025}')
  assert.equal(expectedBody('ssr:5625'), JSON.stringify({ bytes: 5625 * runWork('ssr:1').bytes }))
  assert.equal(expectedBody('render:2'), JSON.stringify(runWork('render:2')))
  const t = performance.now()
  assert.equal(expectedBody('sleep:60000'), '{"hello":"world"}')
  assert.equal(expectedBody('sleep-sync:60000'), '{"hello":"world"}')
  assert.ok(performance.now() - t < 30000, 'no 60 s sleep') // a busy machine's JSON work, not the sleep
  // Memoised: the second call does not run 1e8 iterations again (a ratio, not an absolute time).
  const t2 = performance.now()
  expectedBody('loop:1e8')
  assert.ok(performance.now() - t2 < firstMs / 4, 'second call is memoised')
})

test("timedRun (every runner's core) gives the same body plus timing", async () => {
  const out = timedRun('fib:20')
  assert.equal(out.body, expectedBody('fib:20'))
  assert.ok(out.workMs >= 0 && out.startedAt > 0 && out.startedAt + out.workMs <= now(), 'on the shared clock (stamps.js)')
  const slept = await timedRun({ name: 'sleep', arg: 20 })
  assert.equal(slept.body, expectedBody('sleep:20'))
  assert.ok(slept.workMs >= 19)
})

test('waitMs: the sleeps wait their argument on no core; computing work and tasks do not wait', () => {
  assert.equal(waitMs('sleep:100'), 100)
  assert.equal(waitMs('sleep-sync:1e3'), 1000)
  assert.equal(waitMs('loop:1e7'), null)
  assert.equal(waitMs('task:x.mjs@00ff'), null)
})
