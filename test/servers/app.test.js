import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildApp } from '../../servers/lib/app.js'
import { ServerError } from '../../servers/lib/errors.js'
import { parseOptions } from '../../servers/lib/options.js'
import { timedRun } from '../../servers/lib/task.js'
import { aggregate, createTelemetry } from '../../servers/lib/telemetry.js'
import { expectedBody, parseWork } from '../../servers/lib/workloads.js'

function inlineApp (handle = timedRun) {
  const telemetry = createTelemetry()
  const app = buildApp({ strategy: 'test', work: parseWork('fib:20'), handle, telemetry })
  return {
    app,
    ready: telemetry.ready, // its instruments checked (three 50 ms blocks), as start() waits for before listening
    close: async () => {
      await app.close()
      telemetry.close()
    }
  }
}

test('GET / answers the verified body, JSON, with Server-Timing work and queue', async (t) => {
  const { app, close } = inlineApp()
  t.after(close)
  const res = await app.inject('/')
  assert.equal(res.statusCode, 200)
  assert.equal(res.body, expectedBody('fib:20'))
  assert.match(res.headers['content-type'], /^application\/json/)
  assert.match(res.headers['server-timing'], /^work;dur=\d+\.\d\d, queue;dur=\d+\.\d\d$/)
  const other = await app.inject('/?work=loop:1e3')
  assert.equal(other.body, expectedBody('loop:1e3'))
})

test('a bad ?work= is a 400 naming the valid specs; a throwing task a 500 JSON; the app keeps serving', async (t) => {
  const { app, close } = inlineApp()
  t.after(close)
  const bad = await app.inject('/?work=loop:abc')
  assert.equal(bad.statusCode, 400)
  assert.deepEqual(Object.keys(bad.json()), ['error', 'code', 'message'])
  assert.equal(bad.json().code, 'ERR_BAD_WORK')
  assert.match(bad.json().message, /"loop:abc": expected loop:N .* sleep-sync:MS/)
  const twice = await app.inject('/?work=fib:3&work=fib:4')
  assert.equal(twice.statusCode, 400)
  assert.equal(twice.json().message, '?work given more than once: give one work spec')
  const failed = await app.inject('/?work=fail:1')
  assert.equal(failed.statusCode, 500)
  assert.equal(failed.json().code, 'ERR_TASK_FAILED')
  assert.match(failed.json().message, /requested failure/)
  assert.equal((await app.inject('/')).statusCode, 200)
  const stats = (await app.inject('/__lab/stats')).json()
  assert.deepEqual(stats.requests, { completed: 1, failed: 3 })
})

test('LabErrors answer with their status, and Retry-After when they carry one', async (t) => {
  const { app, close } = inlineApp(() => {
    throw new ServerError('ERR_QUEUE_FULL', 'queue full')
  })
  t.after(close)
  const res = await app.inject('/')
  assert.equal(res.statusCode, 503)
  assert.equal(res.headers['retry-after'], '1')
  assert.deepEqual(res.json(), { error: 'Service Unavailable', code: 'ERR_QUEUE_FULL', message: 'queue full' })
})

test('/health, /__lab/stats and its reset', async (t) => {
  const { app, ready, close } = inlineApp()
  t.after(close)
  await ready
  assert.deepEqual((await app.inject('/health')).json(), {
    status: 'ok',
    strategy: 'test',
    pid: process.pid,
    runtime: { name: 'node', version: process.versions.node, engine: `V8 ${process.versions.v8}` },
    node: process.version,
    v8: process.versions.v8
  })
  for (let i = 0; i < 3; i++) await app.inject('/')
  const stats = (await app.inject('/__lab/stats')).json()
  assert.equal(stats.strategy, 'test')
  assert.equal(stats.processes.length, 1)
  assert.equal(stats.processes[0].role, 'main')
  assert.deepEqual(stats.requests, { completed: 3, failed: 0 })
  assert.ok(stats.windowMs > 0 && typeof stats.elu === 'number' && stats.elu >= 0 && stats.elu <= 1 && stats.ticks >= 0)
  const reset = await app.inject({ method: 'POST', url: '/__lab/stats/reset' })
  assert.equal(reset.statusCode, 200)
  const after = (await app.inject('/__lab/stats')).json()
  assert.deepEqual(after.requests, { completed: 0, failed: 0 })
  assert.ok(after.windowMs < stats.windowMs)
})

