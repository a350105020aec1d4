// simple: one process, one thread, the work runs inline on the event loop (study 004's "simple").
// While a request works, nothing else is served, not even /health; inline work cannot be cancelled.
import { parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { inline } from '../lib/inline.js'

main(async () => {
  const options = parseOptions({ strategy: 'simple', work: 'loop:1e8' })
  await start({ strategy: 'simple', options, ...inline() })
})
