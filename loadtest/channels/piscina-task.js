// Worker side of mode `piscina`: piscina loads this module in each thread and calls its default export
// with the task, which is the id itself (so piscina structured-clones the payload both ways).
import { parentPort, threadId, workerData } from 'node:worker_threads'

const { hook, config } = workerData
const { resolveId } = await import(hook)
const cost = new Int32Array(config) // [0]: the hook's cost in microseconds, set by the main thread

// Tell the main thread this thread has loaded the hook (piscina has no per-thread ready event).
parentPort.postMessage({ loadlabDispatchReady: threadId })

// The task: the hook, at the cost the main thread set for this batch.
export default function run (id) {
  return resolveId(id, Atomics.load(cost, 0) / 1000)
}
