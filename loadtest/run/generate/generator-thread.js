// One generator thread (generators.js): opens its connections, says it is ready, waits for the common
// start, fires its slice of the plan with them, and posts its raw round (histograms encoded) and its timeline
// (on the round's clock) back. A 'stop' message ends its round as the lab's abort does.
import { parentPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { fireOpenLoop } from './open-loop.js'
import { createTimeline } from '../watch/timeline.js'
import { PROGRESS_MS, plainRaw } from './generators.js'
import { wallOffsetMs } from '../epoch.js'

const { opts, clock } = workerData
const stop = new AbortController()

// This thread's own timeline, on the round's clock (ms since the watch's origin), or none; and the
// requests it ended since its last progress report, posted every PROGRESS_MS.
function threadTimeline () {
  const timeline = clock ? createTimeline({ intervalMs: clock.intervalMs }) : null
  const origin = clock ? clock.originEpochMs - wallOffsetMs() : 0 // on this thread's performance.now()
  const at = () => performance.now() - origin
  const delta = { completed: 0, timeouts: 0 }
  const report = () => {
    if (delta.completed + delta.timeouts === 0) return
    parentPort.postMessage({ type: 'progress', ...delta })
    delta.completed = delta.timeouts = 0
  }
  const timer = setInterval(report, PROGRESS_MS)
  return {
    timeline,
    onSent: timeline ? () => timeline.sent(at()) : undefined,
    onRecord: (info) => {
      timeline?.record(at(), info)
      if (info.timeout) delta.timeouts++
      else if (!info.error) delta.completed++
    },
    stop () {
      clearInterval(timer)
      report()
    }
  }
}

// The common start, once the lab sends it (after every thread is ready).
let started
const startWhen = new Promise((resolve) => { started = resolve })

async function run () {
  const own = threadTimeline()
  try {
    const raw = await fireOpenLoop({
      ...opts,
      startWhen,
      onPrepared: () => parentPort.postMessage({ type: 'ready' }),
      signal: stop.signal,
      onSent: own.onSent,
      onRecord: own.onRecord
    })
    own.stop()
    parentPort.postMessage({ type: 'done', raw: plainRaw(raw), timeline: own.timeline?.dump() ?? null })
  } catch (err) {
    own.stop()
    parentPort.postMessage({ type: 'error', message: err.message })
  }
  parentPort.close()
}

parentPort.on('message', (m) => {
  if (m.type === 'stop') stop.abort()
  else if (m.type === 'start') {
    if (m.stopped) stop.abort()
    started(m.startAt)
  }
})
run()
