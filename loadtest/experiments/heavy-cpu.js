// Experiment `heavy-cpu` (study 004, peterdee/node-cpu-heavy): every CPU strategy giving each request ~100 ms of
// CPU (`for (i = 0; i < 1e8; i++) sum += i`) under 100 connections for 20 s, autocannon's default 10 s
// timeout. The study's point: only the queued pool answers every request; the others time requests
// out and keep working on abandoned ones, which the recovery request right after the round shows.
// Beside queued-threads runs its variant `cancel-off`, the study's queued pool as it was (it worked on
// for clients that had left), so the report can say how much of our pool's recovery is cancellation.
import { MISSING, fmtMs, fmtCount, fmtNum, fmtPct } from '../text/format.js'
import { trustMark } from '../text/sentences.js'
import { cpuStrategyNames, serverOf, variants } from '../catalog.js'
import { runName } from '../result/key.js'

export const SERVERS = cpuStrategyNames()

export default {
  name: 'heavy-cpu',
  study: '004',
  title: 'Heavy CPU: inline, cluster, fork, thread per request, cluster+threads, queued pools',
  description:
    'The heavy-CPU servers on loop:1e8 (about 100 ms of CPU a request) under 100 connections for 20 s with a 10 s ' +
      'timeout, as `autocannon -c 100 -d 20`, and the study\'s queued pool as it was (queued-threads --cancel ' +
      'off). Timeouts, the recovery request after the round and peak processes/threads show what each strategy ' +
      'does with work nobody waits for any more.',
  defaults: { connections: 100, durationSec: 20, timeoutSec: 10, warmup: 4, work: 'loop:1e8', recoveryTimeoutSec: 150 },
  quick: { connections: 6, amount: 18, durationSec: null, warmup: 2, work: 'loop:1e6', recoveryTimeoutSec: 30 },
  // --server names strategies (queued-threads with its cancel-off variant) or the variant's key (it and its base).
  plan ({ work, servers }) {
    const picked = servers ?? SERVERS
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
        const name = runName(r)
        if (r.status === 'failed' && !r.requests) {
          return [name, 'FAILED', ...Array(13).fill(''), `✗ ${r.failure?.reason ?? ''}`]
        }
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

// The recovery of queued-threads with and without cancellation, and what explains the difference: the
// requests still queued when the round ended (the timeline's last sample of the round; autocannon closes
// its connections then, so all of them are for clients that left), each a mean work time on one of the
// threads. One line, or none when either run is missing.
export function cancelAttribution (results) {
  const base = results.find((r) => r.server === 'queued-threads' && !r.variant)
  const off = results.find((r) => r.server === 'queued-threads' && r.variant === 'cancel-off')
  if (!base?.recovery || !off?.recovery) return []
  const ms = (r) => r.recovery.ms ?? r.recovery.timeoutMs
  const dur = (x) => (x >= 10000 ? fmtMs(x) : `${fmtMs(x)} ms`)
  const g = off.telemetry?.gauges ?? {}
  const workMs = off.serverTiming?.workMs?.mean
  const queued = queueAtEnd(off)
  const recovery = `queued-threads recovers in ${dur(ms(base))}, the study's pool as it was (--cancel off) in ` +
    `${off.recovery.ms === null ? '>' : ''}${dur(ms(off))}`
  const over = `; over the run the cancel-off pool worked for ${fmtCount(g.abandoned)} clients that had left, ` +
    `where cancellation dropped or ended ${fmtCount(base.telemetry?.gauges?.aborted)}`
  if (typeof queued !== 'number' || !(g.threads > 0) || !(workMs > 0)) {
    return [`${recovery} (no queue figures to ` +
    `attribute it)${over}`]
  }
  const waitMs = (queued * workMs) / g.threads
  return [
    `${recovery}: when the round ended it still held ${fmtCount(queued)} queued requests of clients that had left, ` +
      `${fmtCount(queued)} × ${dur(workMs)} ÷ ${g.threads} threads ≈ ${dur(waitMs)} of work before the recovery ` +
      `request${over}`
  ]
}

// A run's queue length at the end of its round: the last timeline sample of the round that has one.
function queueAtEnd (r) {
  const points = (r.timeline?.points ?? [])
    .filter((p) => p.phase === 'round' && typeof p.server?.queueLength === 'number')
  return points.at(-1)?.server.queueLength ?? null
}
