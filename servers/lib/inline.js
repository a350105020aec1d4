// Inline work on the event loop, counted: what `simple`, each `cluster` worker and `long-vs-small-tasks`
// do with a request.
// Inline work cannot be cancelled; the gauges say how many requests are in it at once.
import { cores } from './options.js'
import { timedRun } from './task.js'

// { handle, gauges } for buildApp/start: handle runs the work inline through `run` (by default the
// work itself, timed); gauges count in-flight requests.
export function inline (run = timedRun) {
  let inFlight = 0
  let peakInFlight = 0
  return {
    handle: async (work) => {
      inFlight++
      peakInFlight = Math.max(peakInFlight, inFlight)
      try {
        return await run(work)
      } finally {
        inFlight--
      }
    },
    gauges: {
      read: () => ({ inFlight, peakInFlight, cores }),
      reset: () => {
        peakInFlight = inFlight
      }
    }
  }
}
