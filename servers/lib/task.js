// The worker side of every strategy: run one unit of work and time it. Used inline, as the piscina task
// file (default export), and by the Worker and forked-child entries, so all give the same body.
import { performance } from 'node:perf_hooks'
import { runWork } from './workloads.js'

// Wall-clock milliseconds with sub-millisecond precision, comparable across threads and processes.
export function now () {
  return performance.timeOrigin + performance.now()
}

// Run `work` (spec or parsed) → { body, startedAt, workMs } (a Promise for the sleep kinds).
export function timedRun (work) {
  const startedAt = now()
  const finish = (result) => ({ body: JSON.stringify(result), startedAt, workMs: now() - startedAt })
  const out = runWork(work)
  return out instanceof Promise ? out.then(finish) : finish(out)
}

// piscina task: `pool.run({ work })`.
export default function task ({ work }) {
  return timedRun(work)
}
