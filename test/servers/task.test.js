// --task: a task module runs wherever built-in work runs, in every server, with verified bodies; setup()
// once per process/thread (telemetry taskSetups); async and CommonJS tasks; every failure an answer;
// relative paths (with spaces and non-ASCII) resolved from the server's working directory.
import assert from 'node:assert/strict'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import pWaitFor from 'p-wait-for'
import sum, { input as sumInput, setup as sumSetup } from '../fixtures/tasks/sum.mjs'
import { fire, getJson, processTree, ROOT, runServer, startServer } from '../helpers/server.js'

const TASKS = join(ROOT, 'test', 'fixtures', 'tasks')
const SUM = join(TASKS, 'sum.mjs')
sumSetup()
const sumBody = JSON.stringify(sum(sumInput))
const statsOf = async (srv) => (await getJson(`${srv.url}/__lab/stats`)).body
const AMOUNT = 20

// server, extra args, and what taskSetups must be after AMOUNT + 1 requests (n) over `workers` processes.
const fleet = [
  { name: 'simple', setups: (n) => n === 1 },
  {
    name: 'cluster',
    args: ['--workers', '2'],
    setups: (n, procs) => n >= 1 && n <= 2 && procs.every((p) => p.taskSetups <= 1)
  },
  { name: 'child-process', setups: (n, procs, requests) => n === requests },
  { name: 'worker-per-request', setups: (n, procs, requests) => n === requests },
  { name: 'cluster-threads', args: ['--workers', '2'], setups: (n, procs, requests) => n === requests },
  { name: 'queued-threads', args: ['--threads', '2'], setups: (n) => n >= 1 && n <= 2 },
  { name: 'queued-processes', args: ['--processes', '2'], setups: (n) => n >= 1 && n <= 2 },
  // piscina's defaults (idleTimeout 0): a thread ended when idle is a new thread with its own setup
  {
    name: 'sleep-variants',
    args: ['--variant', 'sync-sleep-pooled'],
    setups: (n, procs, requests) => n >= 1 && n <= requests
  },
  { name: 'long-vs-small-tasks', setups: (n) => n === 1 }
]

for (const { name, args = [], setups } of fleet) {
  test(`${name} --task sum.mjs: every body is the task's result; setup() once per process/thread`, async (t) => {
    const srv = await startServer(name, [...args, '--task', SUM])
    t.after(() => srv.stop())
    assert.match(srv.work, /^task:sum\.mjs@[0-9a-f]{10}$/)
    const first = await fetch(`${srv.url}/`)
    assert.equal(first.status, 200)
    assert.equal(await first.text(), sumBody)
    assert.match(first.headers.get('server-timing'), /^work;dur=[\d.]+, queue;dur=[\d.]+/)
    const burst = await fire(srv.url, { connections: 4, amount: AMOUNT, expected: sumBody })
    assert.deepEqual(burst.statuses, { 200: AMOUNT })
    assert.equal(burst.mismatches, 0)
    const stats = await statsOf(srv)
    assert.equal(stats.requests.completed, AMOUNT + 1)
    assert.ok(
      setups(stats.taskSetups, stats.processes, AMOUNT + 1),
      `taskSetups ${stats.taskSetups} (${JSON.stringify(stats.processes.map((p) => p.taskSetups))})`
    )
    // built-in work still runs beside the task
    assert.equal(await (await fetch(`${srv.url}/?work=fib:10`)).text(), '{"fib":55}')
    assert.deepEqual(await srv.stop(), { code: 0, signal: null })
  })
}

