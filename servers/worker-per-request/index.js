// worker-per-request: a new worker_threads Worker for every request, ended once it has answered
// (study 004's "threads"): unbounded, so a burst starts as many threads as requests. A worker error
// answers 500, a thread that cannot start 503; a started thread is not cancelled when its client leaves.
import { parseOptions } from '../lib/options.js'
import { perRequest } from '../lib/per-request.js'
import { main, start } from '../lib/serve.js'

main(async () => {
  const options = parseOptions({ strategy: 'worker-per-request', work: 'loop:1e8' })
  await start({ strategy: 'worker-per-request', options, ...perRequest('worker') })
})
