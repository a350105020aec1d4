// Experiment `heavy-cpu` (study 004, peterdee/node-cpu-heavy): six ways to give each request ~100 ms of
// CPU (`for (i = 0; i < 1e8; i++) sum += i`) under 100 connections for 20 s, autocannon's default 10 s
// timeout. The study's point: only the queued pool answers every request; the others time requests
// out and keep working on abandoned ones, which the recovery request right after the round shows.
import { MISSING, fmtMs, fmtCount, fmtNum, fmtPct } from '../text/format.js'
import { trustMark } from '../text/sentences.js'
import { cpuStrategyNames } from '../catalog.js'

export const SERVERS = cpuStrategyNames()

export default {
  name: 'heavy-cpu',
  study: '004',
  title: 'Heavy CPU (study 004): inline, cluster, fork, thread per request, cluster+threads, queued pool',
  description:
    'The six heavy-CPU servers on loop:1e8 (about 100 ms of CPU a request) under 100 connections for 20 s with a 10 s timeout, as `autocannon -c 100 -d 20`. Timeouts, the recovery request after the round and peak processes/threads show what each strategy does with work nobody waits for any more.',
  defaults: { connections: 100, durationSec: 20, timeoutSec: 10, warmup: 4, work: 'loop:1e8', recoveryTimeoutSec: 150 },
  quick: { connections: 6, amount: 18, durationSec: null, warmup: 2, work: 'loop:1e6', recoveryTimeoutSec: 30 },
  plan (opts) {
    const work = opts.work ?? opts.settings.work
    const servers = opts.servers ?? SERVERS
    return servers
      .filter((s) => SERVERS.includes(s))
      .map((server) => ({
        server,
        variant: null,
        args: ['--work', work],
        work
      }))
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
      'errors',
      'recovery',
      'peak procs',
      'peak threads',
      'CPU ms/req',
      'eff',
      'trust'
    ]
    const rows = report.results
      .filter((r) => r.kind === 'http')
      .map((r) => {
        const q = r.requests ?? {}
        if (r.status === 'failed' && !r.requests) { return [r.server, 'FAILED', '', '', '', '', '', '', '', '', '', '', '', '', `✗ ${r.failure?.reason ?? ''}`] }
        return [
          r.server,
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
    return { head, rows }
  }
}
