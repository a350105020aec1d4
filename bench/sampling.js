// Bench part 3: the throughput servers/simple loses when it pushes timeline samples to the lab over its
// IPC channel every 100 ms (servers/lib/sampling.js, LOADLAB_SAMPLE_MS; the lab's smallest interval)
// vs not at all. Both servers have the IPC channel; this process receives the samples, as the lab does.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startServer } from '../loadtest/run/watch/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { alternate } from './telemetry.js'
import { loadOf } from './autocannon.js'
import { ratios, summary } from './stats.js'

const SIDES = ['on', 'off']
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

// Both servers up at once, loaded one at a time, rounds alternating between them.
export async function runSampling (
  { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount },
  { signal, progress = () => {} } = {}
) {
  const servers = {}
  try {
    for (const side of SIDES) {
      const env = side === 'on' ? { LOADLAB_SAMPLE_MS: String(SAMPLE_MS) } : { LOADLAB_SAMPLE_MS: '' }
      servers[side] = await startServer({ entry: findServer('simple').entry, args: ['--work', work], signal, env })
      const messages = { count: 0 }
      servers[side].child.on('message', (m) => {
        if (m?.lab === 'sample') messages.count++
      })
      servers[side].messages = messages
      progress(`bench: servers/simple sampling ${side} listening on ${servers[side].url} (pid ${servers[side].pid})`)
    }
    const first = await fetch(servers.on.url)
    const expectBody = await first.text()
    if (!first.ok) { throw new Error(`sampling bench: GET ${servers.on.url} answered ${first.status}: ${expectBody.slice(0, 200)}`) }
    const { rps, requests } = await alternate('sampling', servers,
      { connections, durationSec, amount, rounds, warmupSec, warmupAmount, expectBody }, { signal, progress })
    if (servers.on.messages.count === 0) throw new Error('sampling bench: the sampling server sent no sample')
    if (servers.off.messages.count !== 0) throw new Error('sampling bench: the server without sampling sent samples')
    const perSampleUs = await sampleCostUs()
    const ratio = ratios(rps.on, rps.off)
    return {
      ...loadOf({ work, connections, durationSec, amount }),
      intervalMs: SAMPLE_MS,
      rounds,
      on: { ...summary(rps.on), requests: requests.on, samples: servers.on.messages.count },
      off: { ...summary(rps.off), requests: requests.off },
      ratio,
      ratioOf: 'sampling on / off requests per second',
      lossPercent: (1 - ratio.median) * 100,
      perSampleUs,
      // The sender's main-thread share spent on sampling at this interval.
      coreSharePercent: ((perSampleUs * (1000 / SAMPLE_MS)) / 1e6) * 100
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()))
  }
}
