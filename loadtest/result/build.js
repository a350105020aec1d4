// The result and report shapes (schema 1, see reports/README.md): an HTTP result from a server run's
// run record (run/runner.js), the report object around the results, and the one failure record. Pure: no I/O.
import { isNum, roundTo, spread } from './stats.js'
import { capacityOf } from './capacity.js'
import { ideal, roundFigures, stepFigures } from './figures.js'
import { httpKey } from './key.js'
import { untrustedReasons, verdictInDoubt } from './trust.js'

// The report format version (reports/README.md).
export const SCHEMA = 1

// Why a run failed: the one failure record of the lab (a server that would not start, crashed, would
// not stop, or left processes behind; a lab error).
export function failure (reason, { exitCode = null, signal = null, stderrTail = [] } = {}) {
  return { reason, exitCode, signal, stderrTail }
}

// The round whose figures a result shows: the median by req/s of its rounds (null without rounds).
function medianRound (rounds) {
  const order = rounds.map((r, i) => [r.rps ?? -1, i]).sort((a, b) => a[0] - b[0])
  return order.length ? rounds[order[(order.length - 1) >> 1][1]] : null
}

// A capacity sweep's block: its rule, each step's figures and the capacity they show.
function sweepOf (record, rounds) {
  const steps = rounds.map((r, i) => stepFigures(r, i, record.sweep.kinds?.[i] ?? null, record.sweep.sloMs))
  const { kinds, ...rule } = record.sweep
  return { ...rule, steps, capacity: capacityOf(steps, record.sweep) }
}

// The untrusted reasons and notes of a run: the shown round's own, then the other rounds'. In a sweep,
// failing steps are its point, not a fault: only the generator's own trouble counts there, and not even
// that when the step failed by more than the generator's lag (its verdict stands, noted).
function trustOf (record, rounds, shown, sweep) {
  const reasons = untrustedReasons(shown, record)
  const notes = [...(record.notes ?? [])]
  for (const [i, r] of rounds.entries()) {
    if (r === shown) continue
    const extra = untrustedReasons(r)
      .filter((x) => !sweep || /load generator/.test(x))
      .map((x) => `round ${i + 1}: ${x}`)
    if (sweep && extra.length && !verdictInDoubt(sweep.steps[i], sweep.sloMs)) {
      notes.push(...extra.map((x) => `${x} (the step failed by more than the lag: its verdict stands)`))
      continue
    }
    reasons.push(...extra)
  }
  if (sweep && sweep.steps.length === 0) reasons.push('no step measured (no calibration of the work)')
  return { reasons, notes }
}

// The runtime the server reported (its ready message), and under --node the one it was started with.
function runtimeOf (record, e) {
  if (!record.runtime && !e.runtime) return null
  return {
    label: e.runtime?.label ?? null,
    name: record.runtime?.name ?? null,
    version: record.runtime?.version ?? null,
    engine: record.runtime?.engine ?? null,
    node: record.runtime?.node ?? null,
    v8: record.runtime?.v8 ?? null,
    source: e.runtime?.source ?? null,
    // what the server's check at start found its event-loop instruments good for (null: not told)
    instruments: record.instruments ?? null
  }
}

// Every round of a repeated run (--runs), and the spread of its req/s and p99.
function roundsOf (rounds) {
  if (rounds.length < 2) return {}
  return {
    runs: rounds.map((r) => ({
      rps: r.rps,
      latency: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
      requests: r.requests,
      histograms: r.histograms,
      timeline: r.timeline
    })),
    spread: { rps: spread(rounds.map((r) => r.rps)), p99: spread(rounds.map((r) => r.latency.p99)) }
  }
}

// The shown round's figures, as the result carries them (nulls without a round).
function shownFigures (shown) {
  const pick = (k) => shown?.[k] ?? null
  return {
    requests: pick('requests'),
    statusCodes: pick('statusCodes'),
    durationMs: pick('durationMs'),
    rps: pick('rps'),
    latency: pick('latency'),
    open: pick('open'),
    histograms: pick('histograms'),
    serverTiming: pick('serverTiming'),
    probe: pick('probe'),
    recovery: pick('recovery'),
    telemetry: pick('telemetry'),
    outside: pick('outside'),
    timeline: pick('timeline')
  }
}

// One HTTP result (README "results[] for HTTP runs") from a server's run record (run/runner.js).
// `cores`: the machine's available parallelism, for the ideal throughput.
export function buildHttpResult (record, { calibration = {}, cores = null } = {}) {
  const e = record.entry
  const work = record.workReported ?? e.work ?? null
  const rounds = record.rounds.map(roundFigures)
  const sweep = record.sweep ? sweepOf(record, rounds) : null
  const shown = sweep ? (rounds[sweep.capacity.step] ?? null) : medianRound(rounds)
  const { reasons, notes } = trustOf(record, rounds, shown, sweep)
  const idealRate = ideal(work, e.connections, cores, calibration)
  return {
    kind: 'http',
    key: httpKey(e, work),
    server: e.server,
    variant: e.variant ?? null,
    work,
    args: record.args ?? e.args ?? [],
    loop: shown?.loop ?? (e.rate ? 'open' : 'closed'),
    rate: e.rate ?? null,
    connections: e.connections,
    amount: e.amount ?? null,
    durationSec: e.durationSec ?? null,
    timeoutSec: e.timeoutSec,
    status: record.failure ? 'failed' : 'ok',
    failure: record.failure ?? null,
    interrupted: Boolean(record.interrupted),
    trusted: reasons.length === 0,
    untrusted: reasons,
    ...shownFigures(shown),
    ideal: idealRate,
    efficiency: idealRate && typeof shown?.rps === 'number' ? roundTo(shown.rps / idealRate.rps, 3) : null,
    capacity: sweep,
    examples: shown ? { mismatchBody: shown.samples.mismatch, error: shown.samples.error } : null,
    bodies: shown?.bodies ?? null, // { maxBytes, overCap, largestBytes }: bodies over --max-body
    autocannon: shown?.autocannon ?? null,
    stop: record.stop ?? null,
    notes,
    study: e.study ?? null,
    runtime: runtimeOf(record, e),
    ...roundsOf(rounds)
  }
}

// The whole report object from what the lab gathered.
export function buildReport ({
  id,
  createdAt,
  finishedAt,
  interrupted,
  failed: labFailed = false,
  experiment,
  label,
  machine: m,
  method,
  calibration,
  results,
  notes = []
}) {
  const failed = labFailed || results.some((r) => r.status === 'failed')
  return {
    schema: SCHEMA,
    kind: 'loadlab-report',
    id,
    createdAt,
    finishedAt: finishedAt ?? null,
    status: interrupted ? 'partial' : failed ? 'failed' : 'complete',
    experiment,
    label: label ?? null,
    machine: m,
    method,
    calibration,
    results,
    notes
  }
}

// One line naming a report's machine: its label if set, else host, CPU model and cores.
export function machineLine (report) {
  const m = report?.machine ?? {}
  if (typeof report?.label === 'string' && report.label.trim() !== '') return report.label
  return [m.hostname, m.cpuModel, isNum(m.cores) ? `${m.cores} cores` : null]
    .filter((x) => x !== null && x !== undefined && x !== '')
    .join(' · ')
}
