// Mode `shared`: a shared-memory channel to W workers, each blocked in Atomics.wait on its own slot.
// The main thread writes the id's UTF-8 bytes into a free slot (TextEncoder.encodeInto, no structured
// clone), sets the state word, notifies, and waits for the answer with Atomics.waitAsync, so it is
// never blocked; calls beyond W wait in a FIFO until a slot is free. The study's "direct" mode, in JS.
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { answerPrefix, defaultHook } from './hook.js'
import { abortError, closedError, hookError, startupError, tooLargeError, workerGoneError } from './errors.js'
import {
  COST_US,
  DONE,
  ERROR,
  HEADER_BYTES,
  HEADER_INTS,
  LEN,
  MIN_CAPACITY,
  MSG_LEN,
  REQUEST,
  START_FAILED,
  STARTING,
  STATE,
  STOP,
  STOPPING
} from './shared-layout.js'

const workerFile = new URL('./shared-worker.js', import.meta.url)
const encoder = new TextEncoder()

// Start W workers on slots sized for ids up to maxPayloadBytes (UTF-8); resolve once all are waiting.
export async function createSharedDispatcher ({
  workers,
  hook = defaultHook,
  maxPayloadBytes = 1e6,
  signal,
  startupTimeoutMs = 30_000,
  stopGraceMs = 2000
} = {}) {
  if (!Number.isInteger(workers) || workers < 1) { throw new RangeError(`workers: expected a positive integer, got ${workers}`) }
  if (!Number.isInteger(maxPayloadBytes) || maxPayloadBytes < 0) {
    throw new RangeError(`maxPayloadBytes: expected a non-negative integer, got ${maxPayloadBytes}`)
  }
  signal?.throwIfAborted()
  const capacity = Math.max(maxPayloadBytes + Buffer.byteLength(answerPrefix), MIN_CAPACITY)
  const start = performance.now()
  const slots = []
  const poolErrors = [] // uncaught errors of the worker threads (their calls are rejected separately)
  for (let index = 0; index < workers; index++) {
    const buffer = new SharedArrayBuffer(HEADER_BYTES + capacity)
    const ctl = new Int32Array(buffer, 0, HEADER_INTS)
    const worker = new Worker(workerFile, { workerData: { hook, buffer, capacity } })
    const slot = {
      index,
      worker,
      buffer,
      ctl,
      data: new Uint8Array(buffer, HEADER_BYTES, capacity),
      job: null,
      gone: null
    }
    // (not events.once: it would reject on the worker's 'error' event, which onGone reports instead)
    slot.exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.on('error', (err) => {
      slot.gone ??= err
      poolErrors.push(err)
    })
    worker.on('exit', (code) => onGone(slot, slot.gone ?? new Error(`exit code ${code}`)))
    slots.push(slot)
  }

  let costUs = 0
  let closed = false
  let closing = null
  const queue = []
  let head = 0
  const free = []
  let startup = null // set while starting: a function that fails the start-up

  // A worker ended: fail its call; with no worker left, fail every queued call.
  function onGone (slot, err) {
    slot.gone ??= err
    const idle = free.indexOf(slot)
    if (idle !== -1) free.splice(idle, 1) // never hand a call to a dead worker
    if (startup) {
      startup(
        Atomics.load(slot.ctl, STATE) === START_FAILED
          ? startFailure(slot)
          : startupError('shared', `worker ${slot.index} ended: ${err.message}`, err)
      )
    }
    const job = slot.job
    slot.job = null
    if (job && !closed) job.reject(workerGoneError('shared', `worker ${slot.index}: ${err.message}`, err))
    if (!closed && slots.every((s) => s.gone)) {
      while (head < queue.length) queue[head++].reject(workerGoneError('shared', 'no worker left', err))
    }
  }

  // Send one call to a free slot; false when the id does not fit (the call is rejected).
  function send (slot, job) {
    const { read, written } = encoder.encodeInto(job.id, slot.data)
    if (read < job.id.length) {
      job.reject(tooLargeError('the id', Buffer.byteLength(job.id), capacity))
      return false
    }
    const { ctl } = slot
    Atomics.store(ctl, LEN, written)
    Atomics.store(ctl, COST_US, costUs)
    slot.job = job
    Atomics.store(ctl, STATE, REQUEST)
    Atomics.notify(ctl, STATE, 1)
    const wait = Atomics.waitAsync(ctl, STATE, REQUEST)
    if (wait.async) wait.value.then(() => receive(slot))
    else queueMicrotask(() => receive(slot)) // answered already: settle it without recursing
    return true
  }

  // The slot's state changed: settle its call, then give the slot the next queued call.
  function receive (slot) {
    const job = slot.job
    if (!job) return // already settled (worker gone or channel closed)
    const { ctl } = slot
    const state = Atomics.load(ctl, STATE)
    if (closed) {
      slot.job = null
      job.reject(closedError('shared'))
      return
    }
    if (state === REQUEST) {
      // woken without an answer: wait again
      const wait = Atomics.waitAsync(ctl, STATE, REQUEST)
      if (wait.async) wait.value.then(() => receive(slot))
      else queueMicrotask(() => receive(slot))
      return
    }
    slot.job = null
    const len = Atomics.load(ctl, LEN)
    if (state === DONE) {
      job.resolve(Buffer.from(slot.buffer, HEADER_BYTES, len).toString('utf8'))
    } else if (state === ERROR) {
      const msgLen = Atomics.load(ctl, MSG_LEN)
      job.reject(
        hookError(
          Buffer.from(slot.buffer, HEADER_BYTES, msgLen).toString('utf8'),
          Buffer.from(slot.buffer, HEADER_BYTES + msgLen, len - msgLen).toString('utf8')
        )
      )
    } else {
      job.reject(workerGoneError('shared', `worker ${slot.index} in unexpected state ${state}`))
    }
    next(slot)
  }

  // Hand the slot the next queued call that fits, or park it as free.
  function next (slot) {
    while (head < queue.length) {
      const job = queue[head]
      queue[head++] = undefined
      if (send(slot, job)) return
    }
    queue.length = 0
    head = 0
    free.push(slot)
  }

  // One call: resolves with the hook's answer, rejects with its error.
  function call (id) {
    if (closed) return Promise.reject(closedError('shared'))
    if (typeof id !== 'string') return Promise.reject(new TypeError(`id: expected a string, got ${typeof id}`))
    if (slots.every((s) => s.gone)) return Promise.reject(workerGoneError('shared', 'no worker left'))
    return new Promise((resolve, reject) => {
      const job = { id, resolve, reject }
      const slot = free.pop()
      if (!slot) queue.push(job)
      else if (!send(slot, job)) free.push(slot)
    })
  }

  // Ask every worker to stop, terminate the ones that do not within stopGraceMs, await every exit.
  function close ({ graceMs = stopGraceMs } = {}) {
    if (closing) return closing
    closed = true
    closing = (async () => {
      while (head < queue.length) queue[head++].reject(closedError('shared'))
      for (const slot of slots) {
        Atomics.store(slot.ctl, STOP, 1)
        Atomics.store(slot.ctl, STATE, STOPPING)
        Atomics.notify(slot.ctl, STATE) // wakes the worker and any waitAsync of ours
      }
      await Promise.all(
        slots.map(async (slot) => {
          const timer = setTimeout(() => slot.worker.terminate(), graceMs)
          try {
            await slot.exited
          } finally {
            clearTimeout(timer)
          }
        })
      )
    })()
    return closing
  }

  try {
    await new Promise((resolve, reject) => {
      const fail = (err) => {
        done()
        reject(err)
      }
      const onAbort = () => fail(abortError(signal))
      const timer = setTimeout(
        () => fail(startupError('shared', `not every worker ready after ${startupTimeoutMs} ms`)),
        startupTimeoutMs
      )
      function done () {
        startup = null
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      startup = fail
      signal?.addEventListener('abort', onAbort, { once: true })
      Promise.all(slots.map((slot) => waitWhile(slot.ctl, STARTING))).then((states) => {
        if (!startup) return
        const failed = slots.find((slot, i) => states[i] === START_FAILED)
        if (failed) {
          fail(startFailure(failed))
        } else {
          done()
          resolve()
        }
      })
    })
  } catch (err) {
    await close({ graceMs: 0 })
    throw err
  }
  const startupMs = performance.now() - start
  free.push(...slots.slice().reverse())

  return {
    mode: 'shared',
    workers,
    startupMs,
    capacity,
    poolErrors,
    setCost (ms) {
      costUs = Math.round(ms * 1000)
    },
    call,
    // `calls` calls queued at once; each slot holds the answer or the error.
    async batch (id, calls, { signal } = {}) {
      if (closed) throw closedError('shared')
      const runs = new Array(calls)
      for (let i = 0; i < calls; i++) runs[i] = call(id).catch((err) => err)
      const out = await Promise.all(runs)
      signal?.throwIfAborted()
      return out
    },
    close
  }
}

// The error a worker published when its hook could not be loaded.
function startFailure (slot) {
  const msgLen = Atomics.load(slot.ctl, MSG_LEN)
  return startupError(
    'shared',
    `worker ${slot.index}: ${Buffer.from(slot.buffer, HEADER_BYTES, msgLen).toString('utf8')}`
  )
}

// Resolve with the state word once it no longer holds `value` (without blocking this thread).
async function waitWhile (ctl, value) {
  for (;;) {
    const wait = Atomics.waitAsync(ctl, STATE, value)
    if (wait.async) await wait.value
    const state = Atomics.load(ctl, STATE)
    if (state !== value) return state
  }
}
