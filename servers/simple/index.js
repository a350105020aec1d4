// simple: one process, one thread, the work runs inline on the event loop (study 004's "simple").
// While a request works, nothing else is served, not even /health; inline work cannot be cancelled.
import { cores, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { timedRun } from '../lib/task.js'

main(async () => {
  const options = parseOptions({ strategy: 'simple', work: 'loop:1e8' })
  let inFlight = 0
  let peakInFlight = 0
  await start({
    strategy: 'simple',
    options,
    handle: async (work) => {
      inFlight++
      peakInFlight = Math.max(peakInFlight, inFlight)
      try { return await timedRun(work) } finally { inFlight-- }
    },
    gauges: { read: () => ({ inFlight, peakInFlight, cores }), reset: () => { peakInFlight = inFlight } }
  })
})
