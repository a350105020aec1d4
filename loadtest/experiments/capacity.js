// Experiment `capacity`: how much load each strategy takes while p99 stays under a target. Each server
// is offered open-loop rates (latency from the due time, so stalls are not under-sampled) from 10 % to
// 150 % of the ideal its cores allow for the work, the knee is found by bisection, and one step at
// 1.2 × the capacity shows what happens past it (timeouts, queue growth, recovery). See
// loadtest/run/sweep.js for the rule.
import { fmtMs, fmtPct } from '../report/format.js'
import { SERVERS } from './heavy-cpu.js'
import { createSweep } from '../run/sweep.js'
import { taskArgs } from '../run/task.js'

// The six CPU strategies, as in heavy-cpu.
export { SERVERS }

const defaults = {
  work: 'loop:1e8',
  durationSec: 5,
  timeoutSec: 10,
  warmup: 4,
  recoveryTimeoutSec: 60,
  refine: 3,
  fractions: null
}
const quick = {
  work: 'loop:2e7',
  durationSec: 1,
  warmup: 2,
  recoveryTimeoutSec: 30,
  refine: 1,
  fractions: [0.25, 0.6, 1.0, 1.5]
}

function rps (x) {
  return x === null || x === undefined ? '-' : x >= 100 ? String(Math.round(x)) : x.toFixed(1)
}

export default {
  name: 'capacity',
  study: null,
  title: 'Capacity at a latency target: open-loop rate sweep per strategy',
  description:
    'Each CPU strategy offered open-loop rates (requests due on a schedule whatever the answers; latency from the due time) from 10 % to 150 % of the ideal its cores allow for the work (cores / calibrated service time), the knee refined by bisection, then 1.2 × the capacity. Capacity: the highest offered rate whose p99 stays within the target with every request answered and verified.',
  defaults,
  quick,
  // One entry per server; its sweep chooses the rates from the calibrated service time at run time.
  plan (opts) {
    const q = opts.settings
    const work = opts.work ?? q.work
    const servers = (opts.servers ?? SERVERS).filter((s) => SERVERS.includes(s))
    const fractions = q.fractions ?? undefined // null: the sweep's own coarse steps
    return servers.map((server) => ({
      server,
      variant: null,
      args: opts.task ? taskArgs(opts.task) : ['--work', work], // --task: the user's module is the work
      work: opts.task?.spec ?? work,
      durationSec: opts.user?.durationSec ?? q.durationSec,
      sweep: ({ serviceMs, cores }) => createSweep({ serviceMs, cores, sloMs: opts.sloMs, fractions, refine: q.refine })
    }))
  },
  notes (opts) {
    return [
      "capacity: open-loop steps; each step is one round of the chosen duration at one offered rate, its latency counted from each request's due time",
      ...(opts.rate ? ['capacity: --rate is ignored: the sweep chooses the rates'] : [])
    ]
  },
  // Server, capacity, capacity / ideal, p99 at capacity, and what 1.2 × capacity did.
  table (report) {
    const head = [
      'server',
      'ideal req/s',
      'capacity req/s',
      'cap/ideal',
      'p99 at cap',
      'target',
      'steps',
      '1.2× p99',
      '1.2× timeouts',
      '1.2× in flight',
      '1.2× recovery',
      'trust'
    ]
    const rows = report.results
      .filter((r) => r.kind === 'http')
      .map((r) => {
        const c = r.capacity?.capacity
        if (!c) {
          return [
            r.server,
            '-',
            r.status === 'failed' ? 'FAILED' : '-',
            ...Array(head.length - 4).fill(''),
            `✗ ${r.failure?.reason ?? ''}`
          ]
        }
        const over = c.over
        return [
          r.server,
          rps(r.capacity.idealRps),
          `${c.bound === 'at least' ? '≥' : ''}${rps(c.rps)}`,
          fmtPct(c.ratioToIdeal),
          fmtMs(c.p99),
          fmtMs(c.sloMs),
          String(r.capacity.steps.length),
          over ? fmtMs(over.p99) : '-',
          over ? String(over.requests.timeouts) : '-',
          over ? String(over.peakInFlight ?? '-') : '-',
          over?.recovery
            ? over.recovery.ms === null
              ? `>${fmtMs(over.recovery.timeoutMs)}`
              : fmtMs(over.recovery.ms)
            : '-',
          r.status === 'failed' ? '✗ failed' : r.trusted ? '✓' : '!'
        ]
      })
    return { head, rows }
  }
}
