// The wall clock (ms since the epoch, as Date.now() reads it) with performance.now()'s precision: the one
// clock for moments that the lab's processes and threads share (a shard's common start, a timeline's
// origin). Not performance.timeOrigin + performance.now(): Node reads timeOrigin's wall and monotonic halves
// apart as a thread or process starts, and a stall between the two reads (a busy machine) offsets that sum
// for the thread's life (servers/lib/stamps.js). A shard started beside a busy suite waited for its start
// on Date.now() and found it 0.5 s gone on that sum.
import { performance } from 'node:perf_hooks'

// A pair read further apart than this (ms) was preempted between its reads: read again.
const PAIR_MS = 0.05
const TRIES = 5

let offset = null

// Date.now() − performance.now() in this thread, read once: at the moment Date.now() turns to its next
// ms (a whole ms is its start), so the offset is good to the loop's step, not to Date.now()'s 1 ms.
export function wallOffsetMs () {
  if (offset !== null) return offset
  let best = null
  for (let i = 0; i < TRIES && (best === null || best.gap > PAIR_MS); i++) {
    const from = Date.now()
    let before = performance.now()
    let wall = Date.now()
    while (wall === from) {
      before = performance.now()
      wall = Date.now()
    }
    const after = performance.now()
    if (best === null || after - before < best.gap) best = { gap: after - before, offset: wall - (before + after) / 2 }
  }
  offset = best.offset
  return offset
}

// Now, in epoch ms.
export function epochNow () {
  return performance.now() + wallOffsetMs()
}

// An epoch moment on this thread's performance.now() clock, and back.
export function perfOf (epochMs) {
  return epochMs - wallOffsetMs()
}

export function epochOf (perfMs) {
  return perfMs + wallOffsetMs()
}
