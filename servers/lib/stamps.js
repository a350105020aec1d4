// The moments a request crosses a thread or process boundary, on one clock that every thread and process
// of one machine shares (now(), below: the system's monotonic clock in ms), sent back in
// the `Lab-Stamps` header so that the lab can split the request's latency into phases
// (loadtest/result/phases.js; docs/attribution.md). Each stamp is named for the phase it closes:
//   wait   the handler starts (app.js): the connection and a blocked event loop are behind it
//   queue  a pool's slot is granted (queued.js)
//   start  the thread or process started for this request runs its entry, the task's modules loaded
//   send   the work starts on its thread or process: the input has been carried there
//   run    the work ends
//   return the main thread has the result back
// A strategy stamps the moments it has; inline work (simple, cluster) has `wait` and `run` only.
// LOADLAB_STAMPS=off in a server's environment leaves the header out (the bench measures its cost).
import { performance } from 'node:perf_hooks'

// The header's name (lower case, as Node and the lab's client read it).
export const STAMPS_HEADER = 'lab-stamps'

// Whether this process stamps its answers.
export const stamping = process.env.LOADLAB_STAMPS !== 'off'

// The clock every thread and process of one machine shares: the system's monotonic clock (CLOCK_MONOTONIC
// on Linux, process.hrtime), in ms with sub-microsecond precision. Not performance.timeOrigin +
// performance.now(): Node reads the wall and the monotonic halves of timeOrigin apart as a thread or
// process starts, and a stall between the two reads (a busy machine) offsets that sum for the thread's
// life (up to 104 ms among 16 processes forked at once on a loaded 2-core machine; docs/attribution.md).
export function now () {
  return Number(process.hrtime.bigint()) / 1e6
}

// performance.now() of this thread on the shared clock: the two read back to back, the closest pair of
// a few (a pair read across a preemption is further apart).
const PERFORMANCE_TO_SHARED = (() => {
  let best = null
  for (let i = 0; i < 5; i++) {
    const p0 = performance.now()
    const shared = now()
    const p1 = performance.now()
    if (best === null || p1 - p0 < best.gap) best = { gap: p1 - p0, offset: shared - (p0 + p1) / 2 }
  }
  return best.offset
})()

// A moment read with performance.now() (the lab's own clock) on the shared clock.
export function fromPerformance (ms) {
  return ms + PERFORMANCE_TO_SHARED
}

// The header's value for one answer: `wait=T,queue=T,…` in the phases' order (T: now(), 3 decimals),
// from the handler's moments (`receivedAt`, `backAt`) and what the strategy's handle returned
// (`out`: startedAt, workMs, and where they apply slotAt, readyAt, offloaded). Null when stamping is off.
export function stampsValue (receivedAt, backAt, out) {
  if (!stamping) return null
  let v = 'wait=' + receivedAt.toFixed(3)
  if (out.slotAt !== undefined) v += ',queue=' + out.slotAt.toFixed(3)
  if (out.readyAt !== undefined) v += ',start=' + out.readyAt.toFixed(3)
  if (out.offloaded) v += ',send=' + out.startedAt.toFixed(3)
  v += ',run=' + (out.startedAt + out.workMs).toFixed(3)
  if (out.offloaded) v += ',return=' + backAt.toFixed(3)
  return v
}
