// What this process's runtime really measures of its own event loop, checked once at start: block the
// loop for BLOCK_MS, BLOCKS times, and see whether the delay histogram (perf_hooks monitorEventLoopDelay) and the
// utilisation (performance.eventLoopUtilization) saw it. Node sees both; Bun's utilisation is a stub
// (always 0) and its histogram records the delay without Node's timer interval; Deno's histogram saw
// a few microseconds of a 200 ms block and its utilisation is 0. An instrument that fails the check is
// reported with its reason and its figures become null (telemetry.js, sampling.js): never 0 or a wrong
// number.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

// The histogram's resolution (ms). Node records each sample as the whole timer interval plus the delay,
// so its figures carry this offset; the check measures whether this runtime's do.
export const RESOLUTION = 10
export const BLOCK_MS = 50
const SETTLE_MS = 20 // the loop turns freely before and after each block, so the histogram samples it
const SETTLE_MAX_MS = 1000 // at most this long, on a machine so busy that the loop's timers run late
// Blocks in a row, each of which must be seen: Deno's histogram sees a block now and then (when other
// timers run) and misses it as often, so one lucky reading must not make it trusted.
const BLOCKS = 3
const SEEN = 0.6 // an instrument must see at least this share of the block

// The runtime this process runs under, as it says itself: { name, version, engine }.
export function runtimeInfo () {
  return runtimeFrom({ versions: process.versions, deno: globalThis.Deno?.version?.deno ?? null })
}

// The same from what a runtime reports (process.versions, and Deno.version.deno under Deno), so the lab
// reads a probed binary's answer as a server reads itself. Bun and Deno also set versions.node, to the
// Node version they imitate, so it is not asked first; Bun runs on JavaScriptCore, so its versions.v8
// is an imitation too.
export function runtimeFrom ({ versions, deno = null }) {
  if (typeof versions.bun === 'string') {
    return {
      name: 'bun',
      version: versions.bun,
      engine: 'JavaScriptCore ' +
      `(WebKit ${String(versions.webkit).slice(0, 12)})`
    }
  }
  if (typeof deno === 'string') return { name: 'deno', version: deno, engine: `V8 ${versions.v8}` }
  return { name: 'node', version: versions.node, engine: `V8 ${versions.v8}` }
}

// The V8 version this process runs, or null when it runs on another engine (Bun).
export function v8Version (versions = process.versions) {
  return typeof versions.bun === 'string' ? null : versions.v8
}

let checked = null

// Check the instruments once per process (later calls share the first check): resolves
// { eventLoopDelay: { trusted, offsetMs, seenMs: [per block], reason }, elu: { trusted, seenMs, reason },
// blockMs, blocks }.
export function checkInstruments () {
  checked ??= runCheck()
  return checked
}

async function runCheck () {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION })
  histogram.enable()
  const before = performance.eventLoopUtilization()
  const seen = []
  for (let i = 0; i < BLOCKS; i++) {
    // Node's first sample after a reset only starts its clock, and a starved process may not take it
    // within a fixed settle: the block waits until the histogram has recorded since the reset (its clock
    // runs), and the reading waits for a sample after the block (the one that spans it).
    // The offset is read off the idle samples before the block (their median: CI once saw a sample of a few
    // microseconds beside the 10 ms ones on a loaded machine, and a smallest sample was taken for the offset).
    histogram.reset()
    await settle(() => histogram.count > 0)
    const idle = histogram.percentile(50)
    block(BLOCK_MS)
    const before = histogram.count
    await settle(() => histogram.count > before)
    seen.push({ idle, max: histogram.max, count: histogram.count })
  }
  const elu = performance.eventLoopUtilization(before)
  histogram.disable()
  return { eventLoopDelay: judgeHistogram(seen), elu: judgeElu(elu), blockMs: BLOCK_MS, blocks: BLOCKS }
}

// Let the loop turn SETTLE_MS, then on until `ready` holds or SETTLE_MAX_MS have passed (a runtime whose
// histogram never samples is judged by what it read, not waited on).
async function settle (ready) {
  const until = performance.now() + SETTLE_MAX_MS
  do await sleep(SETTLE_MS)
  while (!ready() && performance.now() < until)
}

function block (ms) {
  const until = performance.now() + ms
  while (performance.now() < until);
}

// The histogram is trusted when, less the offset it showed (the median of its idle samples before each block:
// about RESOLUTION under Node, about 0 under Bun; the middle of the blocks' medians), it saw most of every
// block. `readings`: [{ idle, max, count }] (ns), one per block.
export function judgeHistogram (readings) {
  const what = 'at start, monitorEventLoopDelay'
  if (readings.some((r) => !(r.count > 0))) {
    return {
      trusted: false,
      offsetMs: null,
      seenMs: null,
      reason: `${what} took no sample around ` +
      `a ${BLOCK_MS} ms block`
    }
  }
  const idle = readings.map((r) => r.idle).sort((a, b) => a - b)[(readings.length - 1) >> 1]
  const offsetMs = idle / 1e6 >= RESOLUTION / 2 ? RESOLUTION : 0
  const seenMs = readings.map((r) => round3(r.max / 1e6 - offsetMs))
  if (seenMs.every((ms) => ms >= BLOCK_MS * SEEN)) return { trusted: true, offsetMs, seenMs, reason: null }
  return {
    trusted: false,
    offsetMs,
    seenMs,
    reason: `${what} read ${readings.length} blocks of ${BLOCK_MS} ms as ${seenMs.join(', ')} ms`
  }
}

// The utilisation is trusted when its active time covers most of the blocks.
export function judgeElu ({ active }) {
  const seenMs = round3(active)
  if (seenMs >= BLOCKS * BLOCK_MS * SEEN) return { trusted: true, seenMs, reason: null }
  return {
    trusted: false,
    seenMs,
    reason: `at start, eventLoopUtilization read ${BLOCKS} blocks of ${BLOCK_MS} ms as ${seenMs} ms active`
  }
}

function round3 (x) {
  return Math.round(x * 1000) / 1000
}
