// sleep-variants: study 002 (piscina's examples/server). A request sleeps --delay ms, either async
// (setTimeout: the thread stays free) or sync (Atomics.wait: the thread is blocked), either on the main
// thread (unpooled) or in a piscina pool with piscina's defaults plus --concurrent-tasks-per-worker and
// --idle-timeout (pooled). Answers {"hello":"world"}. Unpooled sleeps cannot be cancelled; pooled tasks
// are not either, as in the study.
import { Piscina } from 'piscina'
import { LabError } from '../lib/errors.js'
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
      concurrentTasksPerWorker: { parse: integer(1, 1000), help: 'pooled only: tasks one thread runs at once (default 1)' },
      idleTimeout: { parse: integer(0), help: 'pooled only: ms an idle thread is kept (default 0)' }
    }
  })
  const pooled = options.variant.endsWith('-pooled')
  for (const [name, flag] of [['concurrentTasksPerWorker', '--concurrent-tasks-per-worker'], ['idleTimeout', '--idle-timeout']]) {
    if (!pooled && options[name] !== undefined) {
      throw new LabError('ERR_BAD_OPTION', `${flag}: only for the pooled variants, got "${options[name]}" with --variant ${options.variant}`)
    }
  }
  const pool = pooled
    ? new Piscina({
      filename: new URL('../lib/task.js', import.meta.url).href,
      concurrentTasksPerWorker: options.concurrentTasksPerWorker ?? 1,
      idleTimeout: options.idleTimeout ?? 0
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
