// Bench part: the throughput servers/simple loses when it stamps its answers (servers/lib/stamps.js, the
// Lab-Stamps header the lab splits latency with) against LOADLAB_STAMPS=off; goal: less than 2 %.
import { loadOf } from './autocannon.js'
import { onOff } from './on-off.js'
import { ratios, summary } from './stats.js'

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
  const [on, off] = await Promise.all([headers.on, headers.off])
  if (!on || off !== null) throw new Error(`stamps bench: expected Lab-Stamps on one side only, got ${JSON.stringify({ on, off })}`)
  const ratio = ratios(rps.on, rps.off) // on / off: the share of throughput kept with stamps on
  return {
    ...loadOf({ work, connections, durationSec, amount }),
    rounds,
    warmup: warmupSec ? { durationSec: warmupSec } : { amount: warmupAmount },
    on: { ...summary(rps.on), requests: requests.on, header: on },
    off: { ...summary(rps.off), requests: requests.off },
    ratio,
    ratioOf: 'stamps on / off requests per second',
    lossPercent: (1 - ratio.median) * 100,
    servers: Object.fromEntries(Object.entries(servers).map(([side, s]) => [side, { pid: s.pid, url: s.url }]))
  }
}
