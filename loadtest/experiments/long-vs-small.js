// Experiment `long-vs-small` (study 001, SuperOleg39/ssr-perf-test): 25 steps of 225 renderToString
// calls done as one long task or as small tasks chained with setImmediate, without and with a slow API
// called first (every second call 1000 ms, else 100 ms). Load as the study: `autocannon -c 50
// --amount 200 -t 1000`. Throughput is the same; who waits how long is not — hence the full
// percentile column the study prints.
import { MISSING, fmtMs, fmtNum } from '../text/format.js'
import { PERCENTILE_KEYS } from '../result/stats.js'
import { trustMark } from '../text/sentences.js'

// The study's percentile rows: the report's own list.
export const PERCENTILES = PERCENTILE_KEYS

export default {
  name: 'long-vs-small',
  study: '001',
  title:
    'Long task vs small tasks: one renderToString batch or 25 setImmediate steps, with and without ' +
      'a slow API',
  description:
    'long-vs-small-tasks in --mode long and small, --api off and on, work ssr:5625 (25 × 225 renders), 50 ' +
      "connections, 200 requests, 1000 s timeout. The table is the study's percentile column, one column per run.",
  defaults: { connections: 50, amount: 200, timeoutSec: 1000, warmup: 0, work: 'ssr:5625', steps: 25 },
  quick: { connections: 8, amount: 24, timeoutSec: 60, warmup: 0, work: 'ssr:250', steps: 10 },
  plan ({ work, settings }) {
    const steps = String(settings.steps)
    const out = []
    for (const api of ['off', 'on']) {
      for (const mode of ['long', 'small']) {
        const variant = `${mode}${api === 'on' ? '+api' : ''}`
        out.push({
          server: 'long-vs-small-tasks',
          variant,
          args: ['--mode', mode, '--steps', steps, '--api', api, '--work', work],
          work
        })
      }
    }
    return out
  },
  // Percentile rows × one column per run, then req/s and the request counts, as the study prints them.
  table (report) {
    const runs = report.results.filter((r) => r.kind === 'http')
    const head = ['percentile', ...runs.map((r) => r.variant ?? r.server)]
    const rows = PERCENTILES.map((p) => [p, ...runs.map((r) => fmtMs(r.latency?.percentiles?.[p]))])
    rows.push(['max', ...runs.map((r) => fmtMs(r.latency?.max))])
    rows.push(['req/s', ...runs.map((r) => fmtNum(r.rps, 2))])
    rows.push(['answered', ...runs.map((r) => (r.requests ? `${r.requests.completed}/${r.requests.sent}` : MISSING))])
    rows.push(['loop p99', ...runs.map((r) => fmtMs(r.telemetry?.eventLoop?.p99))])
    rows.push(['trust', ...runs.map((r) => trustMark(r))])
    return { head, rows }
  }
}
