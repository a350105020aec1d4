// The queued pools' server (queued-threads, queued-processes): a pool of long-lived threads or processes
// behind our own FIFO gate (fifo-gate.js), so the pool never queues on its own. A client that leaves is
// dropped from the queue, or its running task is aborted and the pool replaces its thread or process;
// with --cancel off (study 004's queued server) it keeps its place and its work runs for nobody.
// Shedding (shedding.js): --deadline (a request that waited too long is refused unrun) and --max-queue.
import { ServerError } from './errors.js'
import { parseOptions } from './options.js'
import { start } from './serve.js'
import { now } from './task.js'
import { endedError, taskDeadline } from './task-module.js'
import { createFifoGate } from './fifo-gate.js'
import {
  QUEUE_CANCEL,
  QUEUE_SHEDDING,
  checkQueueFlags,
  measureServiceMs,
  needsServiceTime,
  queueVariant,
  resolveQueue
} from './shedding.js'

// A signal that never aborts: the client's, as --cancel off sees it.
const NEVER = new AbortController().signal

// A queued pool's options: its own pool flags (parseOptions `extra` entries), then the shedding and
// cancellation flags every queued pool takes.
export function queuedOptions (strategy, poolFlags) {
  return parseOptions({ strategy, work: 'loop:1e8', extra: { ...poolFlags, ...QUEUE_SHEDDING, ...QUEUE_CANCEL } })
}

// Serve `pool` behind the gate. `unit` names a slot ('thread' or 'process') in messages and in the busy
// gauge (gaugeNames); `pool` is { size, run(work, { signal }) resolving
// { body, startedAt, workMs } or rejecting (an AbortError when its signal ended it), gauges(), destroy() }.
export async function serveQueued ({ strategy, options, unit, pool }) {
  checkQueueFlags(options)
  const names = gaugeNames(unit)
  const cancel = options.cancel !== 'off'
  const counts = { completed: 0, aborted: 0, rejected: 0, expired: 0, failed: 0, abandoned: 0 }
  const queue = resolveQueue({ options, threads: pool.size, ...(await serviceTime(options, pool)) })
  for (const line of queue.lines) process.stderr.write(line + '\n')
  const { maxQueue, deadlineMs } = queue
  const gate = createFifoGate({ slots: pool.size, maxQueue, deadlineMs, counts, unit, cancel })
  let busyMs = 0
  let windowStart = now()
  let closing = false

  // What a task's failure means for the request: shutting down, the task's own deadline, the client
  // gone, or the task's error (a task module's own, with its code).
  function failure (err, work, { signal, deadline }) {
    if (closing) return new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err })
    const aborted = err?.name === 'AbortError'
    counts[aborted && signal.aborted ? 'aborted' : 'failed']++
    if (aborted && deadline?.aborted && !signal.aborted) return endedError(work, unit)
    if (aborted) return new ServerError('ERR_ABORTED', 'client left before its work finished', { cause: err })
    if (err instanceof ServerError) return err
    return new ServerError('ERR_TASK_FAILED', err?.message ?? String(err), { cause: err })
  }

  // One request: wait for a slot in arrival order, then run the work on it.
  async function handle (work, { signal }) {
    if (closing) throw new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down')
    await gate.acquire(signal)
    const slotAt = now() // stamps.js `queue`: the slot is granted
    const deadline = taskDeadline(work)
    const ends = [cancel && signal, deadline].filter(Boolean)
    try {
      const out = await pool.run(work, { signal: ends.length ? AbortSignal.any(ends) : undefined })
      counts.completed++
      if (signal.aborted) counts.abandoned++ // worked on for a client that had left (--cancel off)
      busyMs += out.workMs
      return { ...out, slotAt, offloaded: true }
    } catch (err) {
      throw failure(err, work, { signal: cancel ? signal : NEVER, deadline })
    } finally {
      gate.release()
    }
  }

  await start({
    strategy,
    variant: queueVariant(options),
    options,
    handle,
    gauges: {
      read: () => ({
        queueLength: gate.waiting,
        [names.busy]: gate.held,
        utilization: busyMs / ((now() - windowStart) * pool.size),
        ...pool.gauges(),
        ...(maxQueue !== undefined ? { maxQueue } : {}),
        ...(deadlineMs !== undefined ? { deadlineMs } : {}),
        ...counts
      }),
      reset: () => {
        for (const k of Object.keys(counts)) counts[k] = 0
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
}

// The gauge names of a unit: threads/threadsBusy, processes/processesBusy.
function gaugeNames (unit) {
  const plural = unit === 'process' ? 'processes' : `${unit}s`
  return { units: plural, busy: `${plural}Busy` }
}

// The service time an `auto` needs: --service-ms, else the median of a few runs of the work on the pool.
async function serviceTime (options, pool) {
  if (!needsServiceTime(options)) return { serviceMs: null }
  if (options.serviceMs !== undefined) return { serviceMs: options.serviceMs }
  return measureServiceMs(() => pool.run(options.work, {}))
}
