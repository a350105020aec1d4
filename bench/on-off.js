// The telemetry and sampling parts' method: servers/simple twice, one side with a feature on and one with
// it off, both up at once and loaded one at a time, rounds alternating between them.
import { startServer } from '../loadtest/run/watch/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { closedRound } from './autocannon.js'

const SIDES = ['on', 'off']

// One autocannon round against `url` (autocannon.js closedRound) that must be all 2xx answers with the
// right body: requests/second, own-timed.
async function round (part, url, opts, signal) {
  const { rps, requests, seconds, failed, result } = await closedRound(url, opts, signal)
  if (!(seconds > 0)) throw new Error(`${part} bench: no response from ${url}`)
  if (failed) {
    throw new Error(`${part} bench: ${failed} failed requests (${result.non2xx} non-2xx, ${result.errors} connection errors, ` +
      `${result.timeouts} timeouts, ${result.mismatches} body mismatches) from ${url}`)
  }
  return { rps, requests, seconds }
}

// The two sides' rounds (`servers.on`, `servers.off`): a discarded warm-up round each, then `rounds`
// rounds each, alternating which side goes first, so that drift in the machine hits both alike.
// { rps: { on: [], off: [] }, requests: { on, off } } of the measured rounds.
async function alternate (part, servers, opts, { signal, progress }) {
  const { connections, durationSec, amount, rounds, warmupSec, warmupAmount, expectBody } = opts
  for (const side of SIDES) {
    const warmup = { connections, durationSec: warmupSec, amount: warmupAmount, expectBody }
    await round(part, servers[side].url, warmup, signal)
  }
  const rps = { on: [], off: [] }
  const requests = { on: 0, off: 0 }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...SIDES].reverse() : SIDES
    for (const side of order) {
      const res = await round(part, servers[side].url, { connections, durationSec, amount, expectBody }, signal)
      rps[side].push(res.rps)
      requests[side] += res.requests
      progress(`bench: ${part} ${side} round ${r + 1}/${rounds}: ${res.rps.toFixed(0)} req/s`)
    }
  }
  return { rps, requests }
}

// Start servers/simple for each side of `sides` ({ on, off }: { args, env, label }), check that both
// answer the same body, run the alternating rounds of `load` (the part's settings), and end both servers.
// `watch(server)` is called as each side is up. Resolves with { servers, rps, requests }: `servers` keeps
// each side's pid and url and what `watch` put on it.
export async function onOff (part, sides, load, { signal, progress = () => {}, watch = () => {} } = {}) {
  const servers = {}
  try {
    for (const side of SIDES) {
      const { args, env, label } = sides[side]
      servers[side] = await startServer({ entry: findServer('simple').entry, args: ['--work', load.work, ...args], signal, env })
      watch(servers[side])
      progress(`bench: servers/simple ${label} listening on ${servers[side].url} (pid ${servers[side].pid})`)
    }
    const first = await fetch(servers.on.url)
    const expectBody = await first.text()
    if (!first.ok) { throw new Error(`${part} bench: GET ${servers.on.url} answered ${first.status}: ${expectBody.slice(0, 200)}`) }
    const other = await (await fetch(servers.off.url)).text()
    if (other !== expectBody) { throw new Error(`${part} bench: the two servers answer different bodies for the same work`) }
    const { rps, requests } = await alternate(part, servers, { ...load, expectBody }, { signal, progress })
    return { servers, rps, requests }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop({ graceMs: 5000 })))
  }
}
