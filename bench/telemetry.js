// Bench part 2: the throughput servers/simple loses with its telemetry on vs off.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import { startServer } from '../loadtest/run/watch/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { SAMPLE_INT_MS } from '../loadtest/run/generate/fire.js'
import { ratios, summary } from './stats.js'

const SIDES = ['on', 'off']

// How long an autocannon round runs: `amount` requests, else `durationSec`. autocannon ends an amount
// round only at its next sample tick (1 s by default: an idle second after a 0.1 s round), so those
// tick every 100 ms (the bench times its rounds itself; duration rounds keep autocannon's default).
export function roundLength ({ amount, durationSec }) {
  return amount ? { amount, sampleInt: SAMPLE_INT_MS } : { duration: durationSec }
}

// One autocannon round against `url`; own-timed requests/second of 2xx answers with the right body.
export async function round (url, { connections, durationSec, amount, expectBody }, signal) {
  const instance = autocannon({ url, connections, expectBody, ...roundLength({ amount, durationSec }) })
  // Own timing, first request sent to last response: autocannon rounds its duration to whole ticks.
  let first = Infinity
  let last = -Infinity
  instance.on('response', (client, statusCode, resBytes, responseTime) => {
    const now = performance.now()
    if (now - responseTime < first) first = now - responseTime
    last = now
  })
  const onAbort = () => instance.stop()
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const result = await instance
    signal?.throwIfAborted()
    const seconds = (last - first) / 1000
    if (!(seconds > 0)) throw new Error(`telemetry bench: no response from ${url}`)
    const bad = result.non2xx + result.errors + result.timeouts + result.mismatches
    if (bad) {
      throw new Error(
        `telemetry bench: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts, ${result.mismatches} body mismatches from ${url}`
      )
    }
    return { rps: result['2xx'] / seconds, requests: result['2xx'], seconds }
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

// Both servers up at once, loaded one at a time, rounds alternating between them.
export async function runTelemetry (
  { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount },
  { signal, progress = () => {} } = {}
) {
  const servers = {}
  try {
    for (const side of SIDES) {
      servers[side] = await startServer({
        entry: findServer('simple').entry,
        args: ['--work', work, '--telemetry', side],
        signal
      })
      progress(`bench: servers/simple --telemetry ${side} listening on ${servers[side].url} (pid ${servers[side].pid})`)
    }
    const first = await fetch(servers.on.url)
    const expectBody = await first.text()
    if (!first.ok) { throw new Error(`telemetry bench: GET ${servers.on.url} answered ${first.status}: ${expectBody.slice(0, 200)}`) }
    const other = await (await fetch(servers.off.url)).text()
    if (other !== expectBody) { throw new Error('telemetry bench: the two servers answer different bodies for the same work') }
    for (const side of SIDES) {
      // discarded warm-up
      await round(servers[side].url, { connections, durationSec: warmupSec, amount: warmupAmount, expectBody }, signal)
    }
    const rps = { on: [], off: [] }
    const requests = { on: 0, off: 0 }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...SIDES].reverse() : SIDES
      for (const side of order) {
        const res = await round(servers[side].url, { connections, durationSec, amount, expectBody }, signal)
        rps[side].push(res.rps)
        requests[side] += res.requests
        progress(`bench: telemetry ${side} round ${r + 1}/${rounds}: ${res.rps.toFixed(0)} req/s`)
      }
    }
    const ratio = ratios(rps.on, rps.off) // on / off: the share of throughput kept with telemetry on
    return {
      server: 'simple',
      work,
      connections,
      durationSec,
      amount,
      rounds,
      warmup: warmupSec ? { durationSec: warmupSec } : { amount: warmupAmount },
      on: { ...summary(rps.on), requests: requests.on },
      off: { ...summary(rps.off), requests: requests.off },
      ratio,
      ratioOf: 'telemetry on / off requests per second',
      lossPercent: (1 - ratio.median) * 100,
      servers: Object.fromEntries(SIDES.map((side) => [side, { pid: servers[side].pid, url: servers[side].url }]))
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop({ graceMs: 5000 })))
  }
}
