// The end-to-end check every server of the fleet goes through (used by test/servers/fleet-*.test.js):
// start it as a real process, /health, verified GET /, 400/500 answers, a verified burst from autocannon,
// stats after load and after reset, then SIGTERM: exit 0 and no process of its tree left.
import assert from 'node:assert/strict'
import { expectedBody } from '../../servers/lib/workloads.js'
import { fire, getJson, isAlive, processTree, startServer } from './server.js'

// `server`: { name, args, work, variant?, workers?, amount?, connections?, gauges?(g, amount, reread) }
export async function checkServer ({ name, args = [], work, variant, workers, amount = 50, connections = 10, gauges }) {
  const srv = await startServer(name, [...args, '--work', work])
  let tree = []
  try {
    assert.equal(srv.strategy, name)
    assert.equal(srv.work, work)
    const health = await getJson(`${srv.url}/health`)
    assert.equal(health.status, 200)
    assert.deepEqual(health.body, {
      status: 'ok',
      strategy: name,
      ...(variant ? { variant } : {}),
      pid: health.body.pid,
      node: process.version, // started with the suite's own node
      v8: process.versions.v8,
      // the runtime as it names itself (what the lab records; under Bun or Deno process.version lies)
      runtime: { name: 'node', version: process.versions.node, engine: `V8 ${process.versions.v8}` }
    })

    const expected = expectedBody(work)
    const first = await fetch(`${srv.url}/`)
    assert.equal(first.status, 200)
    assert.equal(await first.text(), expected)
    assert.match(first.headers.get('content-type'), /^application\/json/)
    assert.match(first.headers.get('server-timing'), /^work;dur=[\d.]+, queue;dur=[\d.]+/)

    const bad = await getJson(`${srv.url}/?work=nope:1`)
    assert.equal(bad.status, 400)
    assert.equal(bad.body.code, 'ERR_BAD_WORK')
    const failed = await getJson(`${srv.url}/?work=fail:1`)
    assert.equal(failed.status, 500, JSON.stringify(failed.body))
    assert.equal(failed.body.code, 'ERR_TASK_FAILED')
    assert.match(failed.body.message, /requested failure/)

    assert.equal((await getJson(`${srv.url}/__lab/stats/reset`, { method: 'POST' })).status, 200)
    const burst = await fire(srv.url, { connections, amount, expected })
    assert.deepEqual(burst.statuses, { 200: amount }, 'every answer a 200')
    assert.equal(burst.mismatches, 0, 'every body verified')
    assert.equal(burst.errors, 0)

    const { body: stats } = await getJson(`${srv.url}/__lab/stats`)
    assert.equal(stats.strategy, name)
    assert.deepEqual(stats.requests, { completed: amount, failed: 0 })
    assert.ok(stats.windowMs > 0)
    assert.ok(stats.elu > 0 && stats.elu <= 1, `elu ${stats.elu}`)
    assert.ok(stats.ticks > 0)
    // The delay figures are null only when the histogram took no sample in this short window, or when its
    // check at start found it reading wrong (both happen on a starved machine), and then the stats say which.
    if (stats.eventLoop === null) {
      assert.match(stats.unmeasured?.eventLoop ?? '', /took no sample in the window|^at start, monitorEventLoopDelay/)
    } else assert.ok(stats.eventLoop.p99 >= stats.eventLoop.p50)
    const served = stats.processes.filter((p) => p.requests.completed > 0)
    if (workers) {
      const pids = new Set(stats.processes.filter((p) => p.role === 'worker').map((p) => p.pid))
      assert.equal(pids.size, workers, 'stats cover every worker')
      assert.equal(stats.processes.filter((p) => p.role === 'primary').length, 1)
      assert.equal(stats.gauges.workers, workers)
    } else {
      assert.equal(stats.processes.length, 1)
      assert.equal(served[0].pid, srv.pid)
    }
    // `reread`: the gauges read again, for a gauge that settles after the last answer (a child counts in
    // flight until it has exited, which can come just after its answer)
    const reread = async () => (await getJson(`${srv.url}/__lab/stats`)).body.gauges
    await gauges?.(stats.gauges, amount, reread)

    assert.equal((await getJson(`${srv.url}/__lab/stats/reset`, { method: 'POST' })).status, 200)
    const { body: zero } = await getJson(`${srv.url}/__lab/stats`)
    assert.deepEqual(zero.requests, { completed: 0, failed: 0 })
    for (const p of zero.processes) assert.deepEqual(p.requests, { completed: 0, failed: 0 })
    assert.ok(zero.windowMs < stats.windowMs)
    tree = processTree(srv.pid)
    if (workers) assert.equal(tree.length, 1 + workers)
  } finally {
    const exit = await srv.stop('SIGTERM')
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM; stderr: ${srv.stderr()}`)
    assert.deepEqual(tree.filter(isAlive), [], 'no process of the tree left')
  }
  return tree
}
