// The figures of a measured round (counts, rate, latency, probe, outside) and of a capacity step, from
// the load engine's raw round: pure, the one place a round becomes numbers.
import { roundTo, summarize } from './stats.js'
import { decodeHistogram, encodeHistogram, summarizeHistogram } from './histogram.js'
import { backlogOf, judgeStep } from './capacity.js'
import { arrivalFit, contentionOf, disturbances } from './trust.js'
import { TRUST } from './rules.js'
import { classFigures } from './mix.js'
import { phaseFigures } from './phases.js'

// The service time of a calibration (run/watch/calibrate.js): its robust estimate of warm calls, or the
// median of a report from before it had one; null without a calibration.
export function serviceTime (cal) {
  const ms = cal?.serviceMs ?? cal?.medianMs
  return ms > 0 ? ms : null
}

// The ideal throughput for a work spec: min(connections, cores) / service time (sleep kinds do not
// use a core while they wait, so their concurrency is the connections); null without a calibration.
export function ideal (work, connections, cores, calibration) {
  const cal = calibration?.[work]
  const serviceMs = serviceTime(cal)
  if (serviceMs === null) return null
  // A declared service time is a wait (the sleep kinds, run/watch/calibrate.js): it holds no core.
  const waits = cal.method === 'declared'
  if (!waits && !(cores > 0)) return null
  const concurrency = waits ? connections : Math.min(connections, cores)
  return { serviceMs, cores, concurrency, rps: roundTo((concurrency / serviceMs) * 1000, 3) }
}

// Mean and median (ms) of a histogram of durations; nulls when empty.
function centre (histogram) {
  const s = summarizeHistogram(histogram)
  return { mean: s.mean, median: s.p50 }
}

// The rate a generator issued at against the rate its (realised) schedule asked for, and its lag: of a
// round, or of one generator thread of it (`lag` a histogram or its encoding).
function scheduleFigures (raw) {
  const { sent: issued, firstIssueMs, lastIssueMs, firstDueMs, lastDueMs, lag: lagHistogram } = raw
  const spanMs = lastIssueMs - firstIssueMs
  const dueSpanMs = lastDueMs - (firstDueMs ?? 0) // a slice's first request is not due at 0
  const sendRate = issued > 1 && spanMs > 0 ? ((issued - 1) / spanMs) * 1000 : null
  const scheduledRate = issued > 1 && dueSpanMs > 0 ? ((issued - 1) / dueSpanMs) * 1000 : null
  const lag = summarizeHistogram(typeof lagHistogram === 'string' ? decodeHistogram(lagHistogram) : lagHistogram)
  return {
    scheduledRate: roundTo(scheduledRate, 3),
    sendRate: roundTo(sendRate, 3),
    sendRateError: sendRate && scheduledRate ? roundTo(sendRate / scheduledRate - 1, 4) : null,
    lag: { p50: lag.p50, p99: lag.p99, max: lag.max },
    // the first request: when it was due and when it left (ms from due time 0, a shard's common start)
    firstDueMs: roundTo(firstDueMs ?? null, 3),
    firstIssueMs: roundTo(firstIssueMs ?? null, 3),
    ...generatorOwnFigures(raw)
  }
}

// What the generator (run/generate/open-loop.js) records of itself, where it does: its 1 s issue windows from
// the warm-up's end in trust.js's shape ({ t, due, sent }), its lag after the warm-up, and the most
// requests it found due and unsent at one wake-up (reports made before these figures have none of them).
function generatorOwnFigures ({ windows, lagJudged, peakBacklog, warmupMs, arrivals, arrival }) {
  if (!windows) return {}
  const after = summarizeHistogram(typeof lagJudged === 'string' ? decodeHistogram(lagJudged) : lagJudged)
  return {
    warmupMs,
    windows: generatorWindows(windows),
    lagAfterWarmup: { p50: after.p50, p99: after.p99, max: after.max },
    peakBacklog,
    // its arrivals against the process asked for (trust.js arrivalFit), the last bin left out: the round ended in it
    fit: arrivals ? arrivalFit(arrivals.issued.slice(0, -1), { binMs: arrivals.ms, arrival }) : null
  }
}

