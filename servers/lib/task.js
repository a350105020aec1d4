// The worker side of every strategy: run one unit of work and time it. Used inline, as the piscina task
// file (default export), and by the Worker and forked-child entries, so all give the same body.
import { parseWork, runWork, workInput } from './workloads.js'
import { pooledFailure, runTask } from './task-module.js'
import { now } from './stamps.js'

// Milliseconds on the clock every thread and process of the machine shares, sub-millisecond (stamps.js).
export { now }

// Run `work` (spec or parsed) → { body, startedAt, workMs } (a Promise for the sleep kinds and tasks;
// a task's answer also says setupRan).
export function timedRun (work) {
  if (work?.task) return runTask(work.task, now)
  const startedAt = now()
  const finish = (result) => ({ body: JSON.stringify(result), startedAt, workMs: now() - startedAt })
  const out = runWork(work, work?.input)
  return out instanceof Promise ? out.then(finish) : finish(out)
}

// What to hand another thread or process for `work`: its spec string, { task } for a task module, or
// { spec, input } for a spec with bytes (its input made here, on the main thread, and carried there).
export function portable (work) {
  if (work.task) return { task: work.task }
  return work.bytes ? { spec: work.spec, input: workInput(work.bytes) } : work.spec
}

// Whether a forked child must wait for its work over IPC (a task's description, an input), not take it
// from its command line (`spec`: the spec string it was given there).
export function comesOverIpc (spec) {
  return spec.startsWith('task:') || (parseWork(spec).bytes ?? 0) > 0
}

// piscina task: `pool.run({ work })` (`work` a spec string, or { task } for a task module, whose
// failures come back as an answer so that their code survives: unwrap with unpooled()).
export default function task ({ work }) {
  return work?.task ? timedRun(work).catch(pooledFailure) : timedRun(work)
}
