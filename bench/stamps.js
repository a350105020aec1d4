// Bench part: the throughput servers/simple loses when it stamps its answers (servers/lib/stamps.js, the
// Lab-Stamps header the lab splits latency with) against LOADLAB_STAMPS=off; goal: less than 2 %.
import { performance } from 'node:perf_hooks'
import { loadOf } from './autocannon.js'
import { now, stampsValue } from '../servers/lib/stamps.js'
import { onOff } from './on-off.js'
import { ratios, summary } from './stats.js'

// The main thread's cost of stamping one answer (µs): the clock read thrice and the header's value made, as
// app.js does for a pool's answer (the most stamps), the best of a few runs of `calls` each.
function stampUs (calls = 100000, runs = 5) {
  let best = Infinity
  let sink = 0
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    for (let i = 0; i < calls; i++) {
      const at = now()
      sink += stampsValue(at, now(), { startedAt: at, workMs: 0.1, slotAt: now(), offloaded: true }).length
    }
    best = Math.min(best, ((performance.now() - t0) * 1000) / calls)
  }
  if (sink === 0) throw new Error('stamps bench: no stamp made')
  return best
}

// servers/simple with its stamps on and off (on-off.js), each side checked to send, or not send, the header.
export async function runStamps (
  { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount },
  { signal, progress = () => {} } = {}
) {
  const sides = {
    on: { args: [], env: {}, label: 'stamps on' },
    off: { args: [], env: { LOADLAB_STAMPS: 'off' }, label: 'LOADLAB_STAMPS=off' }
  }
  const headers = {}
  const watch = (server) => {
    const side = headers.on === undefined ? 'on' : 'off'
    headers[side] = fetch(server.url).then((res) => res.headers.get('lab-stamps'))
  }
  const { servers, rps, requests } = await onOff('stamps', sides,
    { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount }, { signal, progress, watch })
  const [onHeader, offHeader] = await Promise.all([headers.on, headers.off])
  if (!onHeader || offHeader !== null) {
    throw new Error(`stamps bench: expected Lab-Stamps on one side only, got ${JSON.stringify({ onHeader, offHeader })}`)
  }
  const ratio = ratios(rps.on, rps.off) // on / off: the share of throughput kept with stamps on
  const perAnswerUs = stampUs()
  const on = summary(rps.on)
  return {
    ...loadOf({ work, connections, durationSec, amount }),
    rounds,
    warmup: warmupSec ? { durationSec: warmupSec } : { amount: warmupAmount },
    on: { ...on, requests: requests.on, header: onHeader },
    // the stamping's own time against the time per answer at the stamping side's throughput (one core)
    perAnswerUs,
    perAnswerShare: on.mean > 0 ? (perAnswerUs * on.mean) / 1e6 : null,
    off: { ...summary(rps.off), requests: requests.off },
    ratio,
    ratioOf: 'stamps on / off requests per second',
    lossPercent: (1 - ratio.median) * 100,
    servers: Object.fromEntries(Object.entries(servers).map(([side, s]) => [side, { pid: s.pid, url: s.url }]))
  }
}
