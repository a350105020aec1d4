// Experiment `mixed`: cheap requests behind heavy ones, per CPU strategy (studies 001 and 004: chunked
// or pooled work keeps cheap requests answered; the /health probe waits behind inline work). First each
// strategy's capacity C for the heavy work alone (the capacity sweep at one target), then, per strategy,
// one open-loop round of the built-in mix (result/mix.js: heavy GET / with the work; cheap GET /cheap,
// answered on the main thread without the work) whose heavy class is offered at ONE rate for every
// strategy, set by the rule book (result/rules.js MIXED_LOAD): a stated utilisation of one thread from the
// work's calibrated service time, with Poisson arrivals (heavyRateOf, handOffMixed), so that every row
// carries the same heavy load and no noisy sweep sets it. The cheap class's p99, and the phase that holds
// it (result/phases.js), are the figures; C is shown beside them.
import { MISSING, fmtMs, fmtRps as rps } from '../text/format.js'
import { SERVERS } from './heavy-cpu.js'
import capacity, { oneTargetSweep } from './capacity.js'
import { builtInMix } from '../result/mix.js'
import { trustMark } from '../text/sentences.js'
import { errorsOf } from '../result/requests.js'
import { PHASES, phaseDoubt } from '../result/phases.js'
import { planBasics } from './plan.js'
import { MIXED_LOAD } from '../result/rules.js'
import { roundTo } from '../result/stats.js'

// The mix, and the mixed rounds' arrivals (constant arrivals below one request a service time never queue
// a cheap request behind a heavy one: result/rules.js MIXED_LOAD).
export const MIXED_ARRIVAL = 'poisson'
export const MIX = 'heavy:80,cheap:20'
// The key qualifier of a mixed round's result (its strategy's sweep is a result of its own).
export const MIXED = 'mixed'

// The capacity sweep's settings (experiments/capacity.js) and the mixed round's length.
const defaults = { ...capacity.defaults, mixedSec: 20 }
const quick = { ...capacity.quick, mixedSec: 10 }

export default {
  name: 'mixed',
  study: '001, 004',
  title: 'Cheap requests behind heavy ones: the cheap class\'s p99 per strategy, the heavy class at one rate for all',
  description:
    'Each CPU strategy\'s capacity C for the heavy work alone (an open-loop capacity sweep at one target), then ' +
      `per strategy one open-loop round of the mix ${MIX} (heavy: GET / with the work; cheap: GET /cheap, which ` +
      'every server answers on its main thread without the work, as a service answers a health check) with the ' +
      `heavy class offered at one rate for every strategy: ${MIXED_LOAD.utilisation * 100} % of one thread by the ` +
      'work\'s calibrated service time, with Poisson arrivals. The cheap class\'s p99 (from its due time) shows ' +
      'whether cheap requests wait behind the heavy ones, and its phases say where.',
  defaults,
  quick,
  plan (opts) {
    const { q, work, servers } = planBasics(opts, SERVERS)
    const mix = builtInMix(MIX)
    const durationSec = opts.user?.durationSec ?? q.durationSec
    const base = (server) => ({ server, variant: null, args: ['--work', work], work, durationSec })
    return [
      // the first --slo, else 5 × the service time
      ...servers.map((server) => ({ ...base(server), sweep: oneTargetSweep(opts, opts.slos?.[0] ?? null) })),
      ...servers.map((server) => ({
        ...base(server),
        qualifier: MIXED,
        mixed: {
          mix, utilisation: MIXED_LOAD.utilisation, arrival: MIXED_ARRIVAL, durationSec: q.mixedSec, lowestOf: servers
        }
      }))
    ]
  },
  notes () {
    return [`mixed: the heavy class at ${MIXED_LOAD.utilisation * 100} % of one thread (${MIXED_LOAD.utilisation} × ` +
      '1000 / the work\'s calibrated service time in ms), the same rate for every strategy, Poisson arrivals; ' +
      `the mix ${MIX}; the cheap class (GET /cheap) answered on the main thread; its latency counts from its due time`]
  },
  table (report) {
    const head = ['server', 'C req/s', 'heavy req/s', 'cheap req/s', 'heavy p99', 'cheap p50', 'cheap p99', 'cheap max',
      'cheap p99 phase', 'failed', 'trust']
    const results = report.results.filter((r) => r.kind === 'http')
    const rows = results.filter((r) => r.mixed).map((r) => mixedRow(r, ownCapacity(results, r), head.length))
    return { head, rows }
  }
}

