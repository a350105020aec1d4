// Experiment `ssr-offload` (study 000, FormidableLabs/ssr-experiments): does moving work off the main
// thread keep it free, and what does it cost? simple (work inline: the study's `sync`) vs queued-threads
// (a piscina pool: the study's worker pools) over the study's scenarios, at concurrency 1, 2 and 4 with
// one request per connection. Columns as the study: main-loop 1 ms ticks while the work runs (M loops,
// bigger is better), inner work time (WI), outer time (WO: the client's latency), result check.
import { MISSING, fmtMs, fmtCount } from '../text/format.js'

// The study's scenarios: noop = setTimeout 10 ms / 1 s, fib 4 / 40, react 1 / 1000 ("5K") / 50000.
const SCENARIOS = [
  { demo: 'noop', args: '10ms', work: 'sleep:10' },
  { demo: 'noop', args: '1s', work: 'sleep:1000' },
  { demo: 'fib', args: '4', work: 'fib:4' },
  { demo: 'fib', args: '40', work: 'fib:40' },
  { demo: 'react', args: '1', work: 'render:1' },
  { demo: 'react', args: '1000', work: 'render:1000' },
  { demo: 'react', args: '50000', work: 'render:50000' }
]
const QUICK = [
  { demo: 'noop', args: '10ms', work: 'sleep:10' },
  { demo: 'fib', args: '20', work: 'fib:20' },
  { demo: 'react', args: '50', work: 'render:50' }
]
const IMPLS = [
  { impl: 'sync', server: 'simple' },
  { impl: 'pool', server: 'queued-threads' }
]

export default {
  name: 'ssr-offload',
  study: '000',
  title: 'SSR offload (study 000): work inline vs in a piscina pool, scenario by scenario',
  description:
    'simple vs queued-threads on sleep:10, sleep:1000, fib:4, fib:40, render:1, render:1000, render:50000 at concurrency 1, 2, 4 (that many connections, one request each, no warm-up). M loops: 1 ms main-loop ticks counted by the server while the round ran (telemetry is read before anything else is sent). WI: mean work time inside the strategy (Server-Timing). WO: mean client latency. Unlike the study, the pool is started with the server, so WO does not include pool creation.',
  defaults: {
    connections: 1,
    amount: 1,
    timeoutSec: 120,
    warmup: 0,
    recovery: false,
    concurrencies: [1, 2, 4],
    scenarios: SCENARIOS
  },
  quick: { timeoutSec: 60, warmup: 0, recovery: false, concurrencies: [1, 2], scenarios: QUICK },
  plan (opts) {
    const scenarios = opts.work
      ? [{ demo: opts.work.split(':')[0], args: opts.work.split(':')[1], work: opts.work }]
      : opts.settings.scenarios
    const concurrencies = opts.settings.concurrencies
    const out = []
    for (const c of concurrencies) {
      for (const s of scenarios) {
        for (const { impl, server } of IMPLS) {
          out.push({
            server,
            variant: null,
            args: ['--work', s.work],
            work: s.work,
            connections: c,
            amount: c,
            qualifier: `c${c}`,
            study: { demo: s.demo, args: s.args, impl, conc: c }
          })
        }
      }
    }
    return out
  },
  // The study's table: Demo, Conc, Args, Impl, M loops, WI time, WO time, W result.
  table (report) {
    const head = ['Demo', 'Conc', 'Args', 'Impl', 'M loops', 'WI time', 'WO time', 'W result']
    const rows = report.results
      .filter((r) => r.kind === 'http')
      .map((r) => {
        const s = r.study ?? {}
        const q = r.requests
        const pass = q && r.status === 'ok' && q.completed === q.sent && q.ok === q.sent && q.mismatches === 0
        return [
          s.demo ?? r.work,
          String(s.conc ?? r.connections),
          s.args ?? MISSING,
          s.impl ?? r.server,
          fmtCount(r.telemetry?.ticks),
          fmtMs(r.serverTiming?.workMs?.mean),
          fmtMs(r.latency?.mean),
          pass ? 'pass' : r.status === 'failed' ? 'FAILED' : 'fail'
        ]
      })
    return { head, rows }
  }
}
