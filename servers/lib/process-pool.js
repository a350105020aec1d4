// A pool of `size` long-lived child processes (child_process.fork of process-entry.js), one task at a time
// each, used by queued-processes. A process that exits (a task crashed it, or its client left and it was
// ended) fails its task and is replaced. The caller bounds the tasks in flight to `size` (the FIFO gate
// of queued.js), so a task waits here only while a replacement starts: `waiters` holds at most `size`.
// Why our own pool and not workerpool's or tinypool's process mode: docs/servers.md, measured by
// `npm run bench -- --only processes`.
import { fork } from 'node:child_process'
import { ServerError } from './errors.js'
import { portable } from './task.js'
import { TASK_CODES } from './task-module.js'

const ENTRY = new URL('./process-entry.js', import.meta.url)

// A process that exits before it is ready is replaced after this long, so a fork that keeps failing
// (out of memory, a process limit) is retried once a second, not in a storm.
const RESTART_DELAY_MS = 1000

// The error a task gets when its signal ended it (the server tells a client that left from a deadline).
function abortError () {
  return Object.assign(new Error('the task was aborted'), { name: 'AbortError' })
}

const shuttingDown = () => new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down')

// How long destroy() waits for a SIGTERMed process before SIGKILL: a task that ignores SIGTERM and
// never returns must not outlive the server (serve.js exits SHUTDOWN_LIMIT_MS after a signal, and an
// orphan would spin on). Well under that limit.
export const KILL_AFTER_MS = 1000

// Start the pool: { size, ready (a Promise: every first process ready, or the first one's failure),
// run(work, { signal }) → { body, startedAt, workMs, setupRan? }, gauges(), destroy() }. `heapMb`: each
// process's V8 heap limit (--max-old-space-size; null: Node's own), so a task that allocates without
// bound ends its process (its request answers 500, the process is replaced) at that size.
export function createProcessPool ({ size, heapMb = null }) {
  const pool = {
    size,
    execArgv: heapMb ? [`--max-old-space-size=${heapMb}`] : [],
    live: new Set(), // every process of the pool, starting or ready
    idle: [], // ready processes with no task, the longest idle first
    waiters: [], // callers waiting for an idle process (bounded: see the top)
    timers: new Set(),
    nextId: 0,
    replaced: 0,
    closing: false,
    firstReady: 0,
    settleReady: null
  }
  const ready = new Promise((resolve, reject) => {
    pool.settleReady = { resolve, reject }
  })
  for (let i = 0; i < size; i++) spawn(pool)
  return {
    size,
    ready,
    run: (work, opts) => run(pool, work, opts),
    gauges: () => ({ processes: pool.live.size, processesReplaced: pool.replaced }),
    destroy: () => destroy(pool)
  }
}

// Hand an idle process to the oldest waiter, or keep it idle.
function offer (pool, proc) {
  if (pool.closing || !pool.live.has(proc)) return
  const waiter = pool.waiters.shift()
  if (waiter) waiter.give(proc)
  else pool.idle.push(proc)
}

// A process is gone (exited, or never started): fail its task, replace it unless shutting down (at once
// when it had been ready; RESTART_DELAY_MS later when it never was).
function gone (pool, proc, how) {
  if (!pool.live.delete(proc)) return
  proc.done()
  const at = pool.idle.indexOf(proc)
  if (at >= 0) pool.idle.splice(at, 1)
  const task = proc.task
  proc.task = null
  task?.fail(pool.closing ? shuttingDown() : new ServerError('ERR_TASK_FAILED', `pool process ${how} while working`))
  if (pool.closing) return
  if (!proc.ready && pool.firstReady < pool.size) {
    pool.settleReady.reject(new ServerError('ERR_START_FAILED', `a pool process ${how} before it was ready`))
  }
  pool.replaced++
  if (proc.ready) return spawn(pool)
  const timer = setTimeout(() => {
    pool.timers.delete(timer)
    if (!pool.closing) spawn(pool)
  }, RESTART_DELAY_MS)
  pool.timers.add(timer)
}

// Fork one process; it joins the idle list once it says it is ready. Its stdout is discarded (a task may
// print, even 100 MB: nothing reads it, nothing buffers it); its stderr is the server's.
function spawn (pool) {
  const child = fork(ENTRY, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: pool.execArgv })
  const proc = { child, ready: false, task: null, spawned: false }
  proc.exited = new Promise((resolve) => {
    proc.done = resolve
  })
  pool.live.add(proc)
  child.once('spawn', () => {
    proc.spawned = true
  })
  child.once('exit', (code, signal) => gone(pool, proc, `exited with ${signal ?? `code ${code}`}`))
  child.on('error', (err) => {
    if (!proc.spawned) gone(pool, proc, `could not start (${err.message})`)
  })
  child.on('message', (msg) => {
    if (msg?.ready) {
      proc.ready = true
      if (++pool.firstReady === pool.size) pool.settleReady.resolve()
      return offer(pool, proc)
    }
    const task = proc.task
    if (!task || msg?.id !== task.id) return
    proc.task = null
    task.answer(msg)
    offer(pool, proc)
  })
}

// An idle process, now or once one frees (a replacement starting); rejects if `signal` ends first.
function take (pool, signal) {
  if (pool.idle.length) return Promise.resolve(pool.idle.shift())
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      pool.waiters.splice(pool.waiters.indexOf(waiter), 1)
      reject(abortError())
    }
    const waiter = {
      give: (proc) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(proc)
      },
      fail: (err) => {
        signal?.removeEventListener('abort', onAbort)
        reject(err)
      }
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    pool.waiters.push(waiter)
  })
}

// Run `work` on an idle process. Its signal ending kills the process (it is replaced) and rejects
// with an AbortError; the process exiting rejects with ERR_TASK_FAILED; the task's own failure with its code.
async function run (pool, work, { signal } = {}) {
  if (pool.closing) throw shuttingDown()
  if (signal?.aborted) throw abortError()
  const proc = await take(pool, signal)
  return new Promise((resolve, reject) => {
    const id = ++pool.nextId
    const onAbort = () => {
      proc.task = null
      end(proc, 'SIGKILL')
      reject(abortError())
    }
    const settled = (fn) => (value) => {
      signal?.removeEventListener('abort', onAbort)
      fn(value)
    }
    proc.task = {
      id,
      answer: settled(({ id: _, ok, code, message, ...out }) => {
        if (ok) resolve(out)
        else reject(new ServerError(TASK_CODES.has(code) ? code : 'ERR_TASK_FAILED', message))
      }),
      fail: settled(reject)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    proc.child.send({ id, work: portable(work) })
  })
}

// End every process (their tasks fail with ERR_SHUTTING_DOWN) and wait until each has exited: SIGTERM,
// then SIGKILL for any still there KILL_AFTER_MS later (a task that ignores SIGTERM and never returns).
async function destroy (pool) {
  pool.closing = true
  for (const timer of pool.timers) clearTimeout(timer)
  for (const waiter of pool.waiters.splice(0)) waiter.fail(shuttingDown())
  const all = [...pool.live]
  for (const proc of all) end(proc, 'SIGTERM')
  const kill = setTimeout(() => {
    for (const proc of all) end(proc, 'SIGKILL')
  }, KILL_AFTER_MS)
  await Promise.all(all.map((proc) => proc.exited))
  clearTimeout(kill)
}

// Signal a process that has not exited yet.
function end (proc, signal) {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal)
}