// The generator's window counts as trust.js reads windows: { t (ms from due time 0), due, sent }, up to
// the last window with any request due; requests issued after it (the round's last ones, late by their
// lag) count in it.
export function generatorWindows ({ startMs, ms, due = [], issued = [] }) {
  let last = due.length - 1
  while (last > 0 && !(due[last] > 0)) last--
  const out = []
  for (let i = 0; i <= last; i++) {
    let sent = issued[i] ?? 0
    if (i === last) for (let j = i + 1; j < issued.length; j++) sent += issued[j]
    out.push({ t: startMs + i * ms, due: due[i] ?? 0, sent })
  }
  return out
}

// Latency accuracy: the generator's lag at each reported percentile beside the latency's, and its share
// of it (an upper bound: the lag's tail and the latency's are not always the same requests).
export function lagShare (latency, lag, percentiles = ['p50', 'p99', 'p99_9']) {
  const out = {}
  for (const p of percentiles) {
    const l = latency?.[p]
    const g = lag?.[p]
    if (typeof l !== 'number' || typeof g !== 'number') continue
    out[p] = { latencyMs: l, lagMs: g, share: l > 0 ? roundTo(Math.min(1, g / l), 3) : null }
  }
  return out
}

// The open loop's figures of a round: what was offered, what the generator achieved, who waited; with
// generator threads, each thread's own schedule figures (`generators`).
function openFigures (f) {
  return {
    rate: f.rate,
    arrival: f.arrival,
    seed: f.seed,
    written: f.written,
    waited: f.waited,
    peakWaiting: f.peakWaiting ?? null,
    dropped: f.dropped ?? 0,
    droppedReason: f.droppedReason ?? null,
    peakInFlight: f.peakInFlight,
    priorityRaised: f.priorityRaised ?? false,
    ...scheduleFigures(f),
    generators: f.generators ? f.generators.map(scheduleFigures) : null,
    sentByAnswer: f.sentByAnswer ?? null,
    preopened: f.preopened ?? null,
    accuracy: lagShare(summarizeHistogram(f.latency), summarizeHistogram(f.lag)),
    wait: summarizeHistogram(f.wait),
    service: summarizeHistogram(f.service)
  }
}

// The outside figures of a round (sample.js): the server tree's CPU, RSS and counts, the lab's own CPU.
function outsideFigures (outside, completed) {
  return outside
    ? {
        cpuSeconds: outside.cpuSeconds,
        cpuMsPerRequest:
          completed > 0 && typeof outside.cpuSeconds === 'number'
            ? roundTo((outside.cpuSeconds * 1000) / completed, 3)
            : null,
        peakRssBytes: outside.peakRssBytes,
        peakProcesses: outside.peakProcesses,
        peakThreads: outside.peakThreads,
        samples: outside.samples,
        loadGenerator: {
          ...outside.loadGenerator,
          saturated: (outside.loadGenerator.utilisation ?? 0) > TRUST.saturated
        }
      }
    : null
}

// Each class's figures with its phases beside them (a tally per class, open loop only).
function withPhases (classes, tallies) {
  if (!classes || !tallies) return classes
  return classes.map((c, i) => ({ ...c, phases: phaseFigures(tallies[i]) }))
}

