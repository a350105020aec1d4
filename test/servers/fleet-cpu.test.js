// The heavy-CPU strategies as real processes, with light work (see test/helpers/check-server.js).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkServer } from '../helpers/check-server.js'

const work = 'loop:1e5'

test('simple', () => checkServer({ name: 'simple', work, gauges: (g) => assert.equal(g.peakInFlight, 1) }))

test('cluster: stats cover both workers', () =>
  checkServer({
    name: 'cluster',
    args: ['--workers', '2'],
    work,
    workers: 2,
    gauges: (g) => assert.equal(g.workersRestarted, 0)
  }))

test('child-process: one child per request', () =>
  checkServer({
    name: 'child-process',
    work,
    amount: 30,
    gauges: async (g, n, reread) => {
      assert.equal(g.childrenStarted, n)
      // a child counts in flight until it has exited, which can come just after its answer (the Node 22
      // suite read 1 once): every child gone within a second
      for (let i = 0; i < 20 && g.inFlight > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        g = await reread()
      }
      assert.equal(g.inFlight, 0)
    }
  }))

test('worker-per-request: one thread per request', () =>
  checkServer({
    name: 'worker-per-request',
    work,
    gauges: (g, n) => {
      assert.equal(g.workersStarted, n)
      assert.ok(g.peakInFlight >= 1)
    }
  }))

test('cluster-threads: both workers, one thread per request', () =>
  checkServer({
    name: 'cluster-threads',
    args: ['--workers', '2'],
    work,
    workers: 2,
    gauges: (g, n) => assert.equal(g.workersStarted, n)
  }))

test('queued-threads', () =>
  checkServer({
    name: 'queued-threads',
    args: ['--threads', '2'],
    work,
    gauges: (g, n) => {
      assert.equal(g.completed, n)
      assert.equal(g.threads, 2)
      assert.equal(g.queueLength, 0)
      assert.equal(g.aborted + g.rejected + g.failed, 0)
      assert.ok(g.utilization > 0 && g.utilization <= 1)
    }
  }))

test('queued-processes: every task on one of its long-lived processes', async () => {
  const tree = await checkServer({
    name: 'queued-processes',
    args: ['--processes', '2'],
    work,
    gauges: (g, n) => {
      assert.equal(g.completed, n)
      assert.equal(g.processes, 2)
      assert.equal(g.processesReplaced, 0, 'none replaced: the same two served every request')
      assert.equal(g.queueLength, 0)
      assert.equal(g.aborted + g.rejected + g.failed, 0)
      assert.ok(g.utilization > 0 && g.utilization <= 1)
    }
  })
  assert.equal(tree.length, 3, 'the server and its two pool processes')
})
