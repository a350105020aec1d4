// Bench part 2: the throughput servers/simple loses with its telemetry on vs off.
import { loadOf } from './autocannon.js'
import { onOff } from './on-off.js'
import { ratios, summary } from './stats.js'

// servers/simple with --telemetry on and off (on-off.js).
export async function runTelemetry (
  { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount },
  { signal, progress = () => {} } = {}
) {
  const sides = {
    on: { args: ['--telemetry', 'on'], label: '--telemetry on' },
    off: { args: ['--telemetry', 'off'], label: '--telemetry off' }
  }
  const { servers, rps, requests } = await onOff('telemetry', sides,
    { work, connections, durationSec, amount, rounds, warmupSec, warmupAmount }, { signal, progress })
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
    servers: Object.fromEntries(Object.entries(servers).map(([side, s]) => [side, { pid: s.pid, url: s.url }]))
  }
}
