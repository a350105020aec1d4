// SIGTERM with work in flight ends the server and its whole tree with exit 0 within a few seconds;
// a server whose IPC parent dies (a killed orchestrator) exits by itself, with its tree.
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import pWaitFor from 'p-wait-for'
import { getJson, isAlive, processTree, startServer } from '../helpers/server.js'

const wait = { interval: 25, timeout: 20000 }
// The servers of each list run side by side, a few at a time: each test watches its own server's tree,
// and most of a test is a server's shutdown waiting out its grace period (servers/lib/serve.js).
const CONCURRENCY = 3

const inFlight = [
  // name, args, request that stays in flight, processes in the tree while it does
  ['child-process', [], 'sleep:20000', 2],
  ['worker-per-request', [], 'sleep-sync:20000', 1],
  ['queued-threads', ['--threads', '1'], 'sleep-sync:20000', 1],
  ['queued-processes', ['--processes', '1'], 'sleep-sync:20000', 2],
  ['cluster-threads', ['--workers', '2'], 'sleep-sync:20000', 3],
  ['sleep-variants', ['--variant', 'sync-sleep-pooled'], 'sleep-sync:20000', 1],
  ['simple', [], 'sleep:20000', 1],
  ['cluster', ['--workers', '2'], 'sleep:20000', 3],
  ['long-vs-small-tasks', ['--api', 'on', '--work', 'ssr:10'], 'sleep:20000', 2]
]

describe('SIGTERM with a request in flight', { concurrency: CONCURRENCY }, () => {
  for (const [name, args, work, processes] of inFlight) {
    test(`${name}: SIGTERM with a request in flight exits 0 and leaves no process`, async (t) => {
      const srv = await startServer(name, args)
      t.after(() => srv.stop('SIGKILL'))
      const pending = getJson(`${srv.url}/?work=${work}`).catch((err) => err)
      const queued = name.startsWith('queued-') ? getJson(`${srv.url}/?work=${work}`).catch((err) => err) : null
      // wait until the request is being worked on
      await pWaitFor(async () => {
        const { body } = await getJson(`${srv.url}/__lab/stats`)
        const g = body.gauges
        const working = (g.inFlight ?? g.threadsBusy ?? g.processesBusy ?? 0) + (g.childrenStarted ?? 0)
        return processTree(srv.pid).length === processes && working >= 1
      }, wait)
      const tree = processTree(srv.pid)
      // Exit code 0 also means "within its own 5 s shutdown limit" (past it the server exits 1).
      assert.deepEqual(await srv.stop('SIGTERM'), { code: 0, signal: null }, srv.stderr())
      assert.deepEqual(tree.filter(isAlive), [], 'no process of the tree left')
      if (queued) assert.equal((await queued).status, 503, 'a queued task is failed too')
      const res = await pending
      // work in a thread or child is failed with a 503; inline work gets a grace period, then its connection is closed
      if (res.status !== undefined) assert.equal(res.status, 503, `in-flight request answered ${res.status}`)
      else {
        assert.ok(
          ['simple', 'cluster', 'long-vs-small-tasks'].includes(name),
        `${name}: in-flight request got no answer: ${res.message}`
        )
      }
    })
  }
})

const orphans = [
  ['cluster', ['--workers', '2', '--work', 'fib:20'], 3],
  ['long-vs-small-tasks', ['--api', 'on', '--work', 'ssr:10'], 2],
  ['queued-threads', ['--work', 'fib:20'], 1],
  ['queued-processes', ['--processes', '2', '--work', 'fib:20'], 3],
  ['child-process', ['--work', 'sleep:20000'], 2]
]

describe('an IPC parent killed', { concurrency: CONCURRENCY }, () => {
  for (const [name, args, processes] of orphans) {
    test(`${name}: exits by itself when its IPC parent is killed`, async (t) => {
      const parent = fork(fileURLToPath(new URL('../helpers/ipc-parent.js', import.meta.url)), [name, ...args], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc']
      })
      t.after(() => {
        if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL')
      })
      const [ready] = await once(parent, 'message')
      assert.ok(ready.pid > 0, JSON.stringify(ready))
      t.after(() => {
        for (const pid of processTree(ready.pid)) {
          try {
            process.kill(pid, 'SIGKILL')
          } catch {}
        }
      })
      if (name === 'child-process') getJson(`${ready.url}/`).catch(() => {}) // a child in flight
      await pWaitFor(() => processTree(ready.pid).length === processes, wait)
      const tree = processTree(ready.pid)
      parent.kill('SIGKILL')
      await once(parent, 'exit')
      await pWaitFor(() => tree.every((pid) => !isAlive(pid)), wait)
    })
  }
})
