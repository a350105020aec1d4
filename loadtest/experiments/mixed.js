// Experiment `mixed`: cheap requests behind heavy ones, per CPU strategy (studies 001 and 004: chunked
// or pooled work keeps cheap requests answered; the /health probe waits behind inline work). Each
// strategy's capacity C for the heavy work alone (the capacity sweep at one target), then one open-loop
// round of the built-in mix (result/mix.js: heavy GET / with the work, cheap GET /?work=loop:1e3) whose
// heavy class is offered HEAVY_SHARE_OF_C × C: the cheap class's p99 is the figure.
import { MISSING, fmtMs, fmtRps as rps } from '../text/format.js'
import { SERVERS } from './heavy-cpu.js'
import capacity, { oneTargetSweep } from './capacity.js'
import { builtInMix } from '../result/mix.js'
import { trustMark } from '../text/sentences.js'
import { errorsOf } from '../result/requests.js'
import { planBasics } from './plan.js'

// The heavy class's rate in the mixed round, as a share of the strategy's capacity; the mix.
export const HEAVY_SHARE_OF_C = 0.8
export const MIX = 'heavy:80,cheap:20'

// The capacity sweep's settings (experiments/capacity.js) and the mixed round's length.
const defaults = { ...capacity.defaults, mixedSec: 20 }
const quick = { ...capacity.quick, mixedSec: 4 }

export default {
  name: 'mixed',
  study: '001, 004',
  title: 'Cheap requests behind heavy ones: the cheap class\'s p99 per strategy, the heavy class at 80 % of its capacity',
  description:
    `Each CPU strategy's capacity C for the heavy work alone (an open-loop capacity sweep at one target), then one open-loop round of the mix ${MIX} (heavy: GET / with the work; cheap: GET /?work=loop:1e3) offered so that the heavy class arrives at ${HEAVY_SHARE_OF_C * 100} % of C. The cheap class's p99 (from its due time) shows whether cheap requests wait behind the heavy ones.`,
  defaults,
  quick,
  plan (opts) {
    const { q, work, servers } = planBasics(opts, SERVERS)
    const mix = builtInMix(MIX)
    return servers.map((server) => ({
      server,
      variant: null,
      args: ['--work', work],
      work,
      durationSec: opts.user?.durationSec ?? q.durationSec,
      sweep: oneTargetSweep(opts, opts.slos?.[0] ?? null), // the first --slo, else 5 × the service time
      mixed: { mix, heavyShareOfC: HEAVY_SHARE_OF_C, durationSec: q.mixedSec }
    }))
  },
  notes () {
    return [`mixed: the heavy class at ${HEAVY_SHARE_OF_C * 100} % of each strategy's capacity C for the heavy work alone; ` +
      `the mix ${MIX}; the cheap class's latency counts from its due time`]
  },
  table (report) {
    const head = ['server', 'C req/s', 'heavy req/s', 'cheap req/s', 'heavy p99', 'cheap p50', 'cheap p99', 'cheap max', 'failed', 'trust']
    const rows = report.results.filter((r) => r.kind === 'http').map((r) => mixedRow(r, head.length))
    return { head, rows }
  }
}

// One strategy's row: C, each class's offered rate and percentiles (the mixed round's).
function mixedRow (r, width) {
  const m = r.mixed
  if (!m?.classes) {
    const why = `✗ ${m?.refused ?? r.failure?.reason ?? ''}`
    return [r.server, rps(r.capacity?.capacity?.rps), ...Array(width - 3).fill(MISSING), why]
  }
  const heavy = m.classes.find((c) => c.name === 'heavy')
  const cheap = m.classes.find((c) => c.name === 'cheap')
  const failed = m.classes.reduce((a, { requests: q }) => a + errorsOf(q), 0)
  return [r.server, rps(m.capacityRps), rps(m.heavyRate), rps(m.rate - m.heavyRate), fmtMs(heavy?.latency.p99),
    fmtMs(cheap?.latency.p50), fmtMs(cheap?.latency.p99), fmtMs(cheap?.latency.max), String(failed), trustMark(r)]
}
