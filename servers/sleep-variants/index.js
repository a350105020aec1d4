// sleep-variants: study 002 (piscina's examples/server). A request sleeps --delay ms, either async
// (setTimeout: the thread stays free) or sync (Atomics.wait: the thread is blocked), either on the main
// thread (unpooled) or in a piscina pool with piscina's defaults plus --concurrent-tasks-per-worker and
// --idle-timeout (pooled). Answers {"hello":"world"}. Unpooled sleeps cannot be cancelled; pooled tasks
// are not either, as in the study.
import { taskPool } from '../lib/task-pool.js'
import { ServerError } from '../lib/errors.js'
import { integer, oneOf, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { portable, timedRun } from '../lib/task.js'
import { endedError, taskDeadline, unpooled } from '../lib/task-module.js'

// A pool's answer, stamped as work done on another thread (stamps.js).
const offloaded = (out) => ({ ...unpooled(out), offloaded: true })

const VARIANTS = ['async-sleep-unpooled', 'async-sleep-pooled', 'sync-sleep-unpooled', 'sync-sleep-pooled']

main(async () => {
  const options = parseOptions({
    strategy: 'sleep-variants',
    work: ({ variant, delay }) => `${variant.startsWith('sync') ? 'sleep-sync' : 'sleep'}:${delay}`,
    extra: {
      variant: { default: VARIANTS[0], parse: oneOf(...VARIANTS), help: 'async|sync sleep, unpooled|pooled' },
      delay: { default: '100', parse: integer(0, 60000), help: 'ms each request sleeps (sets the default --work)' },
      concurrentTasksPerWorker: {
        parse: integer(1, 1000),
        help: 'pooled only: tasks one thread runs at once (default 1)'
      },
      idleTimeout: { parse: integer(0), help: 'pooled only: ms an idle thread is kept (default 0)' }
    }
  })
  const pooled = options.variant.endsWith('-pooled')
  for (const [name, flag] of [
    ['concurrentTasksPerWorker', '--concurrent-tasks-per-worker'],
    ['idleTimeout', '--idle-timeout']
  ]) {
    if (!pooled && options[name] !== undefined) {
      throw new ServerError(
        'ERR_BAD_OPTION',
        `${flag}: only for the pooled variants, got "${options[name]}" with --variant ${options.variant}`
      )
    }
  }
  const pool = pooled
    ? taskPool({
      concurrentTasksPerWorker: options.concurrentTasksPerWorker ?? 1,
      idleTimeout: options.idleTimeout ?? 0
    })
    : null
  let completed = 0
  let inFlight = 0
  let peakInFlight = 0
  let closing = false
  const inPool = (work) =>
    pool.run({ work: portable(work) }, { signal: taskDeadline(work) }).then(offloaded, (err) => {
      if (closing) throw new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err })
      if (err.name === 'AbortError') throw endedError(work, 'thread')
      throw new ServerError('ERR_TASK_FAILED', err.message, { cause: err })
    })
  await start({
    strategy: 'sleep-variants',
    variant: options.variant,
    options,
    handle: async (work) => {
      inFlight++
      peakInFlight = Math.max(peakInFlight, inFlight)
      try {
        const out = pool ? await inPool(work) : await timedRun(work)
        completed++
        return out
      } finally {
        inFlight--
      }
    },
    gauges: {
      read: () => ({
        completed,
        inFlight,
        peakInFlight,
        ...(pool ? { queueLength: pool.queueSize, threads: pool.threads.length } : {})
      }),
      reset: () => {
        completed = 0
        peakInFlight = inFlight
      }
    },
    close: async () => {
      closing = true
      await pool?.destroy()
    }
  })
})
