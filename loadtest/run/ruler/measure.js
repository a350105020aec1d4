// One reading of the machine (result/ruler.js has its shape and its rules), measured in the ruler's child
// (child.js), one part after another so that no part disturbs another: the idle timer's lag, the
// single-thread time of the fixed works (works.js), the cores the machine really gives (the same unit on
// 1, 2, 4 … threads at once), the loopback HTTP cost (a bare node:http server in a thread) and the cost of
// starting a Worker and a child node. Each figure is the median of a few samples with their spread
// (rulerFigure). Bounded by PLAN: about a second on 2 cores; everything it starts has ended when it resolves.
import http from 'node:http'
import os from 'node:os'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { rulerFigure } from '../../result/ruler.js'
import { WORKS } from './works.js'

// What one reading measures, and for how long: every size of it, once.
export const PLAN = Object.freeze({
  samples: 5, // batches (or windows) per figure: the median of 5 and their p10–p90 spread
  timerBatch: 4, // idle setTimeout(1) calls per batch of the timer's lag
  warmMs: 10, // a work's calls before its batches (V8 tiers it up), at least warmCalls of them
  warmCalls: 3,
  batchMs: 5, // a batch of a work's calls lasts about this long
  maxThreads: 64, // the most threads the cores are measured at (a larger machine is measured at 64)
  threadWarmCalls: 20, // each cores thread warms its unit before it says it is ready
  levelWarmMs: 5, // the threads of a window run this long before it counts
  coreWindows: 3, // pairs of windows (one thread alone, then k threads) per level of the cores measure
  coreWindowMs: 25,
  maxBatches: 4096, // thread 0's batch times kept while it runs alone (about 60 in a window)
  rttWarm: 10, // requests before the round trips are timed
  rttBatch: 8, // sequential requests per batch of the round trip
  connections: 4, // the loopback throughput's connections
  rpsWarmMs: 20,
  rpsWindows: 3,
  rpsWindowMs: 30,
  spawns: 3 // Workers and child nodes started, one after another
})

// The thread counts the cores are measured at: 1, 2, 4 … up to the most, and the most itself; the most is
// the cores offered (os.availableParallelism, which follows affinity), at least 2, so that one core offered
// is measured, not assumed, and at most `maxThreads`.
export function threadLevels (offered, maxThreads = PLAN.maxThreads) {
  const most = Math.min(maxThreads, Math.max(2, offered))
  const levels = []
  for (let k = 1; k < most; k *= 2) levels.push(k)
  return [...levels, most]
}

// The idle timer's lag (ms): how late setTimeout(1) fires on an otherwise idle event loop, batch means.
async function timerLag (plan) {
  const batches = []
  for (let b = 0; b < plan.samples; b++) {
    let lag = 0
    for (let i = 0; i < plan.timerBatch; i++) {
      const t0 = performance.now()
      await sleep(1)
      lag += Math.max(0, performance.now() - t0 - 1)
    }
    batches.push(lag / plan.timerBatch)
  }
  return rulerFigure(batches)
}

// One work's time per call (ms) on this thread: warmed, then `samples` batches of calls, each batch's mean.
function perCall (work, plan) {
  const warmStart = performance.now()
  let calls = 0
  while (calls < plan.warmCalls || performance.now() - warmStart < plan.warmMs) {
    work()
    calls++
  }
  const t0 = performance.now()
  work()
  const callsPerBatch = Math.max(1, Math.round(plan.batchMs / Math.max(performance.now() - t0, 1e-3)))
  const means = []
  for (let b = 0; b < plan.samples; b++) {
    const start = performance.now()
    for (let i = 0; i < callsPerBatch; i++) work()
    means.push((performance.now() - start) / callsPerBatch)
  }
  return rulerFigure(means)
}

// The single-thread time of each fixed work.
function singleThread (plan) {
  return Object.fromEntries(Object.entries(WORKS).map(([name, work]) => [name, perCall(work, plan)]))
}

// The cores the machine gives: for each level of k threads, windows of one thread alone and of k threads at
// once, in turns, so that a machine whose speed moves meanwhile moves both alike. Each pair gives the k
// threads' calls per ms over the rate of one thread undisturbed (the fast end, p10, of thread 0's batch times
// in the window it ran alone): the speedup at k threads, and `effective`, the speedup at the most threads.
// Held against one undisturbed thread rather than against one thread's throughput, k threads that share
// their cores with other processes are not counted as more cores for taking a larger share of them (the
// scheduler shares a core by thread: two threads beside one hog get 2/3 of it, one thread 1/2), while SMT
// siblings, quotas and affinity, which slow or hold back the k threads, show.
async function coresGiven (plan) {
  const offered = os.availableParallelism()
  const levels = threadLevels(offered, plan.maxThreads)
  const most = levels.at(-1)
  const shared = {
    control: new Int32Array(new SharedArrayBuffer(4 * (most + 1))), // [stop, run flag of each thread]
    counts: new Int32Array(new SharedArrayBuffer(4 * most)),
    batches: new Float64Array(new SharedArrayBuffer(8 * plan.maxBatches)),
    kept: new Int32Array(new SharedArrayBuffer(4))
  }
  const url = new URL('./cores-thread.js', import.meta.url)
  const threads = Array.from({ length: most }, (_, index) =>
    new Worker(url, { workerData: { index, warmCalls: plan.threadWarmCalls, ...shared } }))
  const exited = threads.map((t) => once(t, 'exit'))
  try {
    await Promise.all(threads.map((t) => once(t, 'message')))
    const alone = []
    const scaling = []
    for (const k of levels.slice(1)) {
      const pairs = await levelPairs(k, shared, plan)
      alone.push(...pairs.alone)
      scaling.push({ threads: k, speedup: rulerFigure(pairs.speedups) })
    }
    scaling.unshift({ threads: 1, speedup: rulerFigure(alone) })
    return { offered, effective: scaling.at(-1).speedup, scaling }
  } finally {
    run(0, shared, most)
    Atomics.store(shared.control, 0, 1)
    for (let i = 1; i <= most; i++) Atomics.notify(shared.control, i)
    const late = setTimeout(() => threads.forEach((t) => t.terminate()), 2000) // a thread stuck in its unit
    await Promise.all(exited)
    clearTimeout(late)
  }
}

