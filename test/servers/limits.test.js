// A server someone may expose, and the limits of the machine: a fork or thread that cannot start,
// caller-chosen work, slow clients, an empty host, a blocked cluster worker, an API that never answers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { once } from 'node:events'
import { Agent, request } from 'undici'
import pWaitFor from 'p-wait-for'
import { isLoopback } from '../../servers/lib/options.js'
import { exposedWarning } from '../../servers/lib/serve.js'
import { getJson, isAlive, runServer, startServer } from '../helpers/server.js'

// GET over one kept connection (opened before a file limit, so the request itself needs no new fd).
async function keptGet (agent, url) {
  const res = await request(url, { dispatcher: agent })
  return { status: res.statusCode, body: await res.body.text() }
}

for (const name of ['child-process', 'worker-per-request']) {
  test(`${name}: a fork or thread that cannot start answers 503, and the server keeps serving`, async (t) => {
    const server = await startServer(name, ['--work', 'loop:1e3'])
    const agent = new Agent({ connections: 1, pipelining: 1 })
    t.after(async () => {
      await agent.close()
      await server.stop()
    })
    assert.equal((await keptGet(agent, `${server.url}/`)).status, 200)
    // No file descriptor left: a fork needs pipes for its IPC channel, a thread its own event loop.
    // Only the soft limit is lowered and put back (raising a hard limit needs a capability we may lack).
    const [soft, hard] = execFileSync(
      'prlimit',
      ['--pid', String(server.pid), '--nofile', '--output=SOFT,HARD', '--noheadings'],
      { encoding: 'utf8' }
    )
      .trim()
      .split(/\s+/)
    const open = readdirSync(`/proc/${server.pid}/fd`).length
    execFileSync('prlimit', ['--pid', String(server.pid), `--nofile=${open}:${hard}`])
    const refused = await keptGet(agent, `${server.url}/`)
    execFileSync('prlimit', ['--pid', String(server.pid), `--nofile=${soft}:${hard}`])
    if (name === 'child-process') {
      assert.equal(refused.status, 503, refused.body)
      assert.match(JSON.parse(refused.body).message, /could not start a child/)
    } else {
      assert.ok([200, 500, 503].includes(refused.status), `a thread that cannot start is an answer: ${refused.status}`)
    }
    // Still alive a moment later (the unhandled rejection used to come right after the 503) and serving.
    await new Promise((resolve) => setImmediate(resolve))
    const again = await keptGet(agent, `${server.url}/`)
    assert.equal(again.status, 200)
    assert.ok(isAlive(server.pid))
    assert.equal(server.child.exitCode, null, server.stderr())
  })
}

test('?work=constructor:1 (and other Object.prototype names) is a 400, --work constructor:1 exits 2', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1e3'])
  t.after(() => server.stop())
  for (const spec of ['constructor:1', 'toString:1', 'valueOf:1', '__proto__:1', 'hasOwnProperty:1']) {
    const res = await getJson(`${server.url}/?work=${encodeURIComponent(spec)}`)
    assert.equal(res.status, 400, spec)
    assert.match(res.body.message, /bad work spec/)
  }
  const bad = await runServer('simple', ['--work', 'constructor:1', '--port', '0'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /bad work spec "constructor:1"/)
})

test('an empty host is refused (flag or HOST=); beyond loopback the server warns that ?work= is open', async () => {
  for (const run of [
    runServer('simple', ['--host', '', '--port', '0']),
    runServer('simple', ['--port', '0'], { env: { HOST: '' } })
  ]) {
    const r = await run
    assert.equal(r.code, 2)
    assert.equal(r.stderr.trim().split('\n').length, 1)
    assert.match(r.stderr, /--host: expected an address/)
  }
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) assert.equal(isLoopback(host), true, host)
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com']) { assert.equal(isLoopback(host), false, host) }
  assert.match(
    exposedWarning('0.0.0.0'),
    /^warning: listening on 0\.0\.0\.0, beyond loopback: .*\?work=.*--work-override off/
  )
  assert.equal(exposedWarning('0.0.0.0').trim().split('\n').length, 1)
})

test("--work-override off: ?work= is a 400, the server's own work still answers", async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1e3', '--work-override', 'off'])
  t.after(() => server.stop())
  const res = await getJson(`${server.url}/?work=loop:1e9`)
  assert.equal(res.status, 400)
  assert.match(res.body.message, /--work-override off/)
  assert.equal((await getJson(`${server.url}/`)).status, 200)
})

