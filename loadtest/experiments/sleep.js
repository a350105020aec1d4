// Experiment `sleep` (study 002, piscina's examples/server): a request that sleeps 100 ms, async
// (setTimeout) or sync (Atomics.wait), on the main thread or in a piscina pool, at 10 connections for
// 10 s; then the pooled ones again with 10 tasks per worker and a 1000 ms idle timeout. The study's
// point: a pool rescues blocking work and costs async work, and tuning the pool recovers async work.
import { parseKey } from '../result/key.js'
import { MISSING, fmtMs, fmtCount, fmtNum, fmtRatio } from '../text/format.js'
import { trustMark } from '../text/sentences.js'

const VARIANTS = ['async-sleep-unpooled', 'async-sleep-pooled', 'sync-sleep-unpooled', 'sync-sleep-pooled']
const TUNED = { tasks: 10, idleTimeout: 1000 }

export default {
  name: 'sleep',
  study: '002',
  title: 'Sleep: async vs sync sleep, on the main thread vs in a piscina pool',
  description:
    'The four sleep variants at 100 ms under 10 connections for 10 s (autocannon defaults), then the two pooled ' +
      "ones with --concurrent-tasks-per-worker 10 --idle-timeout 1000. The pool has piscina's default thread " +
      'count (1.5 × cores).',
  defaults: { connections: 10, durationSec: 10, timeoutSec: 10, warmup: 10, delay: 100 },
  quick: { connections: 4, amount: 24, durationSec: null, warmup: 4, delay: 20 },
  plan ({ settings: { delay } }) {
    const entry = (variant, tuned) => {
      const work = `${variant.startsWith('sync') ? 'sleep-sync' : 'sleep'}:${delay}`
      const args = ['--variant', variant, '--delay', String(delay)]
      if (tuned) {
        args.push('--concurrent-tasks-per-worker', String(TUNED.tasks), '--idle-timeout', String(TUNED.idleTimeout))
      }
      return {
        server: 'sleep-variants',
        variant,
        args,
        work,
        qualifier: tuned ? `t${TUNED.tasks}-i${TUNED.idleTimeout}` : null
      }
    }
    return [
      ...VARIANTS.map((v) => entry(v, false)),
      ...VARIANTS.filter((v) => v.endsWith('-pooled')).map((v) => entry(v, true))
    ]
  },
  // The study's comparison: each variant's throughput and latency, and pooled vs unpooled of the same sleep.
  table (report) {
    const http = report.results.filter((r) => r.kind === 'http')
    const unpooled = (r) =>
      http.find((u) => u.variant === r.variant?.replace('-pooled', '-unpooled') && !parseKey(u.key).qualifier)
    const head = [
      'variant',
      'pool tuning',
      'req/s',
      'vs unpooled',
      'p50',
      'p97.5',
      'max',
      'loop p99',
      'peak threads',
      'timeouts',
      'trust'
    ]
    const rows = http.map((r) => {
      const tuned = parseKey(r.key).qualifier !== null
      const base = r.variant?.endsWith('-pooled') ? unpooled(r) : null
      return [
        r.variant ?? r.server,
        r.variant?.endsWith('-pooled')
          ? tuned
            ? `${TUNED.tasks} tasks/worker, idle ${TUNED.idleTimeout} ms`
            : 'piscina defaults'
          : MISSING,
        fmtNum(r.rps, 1),
        base ? fmtRatio(r.rps, base.rps) : MISSING,
        fmtMs(r.latency?.p50),
        fmtMs(r.latency?.p97_5),
        fmtMs(r.latency?.max),
        fmtMs(r.telemetry?.eventLoop?.p99),
        fmtCount(r.outside?.peakThreads),
        fmtCount(r.requests?.timeouts),
        r.status === 'failed' ? `✗ ${r.failure?.reason ?? 'failed'}` : trustMark(r)
      ]
    })
    return { head, rows }
  }
}
