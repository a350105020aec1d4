// One generator thread (generators.js): says it is ready, waits for the common start, fires its slice
// of the plan with its own connections, and posts its raw round (histograms encoded) and its timeline
// (on the round's clock) back. A 'stop' message ends its round as the lab's abort does.
import { parentPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { fireOpenLoop } from './open-loop.js'
import { createTimeline } from './timeline.js'
import { plainRaw } from './generators.js'

const { opts, clock } = workerData
const stop = new AbortController()

// This thread's own timeline, on the round's clock (ms since the watch's origin), or none.
function threadTimeline () {
  if (!clock) return null
  const timeline = createTimeline({ intervalMs: clock.intervalMs })
  const at = () => performance.timeOrigin + performance.now() - clock.originEpochMs
  return {
    timeline,
    onSent: () => timeline.sent(at()),
    onRecord: (info) => timeline.record(at(), info)
  }
}

async function run (startAt) {
  const own = threadTimeline()
  try {
    const raw = await fireOpenLoop({
      ...opts, startAt, signal: stop.signal, onSent: own?.onSent, onRecord: own?.onRecord
    })
    parentPort.postMessage({ type: 'done', raw: plainRaw(raw), timeline: own?.timeline.dump() ?? null })
  } catch (err) {
    parentPort.postMessage({ type: 'error', message: err.message })
  }
  parentPort.close()
}

parentPort.on('message', (m) => {
  if (m.type === 'stop') stop.abort()
  else if (m.type === 'start') {
    if (m.stopped) stop.abort()
    run(m.startAt)
  }
})
parentPort.postMessage({ type: 'ready' })
