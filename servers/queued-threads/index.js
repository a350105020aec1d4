// queued-threads: a piscina pool of long-lived threads behind a FIFO queue (study 004's queued server,
// without its bugs). The main thread only parses and answers. A request waits in our own queue until a
// thread is free, so piscina never queues: piscina 5.3 does not keep abortable tasks in order (by
// default a task it cannot hand out goes back to the tail, piscina issue #1031, and with stricterFIFO
// abortable tasks come out last-in first-out; both measured here). A client that leaves is dropped from
// the queue, or its running task is aborted and piscina replaces the thread. Shedding variants
// (lib/shedding.js): --deadline (a request that waited too long is refused unrun) and --max-queue auto.
import { ServerError } from '../lib/errors.js'
import { cores, integer, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { now, portable } from '../lib/task.js'
import { endedError, taskDeadline, unpooled } from '../lib/task-module.js'
import { createFifoGate } from '../lib/fifo-gate.js'
import { taskPool } from '../lib/task-pool.js'
import { QUEUE_SHEDDING, checkQueueFlags, measureServiceMs, needsServiceTime, queueVariant, resolveQueue } from '../lib/shedding.js'

main(async () => {
  const options = parseOptions({
    strategy: 'queued-threads',
    work: 'loop:1e8',
    extra: {
      threads: { default: String(cores), parse: integer(1, 256), help: 'pool threads (min = max, kept alive)' },
      ...QUEUE_SHEDDING,
      idleTimeout: { default: '3600000', parse: integer(0), help: 'ms an idle thread is kept' }
    }
  })
  checkQueueFlags(options)
  const pool = taskPool({
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: options.idleTimeout
  })
  const counts = { completed: 0, aborted: 0, rejected: 0, expired: 0, failed: 0 }
  const queue = resolveQueue({ options, threads: options.threads, ...(await serviceTime(options, pool)) })
  for (const line of queue.lines) process.stderr.write(line + '\n')
  const { maxQueue, deadlineMs } = queue
  const gate = createFifoGate({ slots: options.threads, maxQueue, deadlineMs, counts })
  let busyMs = 0
  let windowStart = now()
  let closing = false

  // What a task's failure means for the request: shutting down, the task's own deadline, the client
  // gone, or the task's error (a task module's own, with its code).
  function failure (err, work, { signal, deadline }) {
    if (closing) return new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err })
    const aborted = err?.name === 'AbortError'
    counts[aborted && signal.aborted ? 'aborted' : 'failed']++
    if (aborted && deadline?.aborted && !signal.aborted) return endedError(work, 'thread')
    if (aborted) return new ServerError('ERR_ABORTED', 'client left before its work finished', { cause: err })
    if (err instanceof ServerError) return err
    return new ServerError('ERR_TASK_FAILED', err?.message ?? String(err), { cause: err })
  }

  // One request: wait for a thread in arrival order, then run the work on it.
  async function handle (work, { signal }) {
    if (closing) throw new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down')
    await gate.acquire(signal)
    const deadline = taskDeadline(work)
    try {
      const either = deadline ? AbortSignal.any([signal, deadline]) : signal
      const out = unpooled(await pool.run({ work: portable(work) }, { signal: either }))
      counts.completed++
      busyMs += out.workMs
      return out
    } catch (err) {
      throw failure(err, work, { signal, deadline })
    } finally {
      gate.release()
    }
  }

  await start({
    strategy: 'queued-threads',
    variant: queueVariant(options),
    options,
    handle,
    gauges: {
      read: () => ({
        queueLength: gate.waiting,
        threads: pool.threads.length,
        threadsBusy: gate.held,
        utilization: busyMs / ((now() - windowStart) * options.threads),
        ...(queue.maxQueue !== undefined ? { maxQueue: queue.maxQueue } : {}),
        ...(queue.deadlineMs !== undefined ? { deadlineMs: queue.deadlineMs } : {}),
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
      gate.failAll(new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down'))
      await pool.destroy()
    }
  })
})

// The service time an `auto` needs: --service-ms, else the median of a few runs of the work on the pool.
async function serviceTime (options, pool) {
  if (!needsServiceTime(options)) return { serviceMs: null }
  if (options.serviceMs !== undefined) return { serviceMs: options.serviceMs }
  return measureServiceMs(async () => unpooled(await pool.run({ work: portable(options.work) })))
}
