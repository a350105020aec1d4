// Experiment `dispatch`, its study table and the caveats a reader of its report should see.
import { MODES, UNPOOLED } from '../../channels/index.js'
import { cases, resolveOptions, runsFor } from './plan.js'
import { stats } from './measure.js'
import { fmtMs3, MISSING } from '../../text/format.js'

const bytes = (n) => (n >= 1e6 ? `${n / 1e6} MB` : n >= 1e3 ? `${n / 1e3} kB` : `${n} B`)

// The study's table: start-up per pool, then per case main vs each pooled mode and worker count,
// with the mean time, its ratio to main, and for the native caller's modes its ratio to native-main
// (the study's own baseline: the native host calling the hook on the main thread).
export function table (report) {
  const results = report.results ?? []
  const entries = results.filter((r) => r.kind === 'dispatch')
  const native = entries.some((e) => e.mode?.startsWith('native-')) // the column only where native rows are
  const head = ['case', 'mode', 'workers', 'calls', 'mean ms', 'min–max ms', 'µs/call', 'vs main',
    ...(native ? ['vs native-main'] : []), 'answers']
  const rows = []
  const pools = new Map()
  for (const e of entries) {
    const pool = `${e.mode}/${e.workers}`
    if (!UNPOOLED.includes(e.mode) && !pools.has(pool)) pools.set(pool, e)
  }
  const order = (e) => MODES.indexOf(e.mode) * 10000 + e.workers
  for (const e of [...pools.values()].sort((a, b) => order(a) - order(b))) {
    const s = e.startupSamplesMs?.length ? stats(e.startupSamplesMs) : null
    rows.push([
      'start-up',
      e.mode,
      String(e.workers),
      '',
      e.startupMs === null ? 'failed' : fmtMs3(e.startupMs),
      s ? `${fmtMs3(s.minMs)}–${fmtMs3(s.maxMs)}` : '',
      '',
      '',
      ...(native ? [''] : []),
      ''
    ])
  }
  const caseKeys = [...new Set(entries.map((e) => `${e.costMs}/${e.payloadBytes}`))]
  for (const ck of caseKeys) {
    const group = entries.filter((e) => `${e.costMs}/${e.payloadBytes}` === ck).sort((a, b) => order(a) - order(b))
    const main = group.find((e) => e.mode === 'main' && e.meanMs !== null)
    const nativeMain = group.find((e) => e.mode === 'native-main' && e.meanMs !== null)
    const ratio = (e, base) => (base && e.meanMs !== null ? `${(e.meanMs / base.meanMs).toFixed(2)}×` : '')
    for (const e of group) {
      rows.push([
        `cost ${e.costMs} ms, ${bytes(e.payloadBytes)}`,
        e.mode,
        UNPOOLED.includes(e.mode) ? MISSING : String(e.workers),
        String(e.calls),
        e.status === 'ok' ? fmtMs3(e.meanMs) : 'failed',
        e.meanMs === null ? '' : `${fmtMs3(e.minMs)}–${fmtMs3(e.maxMs)}`,
        e.perCallUs === null ? '' : e.perCallUs.toFixed(1),
        ratio(e, main),
        ...(native ? [e.mode?.startsWith('native-') ? ratio(e, nativeMain) : ''] : []),
        e.status !== 'ok' ? 'failed' : e.trusted ? `${e.answers.calls} ok` : e.untrusted.join(', ')
      ])
    }
  }
  return { head, rows }
}

// Caveats a reader of this experiment's report should see.
export function notes (opts = {}) {
  const o = resolveOptions(opts)
  return [
    "dispatch: the hook spins on wall-clock time (performance.now()), as the study's did: with more threads than " +
      'cores, threads time-share and each still finishes its call after costMs of wall time, so speed-ups beyond ' +
      'the core count measure dispatch overhead, not extra CPU (cpuMs shows the CPU actually used).',
    'dispatch: piscina runs with its default options except minThreads = maxThreads = W and idleTimeout = ' +
      `Infinity; the shared channel's buffers hold ${Math.max(...o.payloads)} bytes + the 'worker:' prefix.`,
    'dispatch: main runs are the hook in a synchronous loop; start-up is measured from spawning the pool until ' +
      'every thread has loaded the hook.',
    ...(o.longCaseRuns === null ||
    o.longCaseRuns >= o.runs ||
    !cases(o).some((c) => [0, ...o.workers].some((w) => runsFor(o, c, w) < o.runs))
      ? []
      : [
          `dispatch: cases whose hook alone spins >= ${o.longCaseMs} ms per run (calls × cost / workers: main and ` +
            `1 worker with a cost) ran min(runs, ${o.longCaseRuns}) times instead of ${o.runs}, to keep the run ` +
            'short; their entries\' runs field says so. The study ran every case 10 times.'
        ])
  ]
}