test('a client that sends half a request is cut off near --request-timeout, not held for minutes', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1e3', '--request-timeout', '500'])
  t.after(() => server.stop())
  const socket = connect(server.port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ') // headers never finished
  const started = Date.now()
  socket.resume()
  await once(socket, 'close')
  const heldMs = Date.now() - started
  assert.ok(heldMs >= 400 && heldMs < 30000, `closed after ${heldMs} ms`)
  assert.equal((await getJson(`${server.url}/`)).status, 200)
})

// A kept connection that lands on a cluster worker able to answer now (the cluster picks the worker
// of each new connection): tries fresh connections until /health answers within a short bound.
async function freeWorkerAgent (url) {
  for (let i = 0; i < 8; i++) {
    const agent = new Agent({ connections: 1, headersTimeout: 800 })
    try {
      const res = await request(`${url}/health`, { dispatcher: agent })
      await res.body.text()
      if (res.statusCode === 200) return agent
    } catch {}
    await agent.destroy()
  }
  throw new Error('no cluster worker answered /health')
}

test('cluster: /__lab/stats answers within its bound while a worker is blocked, and says so', async (t) => {
  const server = await startServer('cluster', ['--workers', '2', '--work', 'loop:1e3'])
  const agents = []
  t.after(async () => {
    await Promise.all(agents.map((a) => a.destroy()))
    await server.stop()
  })
  // Block one worker for a few seconds with inline work nobody waits for.
  const blocker = new Agent({ connections: 1 })
  agents.push(blocker)
  request(`${server.url}/?work=fib:43`, { dispatcher: blocker }).catch(() => {})
  let stats = null
  let tookMs = null
  await pWaitFor(
    async () => {
      const agent = await freeWorkerAgent(server.url)
      agents.push(agent)
      const started = Date.now()
      const res = await request(`${server.url}/__lab/stats`, { dispatcher: agent, headersTimeout: 5000 })
      stats = await res.body.json()
      tookMs = Date.now() - started
      return stats.gauges.workersSilent === 1
    },
    { interval: 50, timeout: 15000 }
  )
  assert.equal(stats.gauges.workers, 2)
  assert.equal(stats.gauges.workersSilent, 1, 'the blocked worker is counted, not waited for')
  assert.ok(tookMs < 3000, `stats answered in ${tookMs} ms`)
})

test('cluster: concurrent /__lab/stats calls share one collection and leak no listener', async (t) => {
  const server = await startServer('cluster', ['--workers', '2', '--work', 'loop:1e3'])
  t.after(() => server.stop())
  const calls = await Promise.all(Array.from({ length: 30 }, () => getJson(`${server.url}/__lab/stats`)))
  for (const c of calls) {
    assert.equal(c.status, 200)
    assert.equal(c.body.gauges.workers, 2)
    assert.equal(c.body.gauges.workersSilent, 0)
  }
  assert.doesNotMatch(server.stderr(), /MaxListenersExceededWarning|memory leak/)
})

test('long-vs-small-tasks: an API that never answers gives 504 after --api-timeout, and the server goes on', async (t) => {
  const silent = createServer(() => {}) // accepts, never answers
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  const server = await startServer('long-vs-small-tasks', [
    '--api',
    'on',
    '--api-url',
    `http://127.0.0.1:${silent.address().port}/`,
    '--api-timeout',
    '300',
    '--work',
    'ssr:10'
  ])
  t.after(async () => {
    await server.stop()
    silent.close()
  })
  const started = Date.now()
  const res = await getJson(`${server.url}/`)
  assert.equal(res.status, 504)
  assert.match(res.body.message, /no answer within 300 ms/)
  assert.ok(Date.now() - started < 30000, 'not held by the silent upstream')
  assert.equal((await getJson(`${server.url}/health`)).status, 200)
})

test('queued-threads: a pool thread that crashes mid-task answers 500, is replaced, and the server keeps serving', async (t) => {
  const server = await startServer('queued-threads', ['--threads', '2', '--work', 'loop:1e3'])
  t.after(() => server.stop())
  const crashed = await getJson(`${server.url}/?work=crash:3`)
  assert.equal(crashed.status, 500)
  assert.equal(crashed.body.code, 'ERR_TASK_FAILED')
  for (let i = 0; i < 4; i++) assert.equal((await getJson(`${server.url}/`)).status, 200)
  await pWaitFor(async () => (await getJson(`${server.url}/__lab/stats`)).body.gauges.threads === 2, {
    interval: 50,
    timeout: 10000
  })
  const stats = (await getJson(`${server.url}/__lab/stats`)).body
  assert.equal(stats.gauges.failed, 1)
  assert.ok(isAlive(server.pid))
})
