// The wall clock (ms since the epoch, as Date.now() reads it) with performance.now()'s precision: the one
// clock for moments that the lab's processes and threads share (a shard's common start, a timeline's
// origin). Not performance.timeOrigin + performance.now(): Node reads timeOrigin's wall and monotonic halves
// apart as a thread or process starts, and a stall between the two reads (a busy machine) offsets that sum
// for the thread's life (servers/lib/stamps.js: up to 104 ms); a wall clock set since then (NTP) offsets it
// too. A shard waited for its start on Date.now() and judged it on that sum.
import { performance } from 'node:perf_hooks'

// A pair read further apart than this (ms) was preempted between its reads: read again.
const PAIR_MS = 0.05
const TRIES = 5

// Date.now() − performance.now() in this thread now, read at the moment Date.now() turns to its next ms
// (a whole ms is its start), so it is good to the loop's step, not to Date.now()'s 1 ms; it spins up to
// 1 ms a try. Read anew for each moment the lab places (the wall clock may have been set since); a
// hot path holds one.
export function wallOffsetMs () {
  let best = null
  for (let i = 0; i < TRIES && (best === null || best.gap > PAIR_MS); i++) {
    // the turn lies between the last read of the old ms and the first read of the new one
    let lastOld = performance.now()
    const from = Date.now()
    let wall = from
    while (wall === from) {
      const at = performance.now()
      wall = Date.now()
      if (wall === from) lastOld = at
    }
    const after = performance.now()
    const gap = after - lastOld
    if (best === null || gap < best.gap) best = { gap, offset: wall - (lastOld + after) / 2 }
  }
  return best.offset
}

// Now, in epoch ms.
export function epochNow () {
  return performance.now() + wallOffsetMs()
}
