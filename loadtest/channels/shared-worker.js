// Worker side of mode `shared`: a synchronous loop blocked in Atomics.wait on this worker's slot.
// A call wakes it without any event-loop hop: it decodes the id from shared memory, runs the hook,
// writes the answer (or the error) back, and notifies the main thread.
import { workerData } from 'node:worker_threads'
import {
  COST_US,
  DONE,
  ERROR,
  HEADER_BYTES,
  HEADER_INTS,
  IDLE,
  LEN,
  MSG_LEN,
  REQUEST,
  START_FAILED,
  STATE,
  STOP
} from './shared-layout.js'

const { hook, buffer, capacity } = workerData
const ctl = new Int32Array(buffer, 0, HEADER_INTS)
const data = new Uint8Array(buffer, HEADER_BYTES, capacity)
const encoder = new TextEncoder()

// Write an error (message, then stack) into the data area and publish `state`.
function publishError (state, err) {
  const message = String(err?.message ?? err)
  const stack = typeof err?.stack === 'string' ? err.stack : ''
  const head = encoder.encodeInto(message, data)
  const tail = encoder.encodeInto(stack, data.subarray(head.written))
  Atomics.store(ctl, MSG_LEN, head.written)
  Atomics.store(ctl, LEN, head.written + tail.written)
  Atomics.store(ctl, STATE, state)
  Atomics.notify(ctl, STATE)
}

let resolveId
try {
  ;({ resolveId } = await import(hook))
  if (typeof resolveId !== 'function') throw new TypeError(`${hook} does not export a resolveId function`)
} catch (err) {
  publishError(START_FAILED, err)
}

if (resolveId) {
  Atomics.store(ctl, STATE, IDLE)
  Atomics.notify(ctl, STATE)
  serve()
}

// The loop: wait for REQUEST (or STOP), answer, repeat. Returns when the main thread sets STOP.
function serve () {
  for (;;) {
    let state
    while (Atomics.load(ctl, STOP) === 0 && (state = Atomics.load(ctl, STATE)) !== REQUEST) {
      Atomics.wait(ctl, STATE, state)
    }
    if (Atomics.load(ctl, STOP) !== 0) return
    const id = Buffer.from(buffer, HEADER_BYTES, Atomics.load(ctl, LEN)).toString('utf8')
    let answer
    try {
      answer = resolveId(id, Atomics.load(ctl, COST_US) / 1000)
      if (typeof answer !== 'string') {
        throw new TypeError(`resolveId returned ${typeof answer}, the shared ` +
        'channel carries strings')
      }
    } catch (err) {
      publishError(ERROR, err)
      continue
    }
    const { read, written } = encoder.encodeInto(answer, data)
    if (read < answer.length) {
      publishError(
        ERROR,
        new RangeError(
          `the answer needs ${Buffer.byteLength(answer)} bytes but the shared channel's buffer holds ${capacity} ` +
            '(raise maxPayloadBytes)'
        )
      )
      continue
    }
    Atomics.store(ctl, LEN, written)
    Atomics.store(ctl, STATE, DONE)
    Atomics.notify(ctl, STATE)
  }
}
