// Failures are answers: a full queue (503 + Retry-After), a client that leaves (its task is aborted),
// a child that dies (500), a cluster worker that dies (replaced). Every server is a real process.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pWaitFor from 'p-wait-for'
import { expectedBody } from '../../servers/lib/workloads.js'
import { getJson, isAlive, processTree, startServer } from '../helpers/server.js'

const wait = { interval: 20, timeout: 20000 }
const gaugesOf = async (srv) => (await getJson(`${srv.url}/__lab/stats`)).body.gauges

test('queued-threads --threads 1 --max-queue 1: the third concurrent request gets 503 + Retry-After at once', async (t) => {
  // 1.5 s a request: the 503 must come while the queued request is still pending (it ends 3 s after the
  // first began: a rejection that waited for the queue would come after it, and be no 503)
  const srv = await startServer('queued-threads', ['--threads', '1', '--max-queue', '1', '--work', 'sleep-sync:1500'])
  t.after(() => srv.stop())
  const settled = []
  const track = (name) => fetch(`${srv.url}/`).finally(() => settled.push(name))
  const a = track('a')
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  const b = track('b')
  await pWaitFor(async () => (await gaugesOf(srv)).queueLength === 1, wait)
  const c = await getJson(`${srv.url}/`)
  assert.ok(!settled.includes('b'), 'rejected without waiting for the queue (the queued request still pending)')
  assert.equal(c.status, 503)
  assert.equal(c.headers.get('retry-after'), '1')
  assert.equal(c.body.code, 'ERR_QUEUE_FULL')
  for (const res of await Promise.all([a, b])) {
    assert.equal(res.status, 200)
    assert.equal(await res.text(), expectedBody('sleep-sync:1500'))
  }
  assert.deepEqual(settled, ['a', 'b'], 'served in order')
  const g = await gaugesOf(srv)
  assert.equal(g.completed, 2)
  assert.equal(g.rejected, 1)
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-threads: queued requests are served first come, first served (piscina 5.3 alone does not)', async (t) => {
  const srv = await startServer('queued-threads', ['--threads', '1', '--work', 'sleep-sync:800'])
  t.after(() => srv.stop())
  const done = []
  const send = (name, work) =>
    fetch(`${srv.url}/?work=${work}`).then(async (res) => {
      assert.equal(res.status, 200)
      await res.text()
      done.push(name)
    })
  const first = send('A', 'sleep-sync:800')
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  // Each request is sent only once the previous one is known to be queued, so the arrival order is certain.
  const queued = []
  for (const [i, name] of ['B', 'C', 'D', 'E'].entries()) {
    queued.push(send(name, 'sleep-sync:30'))
    await pWaitFor(async () => (await gaugesOf(srv)).queueLength === i + 1, wait)
  }
  await Promise.all([first, ...queued])
  assert.deepEqual(done, ['A', 'B', 'C', 'D', 'E'])
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-threads --max-queue 0: a free thread takes the task, a busy pool refuses at once', async (t) => {
  const srv = await startServer('queued-threads', ['--threads', '1', '--max-queue', '0', '--work', 'sleep-sync:1000'])
  t.after(() => srv.stop())
  const a = fetch(`${srv.url}/`)
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  const b = await getJson(`${srv.url}/`)
  assert.equal(b.status, 503)
  assert.equal(b.headers.get('retry-after'), '1')
  assert.equal((await a).status, 200)
  assert.equal((await fetch(`${srv.url}/?work=fib:20`)).status, 200, 'a free thread takes the next one')
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('--telemetry off: no loop figures (null), requests still counted', async (t) => {
  const srv = await startServer('simple', ['--telemetry', 'off', '--work', 'fib:20'])
  t.after(() => srv.stop())
  assert.equal((await fetch(`${srv.url}/`)).status, 200)
  const { body } = await getJson(`${srv.url}/__lab/stats`)
  assert.equal(body.eventLoop, null)
  assert.equal(body.elu, null)
  assert.equal(body.ticks, null)
  assert.deepEqual(body.requests, { completed: 1, failed: 0 })
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-threads: a request whose client left is dropped from the queue, a running one is aborted', async (t) => {
  const srv = await startServer('queued-threads', ['--threads', '1', '--work', 'sleep-sync:1500'])
  t.after(() => srv.stop())
  const a = fetch(`${srv.url}/`)
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  const leaver = new AbortController()
  const b = fetch(`${srv.url}/`, { signal: leaver.signal }).catch((err) => err)
  await pWaitFor(async () => (await gaugesOf(srv)).queueLength === 1, wait)
  leaver.abort()
  assert.equal((await b).name, 'AbortError')
  await pWaitFor(async () => {
    const g = await gaugesOf(srv)
    return g.aborted === 1 && g.queueLength === 0
  }, wait)
  assert.equal((await a).status, 200)
  let g = await gaugesOf(srv)
  assert.equal(g.completed, 1, 'the abandoned request was never worked on')

  // A running task whose client leaves: its thread is replaced and the pool keeps serving.
  const runner = new AbortController()
  const d = fetch(`${srv.url}/?work=sleep-sync:20000`, { signal: runner.signal }).catch((err) => err)
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  runner.abort()
  await d
  await pWaitFor(async () => (await gaugesOf(srv)).aborted === 2, wait)
  const again = await fetch(`${srv.url}/?work=fib:20`)
  assert.equal(again.status, 200)
  assert.equal(await again.text(), expectedBody('fib:20'))
  g = await gaugesOf(srv)
  assert.equal(g.completed, 2)
  assert.equal(g.threads, 1)
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('child-process: a child killed while working answers 500 and the server keeps serving', async (t) => {
  const srv = await startServer('child-process', ['--work', 'fib:20'])
  t.after(() => srv.stop())
  const pending = getJson(`${srv.url}/?work=sleep:20000`)
  await pWaitFor(() => processTree(srv.pid).length === 2, wait)
  const [, child] = processTree(srv.pid)
  process.kill(child, 'SIGKILL')
  const res = await pending
  assert.equal(res.status, 500)
  assert.equal(res.body.code, 'ERR_TASK_FAILED')
  assert.match(res.body.message, /child exited with SIGKILL before answering/)
  const ok = await fetch(`${srv.url}/`)
  assert.equal(await ok.text(), expectedBody('fib:20'))
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('cluster: a worker that dies is replaced, and stats then cover the new one', async (t) => {
  const srv = await startServer('cluster', ['--workers', '2', '--work', 'fib:20'])
  t.after(() => srv.stop())
  const workerPids = (stats) =>
    stats.processes
      .filter((p) => p.role === 'worker')
      .map((p) => p.pid)
      .sort()
  const failWith = (what) => (err) => assert.fail(`${what()}; stderr: ${srv.stderr()} (${err.message})`)
  const before = workerPids((await getJson(`${srv.url}/__lab/stats`)).body)
  assert.equal(before.length, 2)
  process.kill(before[0], 'SIGKILL')
  // First the replacement as a process (no HTTP in the way), then the stats that cover it. A connection
  // the primary hands to the worker as it dies is reset, or never answered (node:cluster holds it): each
  // poll has its own timeout. The last reading goes into the failure, with the server's stderr.
  await pWaitFor(() => {
    const tree = processTree(srv.pid)
    return tree.length === 3 && !tree.includes(before[0])
  }, wait).catch(failWith(() => `no replacement: ${processTree(srv.pid)}`))
  let last = null
  await pWaitFor(async () => {
    try {
      const { body } = await getJson(`${srv.url}/__lab/stats`, { signal: AbortSignal.timeout(2000) })
      const now = workerPids(body)
      last = { restarted: body.gauges.workersRestarted, silent: body.gauges.workersSilent, now }
      return body.gauges.workersRestarted === 1 && now.length === 2 && !now.includes(before[0])
    } catch (err) {
      last = err.message
      return false
    }
  }, wait).catch(failWith(() => `stats do not cover the new worker: ${JSON.stringify(last)}`))
  assert.equal(isAlive(before[0]), false)
  // The client's kept-alive socket may still be the dead worker's: the server serves again once a
  // request on a live connection is answered.
  let body = null
  await pWaitFor(async () => {
    try {
      const res = await fetch(`${srv.url}/`, { signal: AbortSignal.timeout(5000) })
      body = await res.text()
      return res.status === 200
    } catch {
      return false
    }
  }, wait)
  assert.equal(body, expectedBody('fib:20'))
  assert.equal(processTree(srv.pid).length, 3)
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-processes: a task that crashes its process answers 500, the process is replaced, the server goes on', async (t) => {
  const srv = await startServer('queued-processes', ['--processes', '1', '--work', 'fib:20'])
  t.after(() => srv.stop())
  const [, first] = processTree(srv.pid)
  const crashed = await getJson(`${srv.url}/?work=crash:7`)
  assert.equal(crashed.status, 500)
  assert.equal(crashed.body.code, 'ERR_TASK_FAILED')
  assert.match(crashed.body.message, /pool process exited with code 7 while working/)
  const ok = await fetch(`${srv.url}/`, { signal: AbortSignal.timeout(wait.timeout) }) // no replacement: no answer
  assert.equal(ok.status, 200)
  assert.equal(await ok.text(), expectedBody('fib:20'), 'served by the replacement')
  const tree = processTree(srv.pid)
  assert.equal(tree.length, 2, 'one pool process again')
  assert.ok(!tree.includes(first) && !isAlive(first), 'the crashed process is gone, a new one took its place')
  // A process killed from outside while working: the same.
  const pending = getJson(`${srv.url}/?work=sleep-sync:20000`)
  await pWaitFor(async () => (await gaugesOf(srv)).processesBusy === 1, wait)
  process.kill(processTree(srv.pid)[1], 'SIGKILL')
  const killed = await pending
  assert.equal(killed.status, 500)
  assert.match(killed.body.message, /pool process exited with SIGKILL while working/)
  assert.equal(await (await fetch(`${srv.url}/`)).text(), expectedBody('fib:20'))
  const g = await gaugesOf(srv)
  assert.deepEqual([g.failed, g.processesReplaced, g.processes], [2, 2, 1])
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-processes: a request whose client left is dropped from the queue, a running one has its process ended', async (t) => {
  const srv = await startServer('queued-processes', ['--processes', '1', '--work', 'sleep-sync:1500'])
  t.after(() => srv.stop())
  const a = fetch(`${srv.url}/`)
  await pWaitFor(async () => (await gaugesOf(srv)).processesBusy === 1, wait)
  const leaver = new AbortController()
  const b = fetch(`${srv.url}/`, { signal: leaver.signal }).catch((err) => err)
  await pWaitFor(async () => (await gaugesOf(srv)).queueLength === 1, wait)
  leaver.abort()
  assert.equal((await b).name, 'AbortError')
  await pWaitFor(async () => (await gaugesOf(srv)).queueLength === 0, wait)
  assert.equal((await a).status, 200)
  assert.equal((await gaugesOf(srv)).completed, 1, 'the abandoned request was never worked on')
  const runner = new AbortController()
  const d = fetch(`${srv.url}/?work=sleep-sync:20000`, { signal: runner.signal }).catch((err) => err)
  await pWaitFor(async () => (await gaugesOf(srv)).processesBusy === 1, wait)
  const [, working] = processTree(srv.pid)
  runner.abort()
  await d
  await pWaitFor(() => !isAlive(working), wait)
  assert.equal(await (await fetch(`${srv.url}/?work=fib:20`)).text(), expectedBody('fib:20'))
  const g = await gaugesOf(srv)
  assert.deepEqual([g.aborted, g.completed, g.processesReplaced], [2, 2, 1])
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})

test('queued-threads --cancel off: a client that left keeps its place and its work runs for nobody', async (t) => {
  const srv = await startServer('queued-threads', ['--threads', '1', '--cancel', 'off', '--work', 'sleep-sync:800'])
  t.after(() => srv.stop())
  assert.equal((await getJson(`${srv.url}/health`)).body.variant, 'cancel-off')
  const a = fetch(`${srv.url}/`)
  await pWaitFor(async () => (await gaugesOf(srv)).threadsBusy === 1, wait)
  const leaver = new AbortController()
  const b = fetch(`${srv.url}/`, { signal: leaver.signal }).catch((err) => err)
  await pWaitFor(async () => (await gaugesOf(srv)).queueLength === 1, wait)
  leaver.abort()
  assert.equal((await b).name, 'AbortError')
  assert.equal((await a).status, 200)
  // the left request still runs after the first, on the one thread
  await pWaitFor(async () => (await gaugesOf(srv)).completed === 2, wait)
  const g = await gaugesOf(srv)
  assert.deepEqual([g.aborted, g.abandoned, g.queueLength], [0, 1, 0])
  assert.deepEqual(await srv.stop(), { code: 0, signal: null })
})
