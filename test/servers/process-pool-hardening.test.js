// queued-processes and servers/lib/process-pool.js against tasks that misbehave (issue 48, M2): a task
// that ignores SIGTERM and never returns (the server under load is stopped, every pool process with it:
// SIGKILL after the pool's grace, none orphaned), one that allocates without bound (500, its process
// replaced), one that writes 100 MB to stdout (answered, nothing buffered), and pool sizes out of range;
// and the lab's side: a process a server leaves behind is found, killed and reported.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pWaitFor from 'p-wait-for'
import { ROOT, isAlive, processTree, runServer, startServer } from '../helpers/server.js'
import { KILL_AFTER_MS } from '../../servers/lib/process-pool.js'
import { runEntry } from '../../loadtest/run/round/runner.js'
import { entryLoad } from '../../loadtest/run/round/load.js'

const TASKS = join(ROOT, 'test', 'fixtures', 'tasks')
const wait = { interval: 50, timeout: 20000 }

const gauges = async (srv) => (await (await fetch(`${srv.url}/__lab/stats`)).json()).gauges

test('queued-processes: SIGTERM under load with tasks that ignore SIGTERM and never return: the server exits, no pool process is left', async (t) => {
  const srv = await startServer('queued-processes', ['--processes', '2', '--task', join(TASKS, 'ignores-sigterm.mjs')])
  t.after(() => srv.stop('SIGKILL'))
  const pool = processTree(srv.pid).slice(1)
  assert.equal(pool.length, 2)
  const answers = [1, 2, 3].map(() => fetch(`${srv.url}/`).then((r) => r.status, (err) => err.name))
  await pWaitFor(async () => (await gauges(srv)).processesBusy === 2, wait)
  const stoppedAt = performance.now()
  const exit = await srv.stop('SIGTERM')
  const tookMs = performance.now() - stoppedAt
  assert.deepEqual(exit, { code: 0, signal: null }, srv.stderr())
  // the pool's own grace, then SIGKILL: before the server's shutdown limit, which would exit 1 and say so
  assert.doesNotMatch(srv.stderr(), /still running after/)
  t.diagnostic(`exited ${Math.round(tookMs)} ms after SIGTERM (pool grace ${KILL_AFTER_MS} ms)`)
  for (const pid of pool) assert.equal(isAlive(pid), false, `pool process ${pid} ended with the server`)
  const statuses = await Promise.all(answers)
  assert.ok(statuses.every((s) => s === 503 || s === 'TypeError'), `in-flight requests: ${statuses}`)
})

test('queued-processes --heap-mb: a task that allocates without bound ends its process at that size: 500, replaced, the next request served', async (t) => {
  const srv = await startServer('queued-processes', ['--processes', '1', '--heap-mb', '64', '--task', join(TASKS, 'allocates.mjs')])
  t.after(() => srv.stop('SIGKILL'))
  const [, first] = processTree(srv.pid)
  const r = await fetch(`${srv.url}/`)
  assert.equal(r.status, 500)
  assert.match((await r.json()).message, /pool process exited with (SIGABRT|SIGTRAP|code \d+) while working/)
  await pWaitFor(async () => (await gauges(srv)).processes === 1, wait)
  assert.equal(isAlive(first), false)
  assert.deepEqual([(await gauges(srv)).processesReplaced, processTree(srv.pid).length], [1, 2])
  assert.equal((await fetch(`${srv.url}/?work=fib:15`)).status, 200, 'the replacement serves')
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-processes: a task that writes 100 MB to stdout is answered; nothing of it is buffered by the server', async (t) => {
  const srv = await startServer('queued-processes', ['--processes', '1', '--task', join(TASKS, 'prints.mjs')])
  t.after(() => srv.stop('SIGKILL'))
  const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readStatus(pid))[1]) * 1024
  const before = rssOf(srv.pid)
  const r = await fetch(`${srv.url}/`)
  assert.equal(r.status, 200)
  assert.deepEqual(await r.json(), { printed: 100 })
  assert.ok(rssOf(srv.pid) - before < 50e6, 'the server did not hold the 100 MB')
  assert.equal((await gauges(srv)).processesReplaced, 0)
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-processes --processes 0 or 1000: refused at start in one line, exit 2, nothing started', async () => {
  for (const n of ['0', '1000']) {
    const r = await runServer('queued-processes', ['--processes', n, '--port', '0'])
    assert.equal(r.code, 2)
    assert.equal(r.stderr.trim(), `--processes: expected an integer from 1 to 64, got "${n}"`)
  }
})

function readStatus (pid) {
  return readFileSync(`/proc/${pid}/status`, 'utf8')
}

test('the lab finds a server\'s process left behind (a child that ignores SIGTERM outliving its server), kills it and fails the run', async () => {
  process.env.LOADLAB_EXTRA_SERVERS ??= join(ROOT, 'test', 'fixtures', 'servers')
  const load = entryLoad({ server: 'orphans-child' }, {
    connections: 2, amount: 10, durationSec: null, timeoutSec: 5, warmup: 0, runs: 1, recovery: false, rate: null
  })
  const record = await runEntry({ server: 'orphans-child', args: [], work: 'loop:1e2' }, load, { signal: new AbortController().signal })
  assert.equal(record.stop.leftovers.length, 1, JSON.stringify(record.stop))
  assert.match(record.failure.reason, /^1 process\(es\) of its tree left after it exited \(killed: \d+\)$/)
  await pWaitFor(() => !isAlive(record.stop.leftovers[0]), wait)
})
