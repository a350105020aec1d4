// One thread of the ruler's cores measure (measure.js coresGiven): warms its unit, says it is ready, then
// runs the unit over and over while its run flag is set, counting each call, until the stop flag. It waits
// on its flag (Atomics.wait) rather than spinning while it is not asked to run. Thread 0 also times its
// calls in batches of BATCH_CALLS and keeps each batch's time per call (ms) in `batches` (`kept` of them,
// at most batches.length; the measure resets `kept`): the fast end of those is the unit's time on a core
// that runs it undisturbed. Not an entry point.
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { CORE_UNIT } from './works.js'

export const BATCH_CALLS = 4
const { index, control, counts, warmCalls, batches, kept } = workerData
const STOP = 0
const flag = 1 + index

for (let i = 0; i < warmCalls; i++) CORE_UNIT()
parentPort.postMessage('ready')
while (Atomics.load(control, STOP) === 0) {
  if (Atomics.load(control, flag) === 0) {
    Atomics.wait(control, flag, 0, 50)
    continue
  }
  const t0 = performance.now()
  for (let i = 0; i < BATCH_CALLS; i++) {
    CORE_UNIT()
    Atomics.add(counts, index, 1)
  }
  if (index === 0) {
    const at = Atomics.load(kept, 0)
    if (at < batches.length) {
      batches[at] = (performance.now() - t0) / BATCH_CALLS
      Atomics.store(kept, 0, at + 1)
    }
  }
}