test('telemetry off: no loop figures (null), requests still counted; aggregate takes worst/mean/sums', () => {
  const off = createTelemetry({ enabled: false })
  off.count(true)
  const snap = off.snapshot()
  assert.equal(snap.eventLoop, null)
  assert.equal(snap.elu, null)
  assert.equal(snap.ticks, null)
  assert.deepEqual(snap.requests, { completed: 1, failed: 0 })
  const p = (pid, p99, elu, ticks, completed) => ({
    pid,
    role: 'worker',
    windowMs: 10,
    eventLoop: { p50: 1, p99, max: p99, mean: 1 },
    elu,
    ticks,
    requests: { completed, failed: 1 }
  })
  const all = aggregate({ strategy: 's', processes: [p(1, 5, 0.2, 10, 3), p(2, 9, 0.4, 20, 4)], gauges: { x: 1 } })
  assert.deepEqual(all.eventLoop, { p50: 1, p99: 9, max: 9 })
  assert.ok(Math.abs(all.elu - 0.3) < 1e-9)
  assert.equal(all.ticks, 30)
  assert.deepEqual(all.requests, { completed: 7, failed: 2 })
  assert.deepEqual(all.gauges, { x: 1 })
  off.close()
})

test('parseOptions: defaults, environment fallbacks, and one-line errors naming flag, rule and value', () => {
  const extra = {
    threads: {
      default: '2',
      parse: (s) => {
        if (!/^[1-9]\d*$/.test(s)) throw new Error('expected a positive integer')
        return Number(s)
      },
      help: ''
    }
  }
  const o = parseOptions({ strategy: 'x', work: 'fib:20', extra, argv: [], env: {} })
  assert.equal(o.port, 3000)
  assert.equal(o.host, '127.0.0.1')
  assert.equal(o.telemetry, 'on')
  assert.equal(o.threads, 2)
  assert.equal(o.work.spec, 'fib:20')
  const e = parseOptions({
    strategy: 'x',
    work: 'fib:20',
    extra,
    argv: ['--threads', '3'],
    env: { PORT: '0', HOST: '::1', WORK: 'loop:10' }
  })
  assert.deepEqual([e.port, e.host, e.work.spec, e.threads], [0, '::1', 'loop:10', 3])
  const fails = [
    [['--threads', 'abc'], '--threads: expected a positive integer, got "abc"'],
    [['--port', '70000'], '--port: expected an integer from 0 to 65535, got "70000"'],
    [['--telemetry', 'maybe'], '--telemetry: expected one of on, off, got "maybe"'],
    [
      ['--bogus', '1'],
      '--bogus: unknown option (valid: --port, --host, --work, --task, --input, --task-timeout, --telemetry, --work-override, --request-timeout, --threads, --help)'
    ],
    [['--work', 'loop:abc'], /^bad work spec "loop:abc": expected/],
    [['stray'], 'x: unexpected argument stray (options are --flags, see --help)']
  ]
  for (const [argv, message] of fails) {
    assert.throws(
      () => parseOptions({ strategy: 'x', work: 'fib:20', extra, argv, env: {} }),
      (err) => {
        assert.equal(err.exitCode, 2)
        if (typeof message === 'string') assert.equal(err.message, message)
        else assert.match(err.message, message)
        return true
      },
      argv.join(' ')
    )
  }
  assert.throws(
    () => parseOptions({ strategy: 'x', work: 'fib:20', argv: [], env: { PORT: 'x' } }),
    /--port: .* got "x" \(from PORT\)/
  )
})
