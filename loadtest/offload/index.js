// The implementations study 000 compared, each behind one interface: `sync` (the main thread, one
// execution after another) and five pools, named after their library and mode.
//
// startPool(impl, workers) resolves once every worker has answered (or after READY_ROUNDS tries) with
//   { run(spec) → Promise<{ body, innerMs }>, workersSeen, processesSeen (other than this one),
//     close() → Promise<void> }.
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import workerpool from 'workerpool'
import { Worker as JestWorker } from 'jest-worker'
import { run as runInline } from './task.js'

const here = (file) => fileURLToPath(new URL(file, import.meta.url))
const TASK = here('./task.js')
const WORKERPOOL_WORKER = here('./workerpool-worker.js')
const JEST_TASK = here('./jest-worker-task.cjs')

// How many rounds of one `ready` call per worker a start-up may take before it stops waiting for
// workers it has not seen (a pool may hand two of a round's calls to the one worker already up).
const READY_ROUNDS = 50

function piscinaPool (workers) {
  const pool = new Piscina({ filename: TASK, minThreads: workers, maxThreads: workers, idleTimeout: Infinity })
  return {
    run: (spec) => pool.run(spec, { name: 'run' }),
    ready: () => pool.run(null, { name: 'ready' }),
    close: () => pool.destroy()
  }
}

function workerpoolPool (workers, workerType) {
  const pool = workerpool.pool(WORKERPOOL_WORKER, { minWorkers: workers, maxWorkers: workers, workerType })
  return {
    run: (spec) => pool.exec('run', [spec]),
    ready: () => pool.exec('ready', []),
    close: () => pool.terminate()
  }
}

function jestPool (workers, enableWorkerThreads) {
  const pool = new JestWorker(JEST_TASK, { numWorkers: workers, enableWorkerThreads, exposedMethods: ['run', 'ready'] })
  return {
    run: (spec) => pool.run(spec),
    ready: () => pool.ready(),
    close: async () => {
      await pool.end()
    }
  }
}

// Every implementation, in the study's order: name, library, where the work runs, and its pool (null: inline).
export const IMPLS = [
  { name: 'sync', library: null, mode: 'main thread', create: null },
  { name: 'piscina/threads', library: 'piscina', mode: 'threads', create: (n) => piscinaPool(n) },
  { name: 'workerpool/threads', library: 'workerpool', mode: 'threads', create: (n) => workerpoolPool(n, 'thread') },
  {
    name: 'workerpool/processes', library: 'workerpool', mode: 'processes', create: (n) => workerpoolPool(n, 'process')
  },
  { name: 'jest-worker/processes', library: 'jest-worker', mode: 'processes', create: (n) => jestPool(n, false) },
  { name: 'jest-worker/threads', library: 'jest-worker', mode: 'threads', create: (n) => jestPool(n, true) }
]

// The names of the implementations.
export const IMPL_NAMES = IMPLS.map((i) => i.name)

// One implementation by name; throws a RangeError naming the allowed ones.
export function implFor (name) {
  const impl = IMPLS.find((i) => i.name === name)
  if (!impl) throw new RangeError(`impl: expected one of ${IMPL_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  return impl
}

// Start `workers` workers of a pooled implementation and wait until each has answered once.
export async function startPool (impl, workers) {
  const pool = impl.create(workers)
  const seen = new Set()
  try {
    for (let round = 0; round < READY_ROUNDS && seen.size < workers; round++) {
      const ids = await Promise.all(Array.from({ length: workers }, () => pool.ready()))
      for (const id of ids) seen.add(id)
    }
  } catch (err) {
    await pool.close().catch(() => {})
    throw err
  }
  const pids = new Set([...seen].map((id) => Number(id.split(':')[0])))
  pids.delete(process.pid)
  return { run: pool.run, workersSeen: seen.size, processesSeen: pids.size, close: pool.close }
}

// The sync implementation's one execution (the same task, on the main thread).
export { runInline }
