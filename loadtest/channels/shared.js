// Mode `shared`: a shared-memory channel to W workers, each blocked in Atomics.wait on its own slot.
// The main thread writes the id's UTF-8 bytes into a free slot (TextEncoder.encodeInto, no structured
// clone), sets the state word, notifies, and waits for the answer with Atomics.waitAsync, so it is
// never blocked; calls beyond W wait in a FIFO until a slot is free. The study's "direct" mode, in JS.
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { answerPrefix, defaultHook } from './hook.js'
import {
  STARTUP_TIMEOUT_MS, signalError, closedError, hookError, startupError, tooLargeError, workerGoneError
} from './errors.js'
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

// One worker's slot: its shared buffer (state words, then the id or answer bytes) and its call.
function startSlot (index, { hook, capacity }, channel) {
  const buffer = new SharedArrayBuffer(HEADER_BYTES + capacity)
  const ctl = new Int32Array(buffer, 0, HEADER_INTS)
  const worker = new Worker(workerFile, { workerData: { hook, buffer, capacity } })
  const data = new Uint8Array(buffer, HEADER_BYTES, capacity)
  const slot = { index, worker, buffer, ctl, data, job: null, gone: null }
  // (not events.once: it would reject on the worker's 'error' event, which onGone reports instead)
  slot.exited = new Promise((resolve) => worker.once('exit', resolve))
  worker.on('error', (err) => {
    slot.gone ??= err
    channel.poolErrors.push(err)
  })
  worker.on('exit', (code) => channel.onGone(slot, slot.gone ?? new Error(`exit code ${code}`)))
  return slot
}

// Wait (without blocking) until the slot's state word leaves REQUEST, then settle its call.
function awaitAnswer (channel, slot) {
  const wait = Atomics.waitAsync(slot.ctl, STATE, REQUEST)
  if (wait.async) wait.value.then(() => channel.receive(slot))
  else queueMicrotask(() => channel.receive(slot)) // answered already: settle it without recursing
}

// The answer (or the hook's error) a slot holds in the state it reached.
function settle (slot, job, state) {
  const len = Atomics.load(slot.ctl, LEN)
  const text = (from, n) => Buffer.from(slot.buffer, HEADER_BYTES + from, n).toString('utf8')
  if (state === DONE) return job.resolve(text(0, len))
  if (state === ERROR) {
    const msgLen = Atomics.load(slot.ctl, MSG_LEN)
    return job.reject(hookError(text(0, msgLen), text(msgLen, len - msgLen)))
  }
  job.reject(workerGoneError('shared', `worker ${slot.index} in unexpected state ${state}`))
}

// The channel's state and its moves: calls go to free slots or wait in a FIFO; answers free the slot.
class SharedChannel {
  constructor ({ workers, hook, capacity, stopGraceMs }) {
    this.capacity = capacity
    this.stopGraceMs = stopGraceMs
    this.costUs = 0
    this.closed = false
    this.closing = null
    this.queue = []
    this.head = 0
    this.free = []
    this.startup = null // set while starting: a function that fails the start-up
    this.poolErrors = [] // uncaught errors of the worker threads (their calls are rejected separately)
    this.slots = []
    for (let index = 0; index < workers; index++) this.slots.push(startSlot(index, { hook, capacity }, this))
  }

  // A worker ended: fail its call; with no worker left, fail every queued call.
  onGone (slot, err) {
    slot.gone ??= err
    const idle = this.free.indexOf(slot)
    if (idle !== -1) this.free.splice(idle, 1) // never hand a call to a dead worker
    if (this.startup) {
      this.startup(
        Atomics.load(slot.ctl, STATE) === START_FAILED
          ? startFailure(slot)
          : startupError('shared', `worker ${slot.index} ended: ${err.message}`, err)
      )
    }
    const job = slot.job
    slot.job = null
    if (job && !this.closed) job.reject(workerGoneError('shared', `worker ${slot.index}: ${err.message}`, err))
    if (!this.closed && this.slots.every((s) => s.gone)) {
      this.failQueued(workerGoneError('shared', 'no worker left', err))
    }
  }

  failQueued (err) {
    while (this.head < this.queue.length) this.queue[this.head++].reject(err)
  }

  // Send one call to a free slot; false when the id does not fit (the call is rejected).
  send (slot, job) {
    const { read, written } = encoder.encodeInto(job.id, slot.data)
    if (read < job.id.length) {
      job.reject(tooLargeError('the id', Buffer.byteLength(job.id), this.capacity))
      return false
    }
    const { ctl } = slot
    Atomics.store(ctl, LEN, written)
    Atomics.store(ctl, COST_US, this.costUs)
    slot.job = job
    Atomics.store(ctl, STATE, REQUEST)
    Atomics.notify(ctl, STATE, 1)
    awaitAnswer(this, slot)
    return true
  }

