// Build the report (schema 1, see reports/README.md) from raw measurements: pure, no I/O but machine().
import os from 'node:os'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../catalog.js'
import { round, spread, summarize } from './stats.js'
import { encodeHistogram, summarizeHistogram } from '../run/histogram.js'
import { capacityOf, holds } from '../run/sweep.js'

// The report format version (reports/README.md).
export const SCHEMA = 1
// Above this share of one core the load generator is saturated and the run is untrusted.
export const SATURATED = 0.9
// The open loop's own health: a scheduler lag p99 above this (ms), or an issue rate off the schedule's
// by more than this share, marks the run untrusted (the generator, not the server, set the pace).
export const LAG_P99_LIMIT_MS = 5
export const SEND_RATE_TOLERANCE = 0.02

// The version of an installed package, read from its package.json (null when not installed).
export function packageVersion (name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

function packageJson () {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
}

// The machine block: CPU, cores, memory, OS, Node/V8 and library versions, load average now.
export function machine () {
  const cpus = os.cpus()
  return {
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model?.trim() ?? null,
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: { type: os.type(), platform: os.platform(), release: os.release() },
    arch: os.arch(),
    node: process.version,
    v8: process.versions.v8,
    // The Node lines this lab supports (package.json engines); --node runs the servers under others.
    nodeSupported: packageJson().engines?.node ?? null,
    versions: Object.fromEntries(['fastify', 'piscina', 'autocannon', 'react'].map((n) => [n, packageVersion(n)])),
    loadavg: os.loadavg().map((x) => round(x, 2))
  }
}

// The key that makes a run comparable across reports: server[/variant]@work[#qualifier].
export function makeKey ({ server, variant, work }, qualifier) {
  return `${server}${variant ? '/' + variant : ''}@${work ?? 'default'}${qualifier ? '#' + qualifier : ''}`
}

// The report's calibration key of a work spec: the spec, or under --node `SPEC#LABEL` for a runtime label.
export function calibrationKey (spec, runtimeLabel = null) {
  return runtimeLabel ? `${spec}#${runtimeLabel}` : spec
}

// A run's key with how it was loaded: open-loop runs and capacity sweeps never line up with closed-loop
// runs of the same server and work in compare.
// Under --node the runtime is part of the key too (#node22), so runs line up runtime by runtime.
function loopKey (key, entry) {
  const k = entry.runtime ? `${key}#${entry.runtime.label}` : key
  if (entry.sweep) return `${k}#capacity`
  if (entry.rate) return `${k}#open:${entry.rate}/s`
  return k
}

// The ideal throughput for a work spec: min(connections, cores) / service time (sleep kinds do not
// use a core while they wait, so their concurrency is the connections); null without a calibration.
export function ideal (work, connections, cores, calibration) {
  const cal = calibration?.[work]
  if (!cal || !(cal.medianMs > 0)) return null
  const sleeping = /^sleep(-sync)?:/.test(work)
  const concurrency = sleeping ? connections : Math.min(connections, cores)
  return { serviceMs: cal.medianMs, cores, concurrency, rps: round((concurrency / cal.medianMs) * 1000, 3) }
}

// Mean and median (ms) of a histogram of durations; nulls when empty.
function centre (histogram) {
  const s = summarizeHistogram(histogram)
  return { mean: s.mean, median: s.p50 }
}

// The open loop's figures of a round: what was offered, what the generator achieved, who waited.
function openFigures (f) {
  const issued = f.sent
  const spanMs = f.lastIssueMs - f.firstIssueMs
  const sendRate = issued > 1 && spanMs > 0 ? ((issued - 1) / spanMs) * 1000 : null
  const scheduledRate = issued > 1 && f.lastDueMs > 0 ? ((issued - 1) / f.lastDueMs) * 1000 : null
  const lag = summarizeHistogram(f.lag)
  return {
    rate: f.rate,
    arrival: f.arrival,
    seed: f.seed,
    written: f.written,
    waited: f.waited,
    peakInFlight: f.peakInFlight,
    priorityRaised: f.priorityRaised ?? false,
    scheduledRate: round(scheduledRate, 3),
    sendRate: round(sendRate, 3),
    sendRateError: sendRate && scheduledRate ? round(sendRate / scheduledRate - 1, 4) : null,
    lag: { p50: lag.p50, p99: lag.p99, max: lag.max },
    wait: summarizeHistogram(f.wait),
    service: summarizeHistogram(f.service)
  }
}

// The figures of one measured round: counts, own-timed rate, latency, probe, recovery, outside.
export function roundFigures (round_) {
  const f = round_.fire
  const unanswered = Math.max(0, f.sent - f.completed - f.errors - f.timeouts)
  const durationMs = f.durationMs
  const probeSorted = summarize(round_.probe?.latencies ?? [])
  const outside = round_.outside
    ? {
        cpuSeconds: round_.outside.cpuSeconds,
        cpuMsPerRequest:
          f.completed > 0 && typeof round_.outside.cpuSeconds === 'number'
            ? round((round_.outside.cpuSeconds * 1000) / f.completed, 3)
            : null,
        peakRssBytes: round_.outside.peakRssBytes,
        peakProcesses: round_.outside.peakProcesses,
        peakThreads: round_.outside.peakThreads,
        samples: round_.outside.samples,
        loadGenerator: {
          ...round_.outside.loadGenerator,
          saturated: (round_.outside.loadGenerator.utilisation ?? 0) > SATURATED
        }
      }
    : null
  return {
    requests: {
      sent: f.sent,
      completed: f.completed,
      ok: f.ok,
      non2xx: f.non2xx,
      errors: f.errors,
      timeouts: f.timeouts,
      mismatches: f.mismatches,
      unanswered
    },
    loop: f.loop ?? 'closed',
    mode: f.mode ?? 'amount',
    connections: f.connections ?? null,
    statusCodes: f.statusCodes,
    durationMs: round(durationMs, 3),
    rps: durationMs > 0 ? round((f.completed / durationMs) * 1000, 3) : null,
    // censored: timed-out requests, in at the timeout. Open loop: from each request's due time.
    latency: { ...summarizeHistogram(f.latency), censored: f.timeouts },
    open: f.loop === 'open' ? openFigures(f) : null,
    histograms: {
      latency: encodeHistogram(f.latency),
      ...(f.loop === 'open' ? { service: encodeHistogram(f.service) } : {})
    },
    serverTiming: { count: f.workMs.totalCount, workMs: centre(f.workMs), queueMs: centre(f.queueMs) },
    probe: round_.probe
      ? {
          count: probeSorted.count,
          failed: round_.probe.failed,
          timedOut: round_.probe.timedOut ?? 0,
          abandoned: round_.probe.abandoned,
          p50: probeSorted.p50,
          p99: probeSorted.p99,
          max: probeSorted.max
        }
      : null,
    recovery: round_.recovery ?? null,
    telemetry: round_.telemetry ?? null,
    outside,
    samples: { mismatch: f.mismatchSample, error: f.errorSample },
    autocannon: f.autocannon,
    stopped: f.stopped,
    timeline: round_.timeline ?? null // the round in time, through its recovery period (run/timeline.js)
  }
}

// Reasons not to take a run's figures at face value (empty: trusted).
export function untrustedReasons (fig, { failure, interrupted } = {}) {
  const out = []
  if (failure) out.push(`failed: ${failure.reason}`)
  if (interrupted) out.push('interrupted: the round was cut short')
  if (!fig) return out
  const r = fig.requests
  if (r.errors) out.push(`${r.errors} connection errors`)
  if (r.timeouts) out.push(`${r.timeouts} timeouts`)
  if (r.non2xx) out.push(`${r.non2xx} non-2xx responses`)
  if (r.mismatches) out.push(`${r.mismatches} body mismatches`)
  // A --duration round stops with up to one request in flight per connection: that is not a fault.
  const inFlightAtStop = fig.loop !== 'open' && fig.mode === 'duration' ? (fig.connections ?? 0) : 0
  if (r.unanswered > inFlightAtStop && !interrupted) { out.push(`${r.unanswered} requests unanswered at the end of the round`) }
  if (r.completed === 0) out.push('no response')
  const o = fig.open
  if (o?.lag?.p99 > LAG_P99_LIMIT_MS) { out.push(`load generator lagged: scheduler lag p99 ${o.lag.p99} ms > ${LAG_P99_LIMIT_MS} ms`) }
  if (o?.sendRateError !== null && o?.sendRateError !== undefined && Math.abs(o.sendRateError) > SEND_RATE_TOLERANCE) {
    out.push(
      `load generator off schedule: sent ${o.sendRate} req/s for ${o.scheduledRate} scheduled (${round(o.sendRateError * 100, 1)} %)`
    )
  }
  const lg = fig.outside?.loadGenerator
  if (lg?.saturated) out.push(`load generator saturated (${Math.round(lg.utilisation * 100)}% CPU)`)
  if (fig.probe?.failed) out.push(`${fig.probe.failed} failed /health probes`)
  return out
}

// Whether a capacity step's verdict could be the generator's doing: it failed on latency alone, and by
// no more than the generator's own worst lag (which the latency from the due time includes).
function verdictInDoubt (step, sloMs) {
  if (!step) return true
  if (step.pass) return false // it held with the lag inside its latency: without it, all the more
  const q = step.requests
  const onLatencyOnly = q.errors === 0 && q.timeouts === 0 && q.non2xx === 0 && q.mismatches === 0
  return onLatencyOnly && step.p99 - (step.lagMax ?? 0) <= sloMs
}

// One step of a capacity sweep: the offered rate and what came of it.
function stepFigures (fig, index, kind, sloMs) {
  const l = fig.latency
  const seconds = fig.durationMs / 1000
  return {
    index,
    kind,
    rate: fig.open?.rate ?? null,
    rps: fig.rps,
    p50: l.p50,
    p99: l.p99,
    p99_9: l.p99_9,
    max: l.max,
    pass: holds(fig, sloMs),
    requests: fig.requests,
    peakInFlight: fig.open?.peakInFlight ?? null,
    waited: fig.open?.waited ?? null,
    lagP99: fig.open?.lag?.p99 ?? null,
    lagMax: fig.open?.lag?.max ?? null,
    cpuCores:
      typeof fig.outside?.cpuSeconds === 'number' && seconds > 0 ? round(fig.outside.cpuSeconds / seconds, 3) : null,
    queueLength: fig.telemetry?.gauges?.queueLength ?? null,
    recovery: fig.recovery,
    histograms: fig.histograms
  }
}

// One HTTP result (README "results[] for HTTP runs") from a server run's raw record.
export function buildHttpResult (raw, { calibration = {}, cores = os.availableParallelism() } = {}) {
  const e = raw.entry
  const work = raw.workReported ?? e.work ?? null
  const rounds = raw.rounds.map(roundFigures)
  const order = rounds.map((r, i) => [r.rps ?? -1, i]).sort((a, b) => a[0] - b[0])
  let mid = order.length ? rounds[order[(order.length - 1) >> 1][1]] : null
  let sweep = null
  if (raw.sweep) {
    // A capacity sweep: the figures shown are those of the step at capacity; failing steps are the
    // point of the sweep, not a fault, so only the generator's own trouble makes the run untrusted.
    const steps = rounds.map((r, i) => stepFigures(r, i, raw.sweep.kinds?.[i] ?? null, raw.sweep.sloMs))
    const { kinds, ...rule } = raw.sweep
    sweep = { ...rule, steps, capacity: capacityOf(steps, raw.sweep) }
    mid = rounds[sweep.capacity.step] ?? null
  }
  const reasons = untrustedReasons(mid, raw)
  const notes = [...(raw.notes ?? [])]
  for (const [i, r] of rounds.entries()) {
    if (r === mid) continue
    const extra = untrustedReasons(r)
      .filter((x) => !sweep || /load generator/.test(x))
      .map((x) => `round ${i + 1}: ${x}`)
    if (sweep && extra.length && !verdictInDoubt(sweep.steps[i], sweep.sloMs)) {
      // A lagging generator sends late, and the lateness is in the latency from the due time: a step that
      // failed by more than the lag failed whatever the generator did; its verdict stands.
      notes.push(...extra.map((x) => `${x} (the step failed by more than the lag: its verdict stands)`))
      continue
    }
    reasons.push(...extra)
  }
  if (sweep && sweep.steps.length === 0) reasons.push('no step measured (no calibration of the work)')
  const id = ideal(work, e.connections, cores, calibration)
  const result = {
    kind: 'http',
    key: loopKey(e.key ?? makeKey({ server: e.server, variant: e.variant, work }), e),
    server: e.server,
    variant: e.variant ?? null,
    work,
    args: raw.args ?? e.args ?? [],
    loop: mid?.loop ?? (e.rate ? 'open' : 'closed'),
    rate: e.rate ?? null,
    connections: e.connections,
    amount: e.amount ?? null,
    durationSec: e.durationSec ?? null,
    timeoutSec: e.timeoutSec,
    status: raw.failure ? 'failed' : 'ok',
    failure: raw.failure ?? null,
    interrupted: Boolean(raw.interrupted),
    trusted: reasons.length === 0,
    untrusted: reasons,
    requests: mid?.requests ?? null,
    statusCodes: mid?.statusCodes ?? null,
    durationMs: mid?.durationMs ?? null,
    rps: mid?.rps ?? null,
    latency: mid?.latency ?? null,
    open: mid?.open ?? null,
    histograms: mid?.histograms ?? null,
    serverTiming: mid?.serverTiming ?? null,
    probe: mid?.probe ?? null,
    recovery: mid?.recovery ?? null,
    telemetry: mid?.telemetry ?? null,
    outside: mid?.outside ?? null,
    timeline: mid?.timeline ?? null,
    ideal: id,
    efficiency: id && mid?.rps !== null && mid?.rps !== undefined ? round(mid.rps / id.rps, 3) : null,
    capacity: sweep,
    examples: mid ? { mismatchBody: mid.samples.mismatch, error: mid.samples.error } : null,
    autocannon: mid?.autocannon ?? null,
    stop: raw.stop ?? null,
    notes,
    study: e.study ?? null,
    // The runtime the server reported (its ready message), and under --node the one it was started with.
    runtime: raw.runtime || e.runtime
      ? {
          label: e.runtime?.label ?? null,
          node: raw.runtime?.node ?? null,
          v8: raw.runtime?.v8 ?? null,
          source: e.runtime?.source ?? null
        }
      : null
  }
  if (rounds.length > 1) {
    result.runs = rounds.map((r) => ({
      rps: r.rps,
      latency: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
      requests: r.requests,
      histograms: r.histograms,
      timeline: r.timeline
    }))
    result.spread = { rps: spread(rounds.map((r) => r.rps)), p99: spread(rounds.map((r) => r.latency.p99)) }
  }
  return result
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