test('an async task under a named export and a CommonJS task, in threads and forks', async (t) => {
  // a strategy's two servers boot and answer at once (each its own server, its own checks)
  for (const name of ['simple', 'worker-per-request', 'child-process', 'queued-threads']) {
    await Promise.all([
      (async () => {
        const a = await startServer(name, ['--task', join(TASKS, 'async.mjs#twice'), '--input', '[5,6]'])
        t.after(() => a.stop())
        assert.match(a.work, /^task:async\.mjs#twice@[0-9a-f]{10}\.[0-9a-f]{8}$/, 'the input is part of the spec')
        for (let i = 0; i < 3; i++) assert.equal(await (await fetch(`${a.url}/`)).text(), '{"twice":[10,12],"ready":true}')
        assert.deepEqual(await a.stop(), { code: 0, signal: null })
      })(),
      (async () => {
        const c = await startServer(name, ['--task', join(TASKS, 'task.cjs'), '--input', '{"text":"one two  three"}'])
        t.after(() => c.stop())
        assert.equal(await (await fetch(`${c.url}/`)).text(), '{"words":3}')
        assert.deepEqual(await c.stop(), { code: 0, signal: null })
      })()
    ])
  }
})

test('a task module that is missing, not a function or given bad input stops the server at start (exit 2, one line)', async () => {
  const cases = [
    [['--task', 'no/such-task.js'], /^--task: cannot read .*no\/such-task\.js: no such file$/],
    [
      ['--task', join(TASKS, 'failing.mjs')],
      /^task .*failing\.mjs: export default is a number, not a function \(functions exported: .*\)$/
    ],
    [['--task', join(TASKS, 'failing.mjs#nope')], /export nope is undefined, not a function/],
    [['--task', SUM, '--input', '{nope'], /^--input: not JSON/],
    [['--task', SUM, '--input', '@missing.json'], /^--input: cannot read .*missing\.json: no such file$/],
    [['--task', SUM, '--work', 'fib:3'], /^--work: excludes --task/],
    [['--input', '{}'], /^--input: only with --task$/]
  ]
  for (const name of ['simple', 'worker-per-request']) {
    // each case its own process, a strategy's all at once: each refuses before it listens
    await Promise.all(cases.map(async ([args, message]) => {
      const r = await runServer(name, ['--port', '0', ...args])
      assert.equal(r.code, 2, `${name} ${args.join(' ')}: ${r.stderr}`)
      const lines = r.stderr.trim().split('\n')
      assert.equal(lines.length, 1, r.stderr)
      assert.match(lines[0], message)
    }))
  }
  // cluster: the worker says why, the primary which worker, and exits 2 as well
  const c = await runServer('cluster', ['--port', '0', '--workers', '1', '--task', join(TASKS, 'failing.mjs')])
  assert.equal(c.code, 2, c.stderr)
  assert.match(c.stderr, /^task .*failing\.mjs: export default is a number, not a function/)
  const r = await runServer('long-vs-small-tasks', ['--port', '0', '--mode', 'small', '--task', SUM])
  assert.equal(r.code, 2)
  assert.match(r.stderr.trim(), /^--mode small: cannot split a --task into steps/)
})

test('a task that throws, in setup() or per call, or whose result is not JSON: 500 with its message, and the server keeps serving', async (t) => {
  const cases = [
    [join(TASKS, 'setup-throws.mjs'), 'ERR_TASK_SETUP', /^task setup\(\) failed: no database here$/],
    [join(TASKS, 'failing.mjs#throws'), 'ERR_TASK_FAILED', /^task threw: bad input \{"a":1\}$/],
    [
      join(TASKS, 'failing.mjs#notJson'),
      'ERR_TASK_RESULT',
      /^task result is not JSON-serialisable: Do not know how to serialize a BigInt$/
    ],
    [join(TASKS, 'failing.mjs#nothing'), 'ERR_TASK_RESULT', /^task result is not JSON-serialisable: got undefined$/]
  ]
  // each case its own server: a strategy's four servers boot and answer at once (boots mostly wait)
  for (const name of ['simple', 'worker-per-request', 'child-process', 'queued-threads']) {
    await Promise.all(cases.map(async ([task, code, message]) => {
      const srv = await startServer(name, ['--task', task, '--input', '{"a":1}'])
      t.after(() => srv.stop())
      for (let i = 0; i < 2; i++) {
        const r = await getJson(`${srv.url}/`)
        assert.equal(r.status, 500, `${name} ${task}`)
        assert.equal(r.body.code, code, `${name} ${task}: ${JSON.stringify(r.body)}`)
        assert.match(r.body.message, message)
      }
      assert.equal((await getJson(`${srv.url}/health`)).status, 200)
      assert.equal(await (await fetch(`${srv.url}/?work=fib:10`)).text(), '{"fib":55}')
      assert.deepEqual((await statsOf(srv)).requests, { completed: 1, failed: 2 })
      assert.deepEqual(await srv.stop(), { code: 0, signal: null })
    }))
  }
})

test('a task that never settles (a pending promise, a synchronous loop) answers 500 at --task-timeout; no thread or child is left', async (t) => {
  for (const name of ['simple', 'worker-per-request', 'child-process', 'queued-threads', 'sleep-variants']) {
    const exports = name === 'simple' ? ['never'] : ['never', 'spin'] // inline, a synchronous loop would hang the server
    // each export its own server, both at once (their checks are per server: its pid, its tree, its threads)
    await Promise.all(exports.map(async (exp) => {
      const args = ['--task', `${join(TASKS, 'failing.mjs')}#${exp}`, '--task-timeout', '300']
      const srv = await startServer(name, [
        ...args,
        ...(name === 'sleep-variants' ? ['--variant', 'sync-sleep-pooled'] : [])
      ])
      t.after(() => srv.stop())
      const threadsBefore = threadCount(srv.pid)
      const r = await getJson(`${srv.url}/`)
      assert.equal(r.status, 500)
      assert.equal(r.body.code, 'ERR_TASK_TIMEOUT', JSON.stringify(r.body))
      assert.match(r.body.message, /^task did not settle within 300 ms/)
      assert.equal(await (await fetch(`${srv.url}/?work=fib:10`)).text(), '{"fib":55}', `${name} ${exp} keeps serving`)
      const { gauges } = await statsOf(srv)
      if ('inFlight' in gauges) { await pWaitFor(async () => (await statsOf(srv)).gauges.inFlight === 0, { interval: 20, timeout: 10000 }) }
      if (name === 'queued-threads') assert.equal(gauges.threadsBusy, 0)
      // the spinning child is gone, and the spinning thread was ended (piscina replaces it)
      await pWaitFor(() => processTree(srv.pid).length === 1, { interval: 20, timeout: 10000 })
      if (name === 'worker-per-request') { await pWaitFor(() => threadCount(srv.pid) <= threadsBefore, { interval: 20, timeout: 10000 }) }
      assert.deepEqual(await srv.stop(), { code: 0, signal: null })
    }))
  }
})

test('a child that traps SIGTERM and spins is killed KILL_GRACE_MS later, and its 500 says so', async (t) => {
  const srv = await startServer('child-process', ['--task', `${join(TASKS, 'failing.mjs')}#trapsSigterm`, '--task-timeout', '300'])
  t.after(() => srv.stop())
  const r = await getJson(`${srv.url}/`)
  assert.equal(r.status, 500)
  assert.match(r.body.message, /^task did not settle within 300 ms \(its child process was sent SIGTERM, and SIGKILL 500 ms later if it still ran\)$/)
  await pWaitFor(() => processTree(srv.pid).length === 1, { interval: 20, timeout: 5000 })
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('relative --task and --input @file (spaces, non-ASCII) resolve from the working directory, in threads, forks and cluster', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-task-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'my tâche ü'))
  cpSync(SUM, join(dir, 'my tâche ü', 'sum.mjs'))
  cpSync(join(TASKS, 'task.cjs'), join(dir, 'my tâche ü', 'wörds.cjs'))
  writeFileSync(join(dir, 'input file é.json'), '{ "text": "a b c d" }')
  for (const name of ['simple', 'worker-per-request', 'child-process', 'queued-threads', 'cluster-threads']) {
    const extra = name === 'cluster-threads' ? ['--workers', '1'] : []
    // the strategy's two servers at once, each from the same working directory
    await Promise.all([
      (async () => {
        const a = await startServer(name, [...extra, '--task', './my tâche ü/sum.mjs'], { cwd: dir })
        t.after(() => a.stop())
        assert.equal(await (await fetch(`${a.url}/`)).text(), sumBody, name)
        assert.deepEqual(await a.stop(), { code: 0, signal: null })
      })(),
      (async () => {
        const b = await startServer(name, [...extra, '--task', 'my tâche ü/wörds.cjs', '--input', '@input file é.json'], {
          cwd: dir
        })
        t.after(() => b.stop())
        assert.match(b.work, /^task:wörds\.cjs@/)
        assert.equal(await (await fetch(`${b.url}/`)).text(), '{"words":4}', name)
        assert.deepEqual(await b.stop(), { code: 0, signal: null })
      })()
    ])
  }
})

// Threads of a process, from /proc (a worker_threads Worker is one more).
function threadCount (pid) {
  return Number(/^Threads:\s+(\d+)/m.exec(readStatus(pid))?.[1] ?? 0)
}

function readStatus (pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return ''
  }
}
