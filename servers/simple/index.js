// simple: one process, one thread, the work runs inline on the event loop (study 004's "simple").
// While a request works, nothing else is served, not even /health; inline work cannot be cancelled.
// --shed-loop-delay: @fastify/under-pressure sheds on the event-loop delay (variant under-pressure).
import { parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { inline } from '../lib/inline.js'
import { LOOP_SHEDDING, loopVariant, shedOnLoopDelay } from '../lib/shedding.js'

main(async () => {
  const options = parseOptions({ strategy: 'simple', work: 'loop:1e8', extra: LOOP_SHEDDING })
  const variant = loopVariant(options)
  await start({ strategy: 'simple', variant, options, extend: (app) => shedOnLoopDelay(app, options), ...inline() })
})
