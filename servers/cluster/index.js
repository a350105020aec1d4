// cluster: node:cluster with one worker process per core (study 004's "clustered"); each worker runs
// the work inline, so a busy worker serves nothing else. The primary replaces a worker that dies.
// Inline work cannot be cancelled. --shed-loop-delay: @fastify/under-pressure in each worker.
import cluster from 'node:cluster'
import { cores, integer, parseOptions } from '../lib/options.js'
import { main, start } from '../lib/serve.js'
import { inline } from '../lib/inline.js'
import { createTelemetry } from '../lib/telemetry.js'
import { runPrimary, workerStats } from '../lib/cluster.js'
import { LOOP_SHEDDING, loopVariant, shedOnLoopDelay } from '../lib/shedding.js'

main(async () => {
  const options = parseOptions({
    strategy: 'cluster',
    work: 'loop:1e8',
    extra: { workers: { default: String(cores), parse: integer(1, 256), help: 'worker processes' }, ...LOOP_SHEDDING }
  })
  const variant = loopVariant(options)
  if (cluster.isPrimary) return runPrimary({ strategy: 'cluster', options })

  const telemetry = createTelemetry({ enabled: options.telemetry === 'on', role: 'worker' })
  const { handle, gauges } = inline()
  await start({
    strategy: 'cluster',
    variant,
    options,
    telemetry,
    extend: (app) => shedOnLoopDelay(app, options),
    announce: false,
    handle,
    gauges,
    ...workerStats({ telemetry, gauges })
  })
})
