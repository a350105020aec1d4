// Inline work on the event loop, counted: what `simple` and each `cluster` worker do with a request.
// Inline work cannot be cancelled; the gauges say how many requests are in it at once.
import { cores } from './options.js'
import { timedRun } from './task.js'

// { handle, gauges } for buildApp/start: handle runs the work inline; gauges count in-flight requests.
export function inline () {
  let inFlight = 0
  let peakInFlight = 0
  return {
    handle: async (work) => {
      inFlight++
      peakInFlight = Math.max(peakInFlight, inFlight)
      try {
        return await timedRun(work)
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
