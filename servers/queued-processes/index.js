// queued-processes: a pool of long-lived child processes behind the same FIFO queue, cancellation and
// shedding as queued-threads (lib/queued.js). Each task runs in its own process, so a task that crashes
// (a native fault, process.exit, an out-of-memory abort) takes that process only: its request answers
// 500, the pool forks a replacement, the server goes on. The pool is our own over child_process.fork
// (lib/process-pool.js): docs/servers.md says why, from `npm run bench -- --only processes`.
import { cores, integer } from '../lib/options.js'
import { main } from '../lib/serve.js'
import { createProcessPool } from '../lib/process-pool.js'
import { queuedOptions, serveQueued } from '../lib/queued.js'

main(async () => {
  const options = queuedOptions('queued-processes', {
    processes: { default: String(cores), parse: integer(1, 64), help: 'pool processes (forked at start, kept alive)' },
    heapMb: {
      parse: integer(16, 65536),
      help: 'each pool process\'s V8 heap limit, MB (default Node\'s): a task ' +
      'past it ends its process, 500'
    }
  })
  const pool = createProcessPool({ size: options.processes, heapMb: options.heapMb ?? null })
  try {
    await pool.ready
  } catch (err) {
    await pool.destroy()
    throw err
  }
  await serveQueued({ strategy: 'queued-processes', options, unit: 'process', pool })
})