// A strategy's own C (its sweep's result in the same report), else the C its mixed round stood on.
function ownCapacity (results, r) {
  const swept = results.find((x) => x.server === r.server && !x.mixed && x.capacity?.capacity)
  return swept?.capacity.capacity.rps ?? null
}

// The phase that took the largest share of the cheap class's p99 request, `wait 93 %`; MISSING without phases,
// `in doubt` where its shares are (result/phases.js phaseDoubt).
function largestPhase (phases) {
  const share = phases?.at?.p99?.share
  if (!share) return MISSING
  if (phaseDoubt(phases, 'p99')) return 'in doubt'
  const top = PHASES.filter((p) => typeof share[p] === 'number').sort((a, b) => share[b] - share[a])[0]
  return top ? `${top} ${Math.round(share[top] * 100)} %` : MISSING
}

// One strategy's row: its own C, each class's offered rate and percentiles (the mixed round's), and the
// phase that took most of the cheap class's p99.
function mixedRow (r, ownC, width) {
  const m = r.mixed
  if (!m?.classes) {
    const why = `✗ ${m?.refused ?? r.failure?.reason ?? ''}`
    return [r.server, rps(ownC ?? r.capacity?.capacity?.rps), ...Array(width - 3).fill(MISSING), why]
  }
  const heavy = m.classes.find((c) => c.name === 'heavy')
  const cheap = m.classes.find((c) => c.name === 'cheap')
  const failed = m.classes.reduce((a, { requests: q }) => a + errorsOf(q), 0)
  return [r.server, rps(ownC ?? m.capacityRps), rps(m.heavyRate), rps(m.rate - m.heavyRate), fmtMs(heavy?.latency.p99),
    fmtMs(cheap?.latency.p50), fmtMs(cheap?.latency.p99), fmtMs(cheap?.latency.max), largestPhase(cheap?.phases),
    String(failed), trustMark(r)]
}

// The heavy class's rate (req/s) for a work of `serviceMs` (its calibrated service time): the rule book's
// utilisation of one thread; null without a service time.
export function heavyRateOf (serviceMs, utilisation = MIXED_LOAD.utilisation) {
  return serviceMs > 0 && Number.isFinite(serviceMs) ? roundTo((utilisation * 1000) / serviceMs, 3) : null
}

// The entry a mixed round runs as, resolved by the lab before its run: the heavy rate from the work's
// calibrated service time (`serviceMs`, heavyRateOf), handed on as mixed.heavy { rps, serviceMs } or
// { refused } without one; and, to show beside it, the lowest capacity C among the strategies it names
// (`lowestOf`, same work and runtime) as mixed.capacity { rps, from }, null when one of them found none.
// Other entries as they are.
export function handOffMixed (entry, results, serviceMs = null) {
  const m = entry.mixed
  if (!m?.lowestOf) return entry
  const rps = heavyRateOf(serviceMs, m.utilisation)
  const heavy = rps === null ? { refused: 'no calibrated service time for the heavy work' } : { rps, serviceMs }
  const swept = m.lowestOf.map((server) => results.find((r) => r.kind === 'http' && r.server === server && !r.mixed &&
    r.work === entry.work && (r.runtime?.label ?? null) === (entry.runtime?.label ?? null)))
  const found = swept.every((r) => r?.capacity?.capacity?.rps > 0)
  const low = found ? swept.reduce((a, r) => (r.capacity.capacity.rps < a.capacity.capacity.rps ? r : a)) : null
  const capacity = low ? { rps: low.capacity.capacity.rps, from: low.server } : null
  return { ...entry, mixed: { ...m, heavy, capacity } }
}
