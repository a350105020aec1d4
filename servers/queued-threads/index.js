// queued-threads: a piscina pool of long-lived threads behind a FIFO queue (study 004's queued server,
// without its bugs). The main thread only parses and answers. A request waits in our own queue until a
// thread is free, so piscina never queues: piscina 5.3 does not keep abortable tasks in order (by
// default a task it cannot hand out goes back to the tail, piscina issue #1031, and with stricterFIFO
// abortable tasks come out last-in first-out; both measured here). A client that leaves is dropped from
// the queue, or its running task is aborted and piscina replaces the thread.
import { Piscina } from 'piscina'
import { ServerError } from '../lib/errors.js'
import { cores, integer, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { now, portable } from '../lib/task.js'
import { endedError, taskDeadline, unpooled } from '../lib/task-module.js'

main(async () => {
  const options = parseOptions({
    strategy: 'queued-threads',
    work: 'loop:1e8',
    extra: {
      threads: { default: String(cores), parse: integer(1, 256), help: 'pool threads (min = max, kept alive)' },
      maxQueue: {
        parse: integer(0),
        help: 'requests allowed to wait; when full, 503 + Retry-After (default unbounded)'
      },
      idleTimeout: { default: '3600000', parse: integer(0), help: 'ms an idle thread is kept' }
    }
  })
  const pool = new Piscina({
    filename: new URL('../lib/task.js', import.meta.url).href,
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: options.idleTimeout
  })
  const counts = { completed: 0, aborted: 0, rejected: 0, failed: 0 }
  const waiting = [] // FIFO of { go, fail } for requests waiting for a thread
  let running = 0 // requests holding a thread slot
  let busyMs = 0
  let windowStart = now()
  let closing = false

  // Wait for a free thread slot in arrival order; rejects at once when the queue is full.
  function acquire (signal) {
    if (signal.aborted) {
      counts.aborted++
      return Promise.reject(new ServerError('ERR_ABORTED', 'client left before its work started'))
    }
    if (running < options.threads && waiting.length === 0) {
      running++
      return Promise.resolve()
    }
    if (options.maxQueue !== undefined && waiting.length >= options.maxQueue) {
      counts.rejected++
      return Promise.reject(
        new ServerError('ERR_QUEUE_FULL', `queue full (--max-queue ${options.maxQueue}), retry later`)
      )
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiting.splice(waiting.indexOf(entry), 1)
        counts.aborted++
        reject(new ServerError('ERR_ABORTED', 'client left before its work started'))
      }
      const entry = {
        go: () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        },
        fail: (err) => {
          signal.removeEventListener('abort', onAbort)
          reject(err)
        }
      }
      signal.addEventListener('abort', onAbort, { once: true })
      waiting.push(entry)
    })
  }

  // Hand a freed slot to the oldest waiting request, or give it back.
  function release () {
    const next = waiting.shift()
    if (next) next.go()
    else running--
  }

  async function handle (work, { signal }) {
    if (closing) throw new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down')
    await acquire(signal)
    const deadline = taskDeadline(work)
    try {
      const either = deadline ? AbortSignal.any([signal, deadline]) : signal
      const out = unpooled(await pool.run({ work: portable(work) }, { signal: either }))
      counts.completed++
      busyMs += out.workMs
      return out
    } catch (err) {
      if (closing) throw new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err })
      if (err.name === 'AbortError' && deadline?.aborted && !signal.aborted) {
        counts.failed++
        throw endedError(work, 'thread')
      }
      if (err.name === 'AbortError') {
        counts.aborted++
        throw new ServerError('ERR_ABORTED', 'client left before its work finished', { cause: err })
      }
      counts.failed++
      if (err instanceof ServerError) throw err // a task module's failure, with its code
      throw new ServerError('ERR_TASK_FAILED', err.message, { cause: err })
    } finally {
      release()
    }
  }

  await start({
    strategy: 'queued-threads',
    options,
    handle,
    gauges: {
      read: () => ({
        queueLength: waiting.length,
        threads: pool.threads.length,
        threadsBusy: running,
        utilization: busyMs / ((now() - windowStart) * options.threads),
        ...counts
      }),
      reset: () => {
        Object.keys(counts).forEach((k) => {
          counts[k] = 0
        })
        busyMs = 0
        windowStart = now()
      }
    },
    close: async () => {
      closing = true
      for (const entry of waiting.splice(0)) entry.fail(new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down'))
      await pool.destroy()
    }
  })
})
