// Bench part 3: the throughput servers/simple loses when it pushes timeline samples to the lab over its
// IPC channel every 100 ms (servers/lib/sampling.js, LOADLAB_SAMPLE_MS; the lab's smallest interval)
// vs not at all. Both servers have the IPC channel; this process receives the samples, as the lab does.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { loadOf } from './autocannon.js'
import { onOff } from './on-off.js'
import { ratios, summary } from './stats.js'

const SAMPLE_MS = 100

// The main-thread time one sample costs its sender, measured directly (the throughput ratio cannot
// resolve 2 % on a busy machine): a child with an IPC channel builds and sends `count` samples the way
// sampling.js does and reports the mean µs per sample; × samples per second = share of a core.
const SENDER = `
const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const h = monitorEventLoopDelay({ resolution: 10 }); h.enable()
let elu = performance.eventLoopUtilization()
process.once('message', (count) => {
  const t0 = performance.now()
  for (let i = 0; i < count; i++) {
    const next = performance.eventLoopUtilization()
    process.send({ lab: 'sample', pid: process.pid, t: Date.now(), inFlight: i % 7, queueLength: i % 5, threadsBusy: 2,
      eventLoopMaxMs: h.count > 0 ? h.max / 1e6 : null, elu: performance.eventLoopUtilization(next, elu).utilization })
    elu = next
    h.reset()
  }
  process.send({ done: (performance.now() - t0) * 1000 / count }, () => process.disconnect())
})`

async function sampleCostUs (count = 5000) {
  const child = spawn(process.execPath, ['-e', SENDER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  let received = 0
  let us = null
  child.on('message', (m) => {
    if (m?.lab === 'sample') received++
    else if (m?.done !== undefined) us = m.done
  })
  child.send(count)
  await once(child, 'exit')
  if (us === null || received !== count) { throw new Error(`sampling bench: the sender sent ${received} of ${count} samples`) }
  return us
}

// servers/simple with samples every SAMPLE_MS and with none (on-off.js); this process counts the samples.
export async function runSampling (
  { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount },
  { signal, progress = () => {} } = {}
) {
  const sides = {
    on: { args: [], env: { LOADLAB_SAMPLE_MS: String(SAMPLE_MS) }, label: 'sampling on' },
    off: { args: [], env: { LOADLAB_SAMPLE_MS: '' }, label: 'sampling off' }
  }
  const watch = (server) => {
    server.samples = 0
    server.child.on('message', (m) => {
      if (m?.lab === 'sample') server.samples++
    })
  }
  const { servers, rps, requests } = await onOff('sampling', sides,
    { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount }, { signal, progress, watch })
  if (servers.on.samples === 0) throw new Error('sampling bench: the sampling server sent no sample')
  if (servers.off.samples !== 0) throw new Error('sampling bench: the server without sampling sent samples')
  const perSampleUs = await sampleCostUs()
  const ratio = ratios(rps.on, rps.off)
  return {
    ...loadOf({ work, connections, durationSec, amount }),
    intervalMs: SAMPLE_MS,
    rounds,
    on: { ...summary(rps.on), requests: requests.on, samples: servers.on.samples },
    off: { ...summary(rps.off), requests: requests.off },
    ratio,
    ratioOf: 'sampling on / off requests per second',
    lossPercent: (1 - ratio.median) * 100,
    perSampleUs,
    // The sender's main-thread share spent on sampling at this interval.
    coreSharePercent: ((perSampleUs * (1000 / SAMPLE_MS)) / 1e6) * 100
  }
}
