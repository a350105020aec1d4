// Bench part 2: the throughput servers/simple loses with its telemetry on vs off.
import { startServer } from '../loadtest/run/watch/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { closedRound, loadOf } from './autocannon.js'
import { ratios, summary } from './stats.js'

const SIDES = ['on', 'off']

// One autocannon round against `url` (autocannon.js closedRound) that must be all 2xx answers with the
// right body: requests/second, own-timed.
async function round (url, opts, signal) {
  const { rps, requests, seconds, failed, result } = await closedRound(url, opts, signal)
  if (!(seconds > 0)) throw new Error(`telemetry bench: no response from ${url}`)
  if (failed) {
    throw new Error(`telemetry bench: ${failed} failed requests (${result.non2xx} non-2xx, ${result.errors} connection errors, ` +
      `${result.timeouts} timeouts, ${result.mismatches} body mismatches) from ${url}`)
  }
  return { rps, requests, seconds }
}

// The two sides' rounds (`servers.on`, `servers.off`): a discarded warm-up round each, then `rounds`
// rounds each, alternating which side goes first, so that drift in the machine hits both alike.
// { rps: { on: [], off: [] }, requests: { on, off } } of the measured rounds.
export async function alternate (part, servers, opts, { signal, progress }) {
  const { connections, durationSec, amount, rounds, warmupSec, warmupAmount, expectBody } = opts
  for (const side of SIDES) {
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
      progress(`bench: ${part} ${side} round ${r + 1}/${rounds}: ${res.rps.toFixed(0)} req/s`)
    }
  }
  return { rps, requests }
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
    const { rps, requests } = await alternate('telemetry', servers,
      { connections, durationSec, amount, rounds, warmupSec, warmupAmount, expectBody }, { signal, progress })
    const ratio = ratios(rps.on, rps.off) // on / off: the share of throughput kept with telemetry on
    return {
      ...loadOf({ work, connections, durationSec, amount }),
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
