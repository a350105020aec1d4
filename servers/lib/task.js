// The worker side of every strategy: run one unit of work and time it. Used inline, as the piscina task
// file (default export), and by the Worker and forked-child entries, so all give the same body.
import { runWork } from './workloads.js'
import { pooledFailure, runTask } from './task-module.js'
import { now } from './stamps.js'

// Wall-clock milliseconds with sub-millisecond precision, comparable across threads and processes (stamps.js).
export { now }

// Run `work` (spec or parsed) → { body, startedAt, workMs } (a Promise for the sleep kinds and tasks;
// a task's answer also says setupRan).
export function timedRun (work) {
  if (work?.task) return runTask(work.task, now)
  const startedAt = now()
  const finish = (result) => ({ body: JSON.stringify(result), startedAt, workMs: now() - startedAt })
  const out = runWork(work)
  return out instanceof Promise ? out.then(finish) : finish(out)
}

// What to hand another thread or process for `work`: its spec string, or { task } for a task module.
export function portable (work) {
  return work.task ? { task: work.task } : work.spec
}

// piscina task: `pool.run({ work })` (`work` a spec string, or { task } for a task module, whose
// failures come back as an answer so that their code survives: unwrap with unpooled()).
export default function task ({ work }) {
  return work?.task ? timedRun(work).catch(pooledFailure) : timedRun(work)
}
