// Bench part `processes`: what a pool of long-lived processes costs a task, for the three pools
// queued-processes could stand on: workerpool (workerType 'process'), tinypool (runtime 'child_process')
// and the lab's own over child_process.fork (servers/lib/process-pool.js). Each runs the lab's task
// runner on trivial work (its body verified), with as many tasks in flight as it has processes; rounds
// alternate between the pools. Then the time from a task that crashes its process to the next answer
// (with one process: its replacement's start; with more: another process takes it).
import { performance } from 'node:perf_hooks'
import { setTimeout } from 'node:timers/promises'
import workerpool from 'workerpool'
import { Tinypool } from 'tinypool'
import { createProcessPool } from '../servers/lib/process-pool.js'
import { expectedBody } from '../servers/lib/workloads.js'
import { ratios, summary } from './stats.js'

const POOLS = ['own', 'workerpool', 'tinypool']

const WORKERPOOL_SCRIPT = new URL('./pools/workerpool-worker.js', import.meta.url)
const TINYPOOL_TASK = new URL('./pools/tinypool-task.js', import.meta.url).href

// Start pool `name` with `size` processes, all ready: { name, run(spec) → Promise<{ body }>, close() }.
async function open (name, size) {
  if (name === 'own') {
    const pool = createProcessPool({ size })
    await pool.ready
    return { name, run: (spec) => pool.run({ spec }), close: () => pool.destroy() }
  }
  if (name === 'workerpool') {
    const pool = workerpool.pool(WORKERPOOL_SCRIPT.pathname, {
      workerType: 'process',
      minWorkers: size,
      maxWorkers: size,
      forkOpts: { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }
    })
    await Promise.all(Array.from({ length: size }, () => pool.exec('run', ['loop:1'])))
    return { name, run: (spec) => pool.exec('run', [spec]), close: () => pool.terminate(true) }
  }
  const pool = new Tinypool({ filename: TINYPOOL_TASK, runtime: 'child_process', minThreads: size, maxThreads: size })
  await Promise.all(Array.from({ length: size }, () => pool.run('loop:1')))
  return { name, run: (spec) => pool.run(spec), close: () => pool.destroy() }
}

// `calls` tasks of `spec` with `inFlight` at a time: µs per task; counts a wrong body in `seen.wrong`.
async function batch (pool, spec, calls, inFlight, seen) {
  const expected = expectedBody(spec)
  let next = 0
  const t0 = performance.now()
  const lane = async () => {
    while (next < calls) {
      next++
      const out = await pool.run(spec)
      if (out.body !== expected) seen.wrong++
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane))
  return ((performance.now() - t0) * 1000) / calls
}

// Before each crash, time for the last one's replacement to be up (a fork and a load take ~0.1–0.5 s here).
const SETTLE_MS = 1500

// Milliseconds from a task that crashes its process (it must fail) to the next answer of `spec`.
async function crashToAnswer (pool, spec) {
  await setTimeout(SETTLE_MS)
  const t0 = performance.now()
  let failed = false
  await pool.run('crash:1').catch(() => {
    failed = true
  })
  if (!failed) throw new Error(`processes bench: ${pool.name}: crash:1 did not fail`)
  const out = await pool.run(spec)
  if (out.body !== expectedBody(spec)) throw new Error(`processes bench: ${pool.name}: wrong body after a crash`)
  return performance.now() - t0
}

// For each pool size: every pool up at once, rounds alternating; then `crashes` crash → answer times.
export async function runProcesses (settings, { signal, progress = () => {} } = {}) {
  const { sizes, spec, calls, rounds, warmupCalls, crashes } = settings
  const cases = []
  for (const size of sizes) {
    signal?.throwIfAborted()
    const pools = []
    try {
      for (const name of POOLS) pools.push(await open(name, size))
      const seen = { wrong: 0 }
      const perTaskUs = Object.fromEntries(POOLS.map((n) => [n, []]))
      for (const p of pools) await batch(p, spec, warmupCalls, size, seen) // discarded: JIT, first touch
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 ? [...pools].reverse() : pools // neither always on the warmer machine
        for (const p of order) perTaskUs[p.name].push(await batch(p, spec, calls, size, seen))
        signal?.throwIfAborted()
      }
      if (seen.wrong) throw new Error(`processes bench: ${seen.wrong} wrong bodies with ${size} processes`)
      const crashMs = Object.fromEntries(POOLS.map((n) => [n, []]))
      for (let i = 0; i < crashes; i++) {
        for (const p of pools) crashMs[p.name].push(await crashToAnswer(p, spec))
      }
      const entry = {
        processes: size,
        calls,
        rounds,
        perTaskUs: Object.fromEntries(POOLS.map((n) => [n, summary(perTaskUs[n])])),
        // how many times the own pool's per-task time each pool's is (per round)
        ratio: Object.fromEntries(POOLS.slice(1).map((n) => [n, ratios(perTaskUs[n], perTaskUs.own)])),
        crashMs: Object.fromEntries(POOLS.map((n) => [n, summary(crashMs[n])]))
      }
      cases.push(entry)
      progress(`bench: processes ×${size}: ` + POOLS.map((n) => `${n} ${entry.perTaskUs[n].mean.toFixed(0)} µs/task`).join(', '))
    } finally {
      await Promise.all(pools.map((p) => p.close()))
    }
  }
  return { spec, pools: POOLS, ratioOf: 'pool / own per-task time', cases }
}