// The figures of one measured round: counts, own-timed rate, latency, probe, recovery, outside.
export function roundFigures (measured) {
  const f = measured.fire
  const unanswered = Math.max(0, f.sent - f.completed - f.errors - f.timeouts - (f.dropped ?? 0))
  const durationMs = f.durationMs
  const probeSorted = summarize(measured.probe?.latencies ?? [])
  const outside = outsideFigures(measured.outside, f.completed)
  const fig = {
    requests: {
      sent: f.sent,
      completed: f.completed,
      ok: f.ok,
      non2xx: f.non2xx,
      errors: f.errors,
      protocolErrors: f.protocolErrors ?? 0,
      interim: f.interim ?? 0,
      timeouts: f.timeouts,
      dropped: f.dropped ?? 0, // open loop: due while its waiting ring was full, never written
      mismatches: f.mismatches,
      unanswered
    },
    loop: f.loop ?? 'closed',
    mode: f.mode ?? 'amount',
    connections: f.connections ?? null,
    statusCodes: f.statusCodes,
    durationMs: roundTo(durationMs, 3),
    rps: durationMs > 0 ? roundTo((f.completed / durationMs) * 1000, 3) : null,
    // censored: timed-out requests, in at the timeout. Open loop: from each request's due time.
    latency: { ...summarizeHistogram(f.latency), censored: f.timeouts },
    open: f.loop === 'open' ? openFigures(f) : null,
    histograms: {
      latency: encodeHistogram(f.latency),
      // open loop: from the write, the scheduler's lag, the wait for a connection (npm run merge adds them)
      ...(f.loop === 'open'
        ? { service: encodeHistogram(f.service), lag: encodeHistogram(f.lag), wait: encodeHistogram(f.wait) }
        : {}),
      // a round of planned length: the requests due in its second half (result/rules.js HALVES)
      ...(f.latencyLate && f.lateFromMs !== null ? { latencyLate: encodeHistogram(f.latencyLate) } : {})
    },
    serverTiming: { count: f.workMs.totalCount, workMs: centre(f.workMs), queueMs: centre(f.queueMs) },
    probe: measured.probe
      ? {
          count: probeSorted.count,
          failed: measured.probe.failed,
          timedOut: measured.probe.timedOut ?? 0,
          abandoned: measured.probe.abandoned,
          p50: probeSorted.p50,
          p99: probeSorted.p99,
          max: probeSorted.max
        }
      : null,
    recovery: measured.recovery ?? null,
    telemetry: measured.telemetry ?? null,
    outside,
    samples: { mismatch: f.mismatchSample, error: f.errorSample },
    // { maxBytes, overCap, largestBytes }: bodies longer than --max-body (verified whole, only their head kept)
    bodies: f.bodies ?? null,
    autocannon: f.autocannon,
    stopped: f.stopped,
    timeline: measured.timeline ?? null, // the round in time, through its recovery period (run/watch/timeline.js)
    // what else took the machine (run/watch/noise.js): { stealPct, foreignCores, workInflation }
    noise: measured.noise ?? null,
    // a request mix's figures per class (result/mix.js), each with its phases
    classes: withPhases(classFigures(f.classes, durationMs), f.classPhases),
    phases: phaseFigures(f.phases) // where the time went (result/phases.js); null without stamps or in the closed loop
  }
  fig.backlog = fig.open ? backlogOf(fig.timeline) : null
  fig.disturbedBy = disturbances(fig)
  fig.disturbed = fig.disturbedBy.length > 0
  // the strategy's own contention (result/trust.js): a finding of the round, never a reason
  fig.contention = contentionOf(fig.noise)
  return fig
}

// One step of a capacity sweep: the offered rate and what came of it. call/n/over: its verdict on the
// target and the requests that decided it (result/capacity.js judgeStep); inDoubt: a failure the
// generator's lag could flip; contention: the strategy's own (a finding, not a disturbance).
export function stepFigures (fig, index, kind, sloMs, share = undefined, confidence = undefined) {
  const l = fig.latency
  const seconds = fig.durationMs / 1000
  const judged = judgeStep(fig, sloMs, { share, confidence })
  return {
    index,
    kind,
    rate: fig.open?.rate ?? null,
    rps: fig.rps,
    p50: l.p50,
    p99: l.p99,
    p99_9: l.p99_9,
    max: l.max,
    pass: judged.call === 'pass',
    call: judged.call,
    n: judged.n,
    over: judged.over,
    inDoubt: judged.inDoubt,
    mark: judged.mark ?? null, // what moved its call: arrivals not as asked (FIT) or halves that contradict (HALVES)
    cls: judged.cls ?? null, // a mix: the class whose verdict decided the step (result/mix.js judgeByClass)
    ...(judged.cls ? { why: judged.why } : {}),
    disturbed: fig.disturbed,
    disturbedBy: fig.disturbedBy,
    contention: fig.contention ?? null,
    noise: fig.noise,
    backlog: fig.backlog ?? null,
    requests: fig.requests,
    peakInFlight: fig.open?.peakInFlight ?? null,
    waited: fig.open?.waited ?? null,
    lagP99: fig.open?.lag?.p99 ?? null,
    lagMax: fig.open?.lag?.max ?? null,
    cpuCores:
      typeof fig.outside?.cpuSeconds === 'number' && seconds > 0 ? roundTo(fig.outside.cpuSeconds / seconds, 3) : null,
    queueLength: fig.telemetry?.gauges?.queueLength ?? null,
    recovery: fig.recovery,
    histograms: fig.histograms
  }
}