// Let the first k threads run and hold the others (of `most`).
function run (k, { control }, most) {
  for (let i = 0; i < most; i++) {
    Atomics.store(control, 1 + i, i < k ? 1 : 0)
    if (i < k) Atomics.notify(control, 1 + i)
  }
}

// `coreWindows` pairs of windows, thread 0 alone then k threads: per pair the speedup at k (the k threads'
// calls per ms over thread 0's undisturbed rate in its window alone) and at 1 (its own window's calls per ms
// over that rate).
async function levelPairs (k, shared, plan) {
  const most = shared.control.length - 1
  const total = () => shared.counts.reduce((a, b) => a + b, 0)
  const window = async () => {
    await sleep(plan.levelWarmMs)
    const c0 = total()
    const t0 = performance.now()
    await sleep(plan.coreWindowMs)
    return (total() - c0) / (performance.now() - t0)
  }
  const speedups = []
  const alone = []
  for (let w = 0; w < plan.coreWindows; w++) {
    run(1, shared, most)
    Atomics.store(shared.kept, 0, 0)
    const one = await window()
    const rate = undisturbedRate(shared)
    run(k, shared, most)
    const many = await window()
    if (rate > 0) {
      alone.push(one / rate)
      speedups.push(many / rate)
    }
  }
  run(0, shared, most)
  return { speedups, alone }
}

// One thread's calls per ms undisturbed: the p10 of thread 0's batch times per call kept since `kept` was
// reset (it ran alone).
function undisturbedRate ({ batches, kept }) {
  const times = Array.from(batches.subarray(0, Atomics.load(kept, 0))).sort((a, b) => a - b)
  const fast = times[Math.floor(times.length / 10)]
  return fast > 0 ? 1 / fast : null
}

// The loopback HTTP cost: a bare node:http answer from a thread, round trip at one connection (batches of
// sequential requests, their mean) and throughput at PLAN.connections (requests per second, window by window).
async function loopbackCost (plan) {
  const server = new Worker(new URL('./loopback-server.js', import.meta.url))
  const exited = once(server, 'exit')
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.connections })
  try {
    const [port] = await once(server, 'message')
    const get = () => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        res.resume()
        res.on('end', resolve)
        res.on('error', reject)
      }).on('error', reject)
    })
    for (let i = 0; i < plan.rttWarm; i++) await get()
    const batches = []
    for (let b = 0; b < plan.samples; b++) {
      const t0 = performance.now()
      for (let i = 0; i < plan.rttBatch; i++) await get()
      batches.push((performance.now() - t0) / plan.rttBatch)
    }
    return { rttMs: rulerFigure(batches), rps: await loopbackRps(get, plan), connections: plan.connections }
  } finally {
    agent.destroy()
    server.postMessage('stop')
    await exited
  }
}

// Requests per second at PLAN.connections, each connection sending its next request once the last answered.
async function loopbackRps (get, plan) {
  const state = { running: true }
  let done = 0
  const loops = Array.from({ length: plan.connections }, async () => {
    while (state.running) {
      await get()
      done++
    }
  })
  try {
    await sleep(plan.rpsWarmMs)
    const windows = []
    for (let w = 0; w < plan.rpsWindows; w++) {
      const c0 = done
      const t0 = performance.now()
      await sleep(plan.rpsWindowMs)
      windows.push(((done - c0) * 1000) / (performance.now() - t0))
    }
    return rulerFigure(windows)
  } finally {
    state.running = false
    await Promise.all(loops)
  }
}

// The cost of starting a Worker and a child node (ms), each until its first message back, one after another.
async function spawnCosts (plan) {
  const workerMs = []
  for (let i = 0; i < plan.spawns; i++) {
    const t0 = performance.now()
    const w = new Worker('require("node:worker_threads").parentPort.postMessage(1)', { eval: true })
    const exited = once(w, 'exit') // listened for first: a thread that ends at once emits both in one turn
    await once(w, 'message')
    workerMs.push(performance.now() - t0)
    await exited
  }
  const processMs = []
  for (let i = 0; i < plan.spawns; i++) {
    const t0 = performance.now()
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("1")'], { stdio: ['ignore', 'pipe', 'ignore'] })
    const exited = once(child, 'exit')
    await once(child.stdout, 'data')
    processMs.push(performance.now() - t0)
    child.stdout.resume()
    await exited
  }
  return { workerMs: rulerFigure(workerMs), processMs: rulerFigure(processMs) }
}

// One reading of this machine, in the shape of result/ruler.js (durationMs: this measure's own time; the lab
// counts its child's start too, index.js).
export async function measureReading (plan = PLAN) {
  const t0 = performance.now()
  const at = new Date().toISOString()
  const timerLagMs = await timerLag(plan)
  const single = singleThread(plan)
  const cores = await coresGiven(plan)
  const loopback = await loopbackCost(plan)
  const spawned = await spawnCosts(plan)
  const durationMs = Math.round(performance.now() - t0)
  return { at, durationMs, single, cores, loopback, spawn: spawned, timerLagMs }
}
