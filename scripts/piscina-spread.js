// `node scripts/piscina-spread.js`: how piscina hands out blocking tasks, the reason study 002's tuned
// sync-sleep-pooled differs here (docs/studies.md). Ten 100 ms `sleep-sync` tasks at once on a pool with
// piscina's defaults and with `concurrentTasksPerWorker: 10, idleTimeout: 1000` (the study's `10 1000`):
// prints how many tasks each thread ran and how long the ten took.
import { performance } from 'node:perf_hooks'
import { Piscina } from 'piscina'

const TASK = new URL('./piscina-spread-task.js', import.meta.url).href

// Run `tasks` sleeps of `ms` at once on a pool with `options`: { perThread: [counts, largest first], ms }.
async function spread (options, { tasks = 10, ms = 100 } = {}) {
  const pool = new Piscina({ ...options, filename: TASK })
  try {
    await Promise.all(Array.from({ length: 3 }, () => pool.run(0))) // threads up before the clock starts
    const t0 = performance.now()
    const ids = await Promise.all(Array.from({ length: tasks }, () => pool.run(ms)))
    const counts = new Map()
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1)
    const perThread = [...counts.values()].sort((a, b) => b - a)
    return { maxThreads: pool.options.maxThreads, perThread, ms: performance.now() - t0 }
  } finally {
    await pool.destroy()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tuned = { concurrentTasksPerWorker: 10, idleTimeout: 1000 }
  for (const [label, options] of [['defaults', {}], ['concurrentTasksPerWorker 10, idleTimeout 1000', tuned]]) {
    const r = await spread(options)
    console.log(`${label}: ${r.maxThreads} threads at most; ten 100 ms sync tasks at once took ${r.ms.toFixed(0)} ms, ` +
      `tasks per thread ${r.perThread.join(', ')}`)
  }
}