  // The slot's state changed: settle its call, then give the slot the next queued call.
  receive (slot) {
    const job = slot.job
    if (!job) return // already settled (worker gone or channel closed)
    const state = Atomics.load(slot.ctl, STATE)
    if (this.closed) {
      slot.job = null
      job.reject(closedError('shared'))
      return
    }
    if (state === REQUEST) return awaitAnswer(this, slot) // woken without an answer: wait again
    slot.job = null
    settle(slot, job, state)
    this.next(slot)
  }

  // Hand the slot the next queued call that fits, or park it as free.
  next (slot) {
    while (this.head < this.queue.length) {
      const job = this.queue[this.head]
      this.queue[this.head++] = undefined
      if (this.send(slot, job)) return
    }
    this.queue.length = 0
    this.head = 0
    this.free.push(slot)
  }

  // One call: resolves with the hook's answer, rejects with its error.
  call (id) {
    if (this.closed) return Promise.reject(closedError('shared'))
    if (typeof id !== 'string') return Promise.reject(new TypeError(`id: expected a string, got ${typeof id}`))
    if (this.slots.every((s) => s.gone)) return Promise.reject(workerGoneError('shared', 'no worker left'))
    return new Promise((resolve, reject) => {
      const job = { id, resolve, reject }
      const slot = this.free.pop()
      if (!slot) this.queue.push(job)
      else if (!this.send(slot, job)) this.free.push(slot)
    })
  }

  // Ask every worker to stop, terminate the ones that do not within graceMs, await every exit.
  close ({ graceMs = this.stopGraceMs } = {}) {
    if (this.closing) return this.closing
    this.closed = true
    this.closing = (async () => {
      this.failQueued(closedError('shared'))
      for (const slot of this.slots) {
        Atomics.store(slot.ctl, STOP, 1)
        Atomics.store(slot.ctl, STATE, STOPPING)
        Atomics.notify(slot.ctl, STATE) // wakes the worker and any waitAsync of ours
      }
      await Promise.all(this.slots.map(async (slot) => {
        const timer = setTimeout(() => slot.worker.terminate(), graceMs)
        try {
          await slot.exited
        } finally {
          clearTimeout(timer)
        }
      }))
    })()
    return this.closing
  }

  // Resolve once every worker waits on its slot; reject on a start failure, the timeout or the signal.
  ready ({ signal, startupTimeoutMs }) {
    return new Promise((resolve, reject) => {
      const fail = (err) => {
        done()
        reject(err)
      }
      const onAbort = () => fail(signalError(signal))
      const timer = setTimeout(
        () => fail(startupError('shared', `not every worker ready after ${startupTimeoutMs} ms`)),
        startupTimeoutMs
      )
      const done = () => {
        this.startup = null
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      this.startup = fail
      signal?.addEventListener('abort', onAbort, { once: true })
      Promise.all(this.slots.map((slot) => waitWhile(slot.ctl, STARTING))).then((states) => {
        if (!this.startup) return
        const failed = this.slots.find((slot, i) => states[i] === START_FAILED)
        if (failed) return fail(startFailure(failed))
        done()
        resolve()
      })
    })
  }
}

// Check the dispatcher's options (piscina's style: the option, the rule, the value got).
function checkOptions ({ workers, maxPayloadBytes }) {
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError('workers: expected a positive integer, ' +
    `got ${workers}`)
  }
  if (!Number.isInteger(maxPayloadBytes) || maxPayloadBytes < 0) {
    throw new RangeError(`maxPayloadBytes: expected a non-negative integer, got ${maxPayloadBytes}`)
  }
}

// Start W workers on slots sized for ids up to maxPayloadBytes (UTF-8); resolve once all are waiting.
export async function createSharedDispatcher ({
  workers,
  hook = defaultHook,
  maxPayloadBytes = 1e6,
  signal,
  startupTimeoutMs = STARTUP_TIMEOUT_MS,
  stopGraceMs = 2000
} = {}) {
  checkOptions({ workers, maxPayloadBytes })
  signal?.throwIfAborted()
  const capacity = Math.max(maxPayloadBytes + Buffer.byteLength(answerPrefix), MIN_CAPACITY)
  const start = performance.now()
  const channel = new SharedChannel({ workers, hook, capacity, stopGraceMs })
  try {
    await channel.ready({ signal, startupTimeoutMs })
  } catch (err) {
    await channel.close({ graceMs: 0 })
    throw err
  }
  const startupMs = performance.now() - start
  channel.free.push(...channel.slots.slice().reverse())
  const call = (id) => channel.call(id)
  return {
    mode: 'shared',
    workers,
    startupMs,
    capacity,
    poolErrors: channel.poolErrors,
    setCost (ms) {
      channel.costUs = Math.round(ms * 1000)
    },
    call,
    // `calls` calls queued at once; each slot holds the answer or the error.
    async batch (id, calls, { signal } = {}) {
      if (channel.closed) throw closedError('shared')
      const runs = new Array(calls)
      for (let i = 0; i < calls; i++) runs[i] = call(id).catch((err) => err)
      const out = await Promise.all(runs)
      signal?.throwIfAborted()
      return out
    },
    close: (opts) => channel.close(opts)
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
