// Main-side helper of the per-request strategies: one new Worker thread or one forked child process per
// task, its failures turned into answers (could not start: 503, failed or died: 500), every one tracked
// for the gauges and ended on shutdown. Like the study's servers, a started task is not cancelled.
import { fork } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import { ServerError } from './errors.js'
import { portable } from './task.js'
import { KILL_GRACE_MS, TASK_CODES, endedError } from './task-module.js'

const workerEntry = new URL('./worker-entry.js', import.meta.url)
const childEntry = new URL('./child-entry.js', import.meta.url)

// What happens to a child process past its task's timeout.
const KILLED = `was sent SIGTERM, and SIGKILL ${KILL_GRACE_MS} ms later if it still ran`

// `kind` is 'worker' (worker_threads) or 'child' (child_process.fork). Returns { handle(work), gauges, close() },
// the parts start() takes.
export function perRequest (kind) {
  const live = new Set() // { end(), exited }
  let started = 0
  let inFlight = 0
  let peakInFlight = 0
  let closing = false
  const startedName = kind === 'worker' ? 'workersStarted' : 'childrenStarted'

  function handle (work) {
    if (closing) return Promise.reject(new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down'))
    inFlight++
    peakInFlight = Math.max(peakInFlight, inFlight)
    started++
    return new Promise((resolve, reject) => {
      let answered = false
      let running = null // the thread's or child's { end(), exited }
      let gone = false
      let timer = null
      const forget = () => {
        if (gone) return
        gone = true
        clearTimeout(timer)
        inFlight--
        live.delete(running)
      }
      const onAnswer = (msg) => {
        if (answered) return
        answered = true
        if (msg.ok) resolve({ ...msg, offloaded: true }) // stamped: its readyAt, the work's moments
        else reject(new ServerError(TASK_CODES.has(msg.code) ? msg.code : 'ERR_TASK_FAILED', msg.message))
      }
      const onExit = (how) => {
        forget()
        if (answered) return
        answered = true
        if (closing) reject(new ServerError('ERR_SHUTTING_DOWN', `server is shutting down (${kind} ${how})`))
        else reject(new ServerError('ERR_TASK_FAILED', `${kind} ${how} before answering`))
      }
      // The thread/child could not be started: 503 (and 'exit' may never come).
      const onStartError = (err) => {
        forget()
        if (answered) return
        answered = true
        reject(new ServerError('ERR_START_FAILED', `could not start a ${kind}: ${err.message}`, { cause: err }))
      }
      try {
        running = (kind === 'worker' ? startWorker : startChild)(work, onAnswer, onExit, onStartError)
        if (!gone) live.add(running)
        // A task module that never settles (even a synchronous loop): answer, and end its thread/child.
        if (work.task && !gone) {
          timer = setTimeout(() => {
            const { message } = kind === 'worker'
              ? endedError(work, 'thread')
              : endedError(work, 'child process', KILLED)
            onAnswer({ ok: false, code: 'ERR_TASK_TIMEOUT', message })
            running.end()
          }, work.task.timeoutMs + KILL_GRACE_MS)
        }
      } catch (err) {
        onStartError(err)
      }
    })
  }

  return {
    handle,
    gauges: {
      read: () => ({ [startedName]: started, inFlight, peakInFlight }),
      reset: () => {
        started = 0
        peakInFlight = inFlight
      }
    },
    // End every live thread/child (their requests answer 503) and wait until they are gone.
    async close () {
      closing = true
      await Promise.all([...live].map((h) => h.end()))
    }
  }
}

function startWorker (work, onAnswer, onExit, onStartError) {
  const worker = new Worker(workerEntry, { workerData: { work: portable(work) } })
  let online = false
  const exited = new Promise((resolve) =>
    worker.once('exit', (code) => {
      onExit(`exited with code ${code}`)
      resolve()
    })
  )
  worker.once('online', () => {
    online = true
  })
  worker.once('message', (msg) => {
    onAnswer(msg)
    worker.terminate() // ended as soon as it has answered
  })
  // An error before 'online' means the thread could not start; after, the task crashed it.
  worker.once('error', (err) => (online ? onAnswer({ ok: false, message: err.message }) : onStartError(err)))
  return {
    end: () => {
      worker.terminate()
      return exited
    }
  }
}

// Resolves when `emitter` emits `name`; never rejects.
function event (emitter, name) {
  return new Promise((resolve) => emitter.once(name, resolve))
}

function startChild (work, onAnswer, onExit, onStartError) {
  const child = fork(childEntry, [work.spec], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  // a task's description, or a spec's input (either may be large), goes over IPC (child-entry.js)
  if (work.task || work.bytes) child.send(portable(work))
  let spawned = false
  // 'exit' can come before the last IPC message: a child is gone once it has exited AND its channel closed.
  // (Not events.once: it rejects on the child's 'error', and a fork that fails emits one; that rejection
  // went unhandled and killed the server after its 503.)
  const exited = Promise.all([event(child, 'exit'), event(child, 'disconnect')]).then(() => {
    onExit(`exited with ${child.signalCode ?? `code ${child.exitCode}`}`)
  })
  child.once('spawn', () => {
    spawned = true
  })
  child.once('message', onAnswer)
  child.on('error', (err) => {
    if (!spawned) onStartError(err)
  })
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    // SIGTERM, then SIGKILL after KILL_GRACE_MS if the child still runs (a task may trap SIGTERM and spin).
    end: () => {
      if (!spawned) return Promise.resolve()
      if (running()) {
        process.kill(child.pid, 'SIGTERM')
        const kill = setTimeout(() => running() && process.kill(child.pid, 'SIGKILL'), KILL_GRACE_MS)
        exited.then(() => clearTimeout(kill))
      }
      return exited
    }
  }
}
