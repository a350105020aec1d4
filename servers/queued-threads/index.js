// queued-threads: a piscina pool of long-lived threads behind a FIFO queue (study 004's queued server,
// without its bugs). The main thread only parses and answers. A request waits in our own queue until a
// thread is free, so piscina never queues: piscina 5.3 does not keep abortable tasks in order (by
// default a task it cannot hand out goes back to the tail, piscina issue #1031, and with stricterFIFO
// abortable tasks come out last-in first-out; both measured here). A client that leaves is dropped from
// the queue, or its running task is aborted and piscina replaces the thread (--cancel off: neither, as
// the study's server). Queue, cancellation and shedding: lib/queued.js.
import { cores, integer } from '../lib/options.js'
import { main } from '../lib/serve.js'
import { portable } from '../lib/task.js'
import { unpooled } from '../lib/task-module.js'
import { taskPool } from '../lib/task-pool.js'
import { queuedOptions, serveQueued } from '../lib/queued.js'

main(async () => {
  const options = queuedOptions('queued-threads', {
    threads: { default: String(cores), parse: integer(1, 256), help: 'pool threads (min = max, kept alive)' },
    idleTimeout: { default: '3600000', parse: integer(0), help: 'ms an idle thread is kept' }
  })
  const pool = taskPool({ minThreads: options.threads, maxThreads: options.threads, idleTimeout: options.idleTimeout })
  await serveQueued({
    strategy: 'queued-threads',
    options,
    unit: 'thread',
    pool: {
      size: options.threads,
      run: async (work, { signal }) => unpooled(await pool.run({ work: portable(work) }, { signal })),
      gauges: () => ({ threads: pool.threads.length }),
      destroy: () => pool.destroy()
    }
  })
})
