// sleep-variants: study 002 (piscina's examples/server). A request sleeps --delay ms, either async
// (setTimeout: the thread stays free) or sync (Atomics.wait: the thread is blocked), either on the main
// thread (unpooled) or in a piscina pool with piscina's defaults plus --concurrent-tasks-per-worker and
// --idle-timeout (pooled). Answers {"hello":"world"}. Unpooled sleeps cannot be cancelled; pooled tasks
// are not either, as in the study.
import { Piscina } from 'piscina'
import { integer, oneOf, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { timedRun } from '../lib/task.js'

const VARIANTS = ['async-sleep-unpooled', 'async-sleep-pooled', 'sync-sleep-unpooled', 'sync-sleep-pooled']

main(async () => {
  const options = parseOptions({
    strategy: 'sleep-variants',
    work: ({ variant, delay }) => `${variant.startsWith('sync') ? 'sleep-sync' : 'sleep'}:${delay}`,
    extra: {
      variant: { default: VARIANTS[0], parse: oneOf(...VARIANTS), help: 'async|sync sleep, unpooled|pooled' },
      delay: { default: '100', parse: integer(0, 60000), help: 'ms each request sleeps (sets the default --work)' },
      concurrentTasksPerWorker: { default: '1', parse: integer(1, 1000), help: 'pooled: tasks one thread runs at once' },
      idleTimeout: { default: '0', parse: integer(0), help: 'pooled: ms an idle thread is kept' }
    }
  })
  const pool = options.variant.endsWith('-pooled')
    ? new Piscina({
      filename: new URL('../lib/task.js', import.meta.url).href,
      concurrentTasksPerWorker: options.concurrentTasksPerWorker,
      idleTimeout: options.idleTimeout
    })
    : null
  let completed = 0
  await start({
    strategy: 'sleep-variants',
    variant: options.variant,
    options,
    handle: async (work) => {
      const out = pool ? await pool.run({ work: work.spec }) : await timedRun(work)
      completed++
      return out
    },
    gauges: {
      read: () => pool ? { queueLength: pool.queueSize, threads: pool.threads.length, completed } : { completed },
      reset: () => { completed = 0 }
    },
    close: () => pool?.destroy()
  })
})
