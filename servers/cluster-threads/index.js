// cluster-threads: node:cluster with one worker process per core, and each worker process starts a new
// worker_threads Worker per request (study 004's "clustered-threads"). Worker processes stay free to
// accept; the threads are unbounded and not cancelled when their client leaves.
import cluster from 'node:cluster'
import { cores, integer, parseOptions } from '../lib/options.js'
import { perRequest } from '../lib/per-request.js'
import { main, start } from '../lib/serve.js'
import { createTelemetry } from '../lib/telemetry.js'
import { runPrimary, workerStats } from '../lib/cluster.js'

main(async () => {
  const options = parseOptions({
    strategy: 'cluster-threads',
    work: 'loop:1e8',
    extra: { workers: { default: String(cores), parse: integer(1, 256), help: 'worker processes' } }
  })
  if (cluster.isPrimary) return runPrimary({ strategy: 'cluster-threads', options })

  const telemetry = createTelemetry({ enabled: options.telemetry === 'on', role: 'worker' })
  const threads = perRequest('worker')
  await start({
    strategy: 'cluster-threads',
    options,
    telemetry,
    announce: false,
    ...threads,
    ...workerStats({ telemetry, gauges: threads.gauges })
  })
})
