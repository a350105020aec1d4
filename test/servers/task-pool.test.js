// The task pool (servers/lib/task-pool.js): its threads load task.js without require(esm) (through a
// CommonJS entry that import()s it), so clients
// that leave while their work runs (each one ends a thread, piscina starts another) cannot abort the
// server, which Node 20.20 and 24.21 did when a thread was ended while require()-ing the ESM task file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { getJson, startServer } from '../helpers/server.js'
import { ENTRY_FILE, taskPool } from '../../servers/lib/task-pool.js'

test('pool threads load task.js through import(), never require(esm): only the CommonJS entry is in require.cache', async () => {
  const pool = taskPool({ minThreads: 1, maxThreads: 1 })
  try {
    const out = await pool.run({ work: 'sleep-sync:1' }) // task.js loaded and run through the entry
    assert.equal(typeof out.body, 'string')
    assert.ok(out.workMs >= 0)
    const modules = await pool.run({}, { filename: new URL('../fixtures/tasks/thread-modules.cjs', import.meta.url).href })
    const ours = modules.filter((f) => f.includes('/servers/lib/'))
    // require(esm) registers an ESM file in the same cache: with task.js as piscina's filename it is here
    assert.deepEqual(ours, [fileURLToPath(ENTRY_FILE)])
  } finally {
    await pool.destroy()
  }
})

// `n` requests, 8 at a time, each client leaving after 0–80 ms (its running task aborted, its thread
// replaced while the next ones are handed work): stops early if the server exits.
async function leavingClients (server, n) {
  const agent = new Agent({ connections: 8 })
  const seen = { ok: 0, left: 0, other: 0 }
  const state = { down: null }
  server.exited.then((exit) => {
    state.down = exit
  })
  const one = async () => {
    const leave = new AbortController()
    const timer = setTimeout(() => leave.abort(), Math.random() * 80)
    try {
      const res = await request(`${server.url}/`, { dispatcher: agent, signal: leave.signal })
      await res.body.text()
      seen[res.statusCode === 200 ? 'ok' : 'other']++
    } catch {
      seen.left++
    } finally {
      clearTimeout(timer)
    }
  }
  try {
    for (let i = 0; i < n / 8 && state.down === null; i++) await Promise.all(Array.from({ length: 8 }, one))
  } finally {
    await agent.close()
  }
  return { ...seen, down: state.down }
}

test('queued-threads: 600 clients that leave mid-work, the server stays up and answers', async () => {
  const server = await startServer('queued-threads', ['--threads', '4', '--work', 'sleep-sync:20'])
  try {
    const seen = await leavingClients(server, 600)
    assert.equal(seen.down, null, `server exited: ${JSON.stringify(seen.down)}\n${server.stderr()}`)
    assert.ok(seen.left > 0, `no client left: ${JSON.stringify(seen)}`)
    const res = await request(`${server.url}/`)
    assert.equal(res.statusCode, 200)
    assert.ok(JSON.parse(await res.body.text()))
    const { gauges } = (await getJson(`${server.url}/__lab/stats`)).body
    assert.ok(gauges.aborted > 0, `no running task was aborted: ${JSON.stringify(gauges)}`)
    assert.equal(gauges.threads, 4)
  } finally {
    await server.stop()
  }
})
