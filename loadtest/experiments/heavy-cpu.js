// Experiment `heavy-cpu` (study 004, peterdee/node-cpu-heavy): every CPU strategy giving each request ~100 ms of
// CPU (`for (i = 0; i < 1e8; i++) sum += i`) under 100 connections for 20 s, autocannon's default 10 s
// timeout. The study's point: only the queued pool answers every request; the others time requests
// out and keep working on abandoned ones, which the recovery request right after the round shows.
// Beside queued-threads runs its variant `cancel-off`, the study's queued pool as it was (it worked on
// for clients that had left), so the report can say how much of our pool's recovery is cancellation.
import { MISSING, fmtMs, fmtCount, fmtNum, fmtPct } from '../text/format.js'
import { trustMark } from '../text/sentences.js'
import { cpuStrategyNames, serverOf, variants } from '../catalog.js'

export const SERVERS = cpuStrategyNames()

export default {
  name: 'heavy-cpu',
  study: '004',
  title: 'Heavy CPU (study 004): inline, cluster, fork, thread per request, cluster+threads, queued pools',
  description:
    'The heavy-CPU servers on loop:1e8 (about 100 ms of CPU a request) under 100 connections for 20 s with a 10 s timeout, as `autocannon -c 100 -d 20`, and the study\'s queued pool as it was (queued-threads --cancel off). Timeouts, the recovery request after the round and peak processes/threads show what each strategy does with work nobody waits for any more.',
  defaults: { connections: 100, durationSec: 20, timeoutSec: 10, warmup: 4, work: 'loop:1e8', recoveryTimeoutSec: 150 },
  quick: { connections: 6, amount: 18, durationSec: null, warmup: 2, work: 'loop:1e6', recoveryTimeoutSec: 30 },
  // --server names strategies (queued-threads with its cancel-off variant) or the variant's key (it and its base).
  plan (opts) {
    const work = opts.work ?? opts.settings.work
    const picked = opts.servers ?? SERVERS
    const wanted = (v) => picked.includes(v.server) || picked.includes(v.key)
    return [...new Set(picked.map(serverOf))]
      .filter((s) => SERVERS.includes(s))
      .flatMap((server) => [
        { server, variant: null, args: ['--work', work], work },
        ...variants([server], 'heavy-cpu').filter(wanted).map((v) => ({
          server,
          variant: v.variant,
          args: ['--work', work, ...v.argsFor({})],
          work
        }))
      ])
  },
  // The study's table shape, plus what it could not see: timeouts, recovery and the process tree.
  table (report) {
    const head = [
      'server',
      'req/s',
      'p50',
      'p97.5',
      'p99',
      'max',
      'answered',
      'timeouts',
      'conn errors',
      'recovery',
      'peak procs',
      'peak threads',
      'CPU ms/req',
      'eff',
      'trust'
    ]
    const results = report.results.filter((r) => r.kind === 'http')
    const rows = results
      .map((r) => {
        const q = r.requests ?? {}
        const name = r.variant ? `${r.server}/${r.variant}` : r.server
        if (r.status === 'failed' && !r.requests) { return [name, 'FAILED', '', '', '', '', '', '', '', '', '', '', '', '', `✗ ${r.failure?.reason ?? ''}`] }
        return [
          name,
          fmtNum(r.rps, 1),
          fmtMs(r.latency?.p50),
          fmtMs(r.latency?.p97_5),
          fmtMs(r.latency?.p99),
          fmtMs(r.latency?.max),
          `${fmtCount(q.completed)}/${fmtCount(q.sent)}`,
          fmtCount(q.timeouts),
          fmtCount(q.errors),
          r.recovery
            ? r.recovery.ms === null
              ? `>${fmtMs(r.recovery.timeoutMs)} (${r.recovery.status})`
              : fmtMs(r.recovery.ms)
            : MISSING,
          fmtCount(r.outside?.peakProcesses),
          fmtCount(r.outside?.peakThreads),
          fmtNum(r.outside?.cpuMsPerRequest, 0),
          fmtPct(r.efficiency),
          trustMark(r)
        ]
      })
    return { head, rows, notes: cancelAttribution(results) }
  }
}

// The recovery of queued-threads with and without cancellation, and how much of the difference the
// work done for clients that had left explains: the `abandoned` gauge (answers nobody read) × the mean
// work time ÷ the threads. One line, or none when either run is missing.
export function cancelAttribution (results) {
  const base = results.find((r) => r.server === 'queued-threads' && !r.variant)
  const off = results.find((r) => r.server === 'queued-threads' && r.variant === 'cancel-off')
  if (!base?.recovery || !off?.recovery) return []
  const ms = (r) => r.recovery.ms ?? r.recovery.timeoutMs
  const dur = (x) => (x >= 10000 ? fmtMs(x) : `${fmtMs(x)} ms`)
  const g = off.telemetry?.gauges ?? {}
  const workMs = off.serverTiming?.workMs?.mean
  const recovery = `queued-threads recovers in ${dur(ms(base))}, the study's pool as it was (--cancel off) in ` +
    `${off.recovery.ms === null ? '>' : ''}${dur(ms(off))}`
  if (!(g.abandoned >= 0) || !(g.threads > 0) || !(workMs > 0)) return [`${recovery} (no gauges to attribute the difference)`]
  if (!(ms(off) > ms(base))) {
    return [`${recovery}: no slower without cancellation (it worked for ${fmtCount(g.abandoned)} clients that had left)`]
  }
  const forNobodyMs = (g.abandoned * workMs) / g.threads
  const dropped = base.telemetry?.gauges?.aborted
  return [
    `${recovery}: without cancellation the pool worked for ${fmtCount(g.abandoned)} clients that had left ` +
      `(${fmtCount(g.abandoned)} × ${dur(workMs)} ÷ ${g.threads} threads ≈ ${dur(forNobodyMs)} of the ` +
      `${dur(ms(off) - ms(base))} difference)` +
      (dropped >= 0 ? `; with it, ${fmtCount(dropped)} such requests were dropped or ended unfinished` : '')
  ]
}
