// queued-threads: a piscina pool of long-lived threads with a FIFO queue (study 004's queued server,
// without its bugs). The main thread only parses and answers; a request whose client leaves is aborted,
// removed from the queue if still waiting, or its thread is replaced if already working.
import { Piscina } from 'piscina'
import { LabError } from '../lib/errors.js'
import { cores, integer, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { now } from '../lib/task.js'

main(async () => {
  const options = parseOptions({
    strategy: 'queued-threads',
    work: 'loop:1e8',
    extra: {
      threads: { default: String(cores), parse: integer(1, 256), help: 'pool threads (min = max, kept alive)' },
      maxQueue: { parse: integer(0), help: 'tasks allowed to wait; when full, 503 + Retry-After (default unbounded)' },
      idleTimeout: { default: '3600000', parse: integer(0), help: 'ms an idle thread is kept' }
    }
  })
  const pool = new Piscina({
    filename: new URL('../lib/task.js', import.meta.url).href,
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: options.idleTimeout
  })
  // piscina runs one abortable task per thread and keeps abortable tasks out of its own maxQueue
  // check, so the queue bound is enforced here: a task that would wait for a thread is refused when
  // pool.queueSize (which counts abortable tasks) is already at --max-queue.
  const counts = { completed: 0, aborted: 0, rejected: 0, failed: 0 }
  let running = 0
  let busyMs = 0
  let windowStart = now()
  let closing = false

  async function handle (work, { signal }) {
    if (closing) throw new LabError('ERR_SHUTTING_DOWN', 'server is shutting down')
    const waitsForThread = running - pool.queueSize >= options.threads
    if (options.maxQueue !== undefined && waitsForThread && pool.queueSize >= options.maxQueue) {
      counts.rejected++
      throw new LabError('ERR_QUEUE_FULL', `queue full (--max-queue ${options.maxQueue}), retry later`)
    }
    try {
      running++
      const out = await pool.run({ work: work.spec }, { signal })
      counts.completed++
      busyMs += out.workMs
      return out
    } catch (err) {
      if (closing) throw new LabError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err })
      if (err.name === 'AbortError') {
        counts.aborted++
        throw new LabError('ERR_ABORTED', 'client left before its work finished', { cause: err })
      }
      counts.failed++
      throw new LabError('ERR_TASK_FAILED', err.message, { cause: err })
    } finally {
      running--
    }
  }

  await start({
    strategy: 'queued-threads',
    options,
    handle,
    gauges: {
      read: () => ({
        queueLength: pool.queueSize,
        threads: pool.threads.length,
        threadsBusy: Math.min(running - pool.queueSize, pool.threads.length),
        utilization: busyMs / ((now() - windowStart) * options.threads),
        ...counts
      }),
      reset: () => {
        Object.keys(counts).forEach((k) => { counts[k] = 0 })
        busyMs = 0
        windowStart = now()
      }
    },
    close: async () => {
      closing = true
      await pool.destroy()
    }
  })
})
