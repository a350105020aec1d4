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

// Start the pool: { size, ready (a Promise: every first process ready, or the first one's failure),
// run(work, { signal }) → { body, startedAt, workMs, setupRan? }, gauges(), destroy() }.
export function createProcessPool ({ size }) {
  const live = new Set() // every process of the pool, starting or ready
  const idle = [] // ready processes with no task, the longest idle first
  const waiters = [] // callers waiting for an idle process (see above for the bound)
  const timers = new Set()
  let nextId = 0
  let replaced = 0
  let closing = false
  let firstReady = 0
  let settleReady
  const ready = new Promise((resolve, reject) => {
    settleReady = { resolve, reject }
  })

  // Hand an idle process to the oldest waiter, or keep it idle.
  function offer (proc) {
    if (closing || !live.has(proc)) return
    const waiter = waiters.shift()
    if (waiter) waiter.give(proc)
    else idle.push(proc)
  }

  // A process is gone (exited, or never started): fail its task, replace it unless shutting down.
  function gone (proc, how) {
    if (!live.delete(proc)) return
    proc.done()
    const at = idle.indexOf(proc)
    if (at >= 0) idle.splice(at, 1)
    const task = proc.task
    proc.task = null
    task?.fail(closing ? shuttingDown() : new ServerError('ERR_TASK_FAILED', `pool process ${how} while working`))
    if (closing) return
    if (!proc.ready && firstReady < size) {
      settleReady.reject(new ServerError('ERR_START_FAILED', `a pool process ${how} before it was ready`))
    }
    replaced++
    if (proc.ready) spawn()
    else {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!closing) spawn()
      }, RESTART_DELAY_MS)
      timers.add(timer)
    }
  }

  function spawn () {
    const child = fork(ENTRY, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    const proc = { child, ready: false, task: null, spawned: false }
    proc.exited = new Promise((resolve) => {
      proc.done = resolve
    })
    live.add(proc)
    child.once('spawn', () => {
      proc.spawned = true
    })
    child.once('exit', (code, signal) => gone(proc, `exited with ${signal ?? `code ${code}`}`))
    child.on('error', (err) => {
      if (!proc.spawned) gone(proc, `could not start (${err.message})`)
    })
    child.on('message', (msg) => {
      if (msg?.ready) {
        proc.ready = true
        if (++firstReady === size) settleReady.resolve()
        return offer(proc)
      }
      const task = proc.task
      if (!task || msg?.id !== task.id) return
      proc.task = null
      task.answer(msg)
      offer(proc)
    })
  }

  // An idle process, now or once one frees (a replacement starting); rejects if `signal` ends first.
  function take (signal) {
    if (idle.length) return Promise.resolve(idle.shift())
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiters.splice(waiters.indexOf(waiter), 1)
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
      waiters.push(waiter)
    })
  }

  // Run `work` on an idle process. Its signal ending kills the process (it is replaced) and rejects
  // with an AbortError; the process exiting rejects with ERR_TASK_FAILED; the task's own failure with its code.
  async function run (work, { signal } = {}) {
    if (closing) throw shuttingDown()
    if (signal?.aborted) throw abortError()
    const proc = await take(signal)
    return new Promise((resolve, reject) => {
      const id = ++nextId
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

  for (let i = 0; i < size; i++) spawn()
  return {
    size,
    ready,
    run,
    gauges: () => ({ processes: live.size, processesReplaced: replaced }),
    // End every process (their tasks fail with ERR_SHUTTING_DOWN) and wait until each has exited.
    async destroy () {
      closing = true
      for (const timer of timers) clearTimeout(timer)
      for (const waiter of waiters.splice(0)) waiter.fail(shuttingDown())
      const all = [...live]
      for (const proc of all) end(proc, 'SIGTERM')
      await Promise.all(all.map((proc) => proc.exited))
    }
  }
}

// Signal a process that has not exited yet.
function end (proc, signal) {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal)
}
