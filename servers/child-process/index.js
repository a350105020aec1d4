// child-process: child_process.fork for every request; the child runs the work, sends the result over
// IPC and exits (study 004's "child-process"). Unbounded by design; a failed fork answers 503, a child
// that dies without answering 500; a started child is not cancelled when its client leaves.
import { parseOptions } from '../lib/options.js'
import { perRequest } from '../lib/per-request.js'
import { main, start } from '../lib/serve.js'

main(async () => {
  const options = parseOptions({ strategy: 'child-process', work: 'loop:1e8' })
  await start({ strategy: 'child-process', options, ...perRequest('child') })
})
