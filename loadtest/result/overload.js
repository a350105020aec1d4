// Past capacity: the overload block of a result (reports/README.md "overload") from its steps at
// multiples of the capacity C and its burst, and the rules they are judged by. Pure; run/round/overload.js
// runs the rounds, the experiment (experiments/overload.js) plans them, report/ and compare/ show them.
import { roundTo } from './stats.js'
import { createHistogram, decodeHistogram } from './histogram.js'
import { backlogOf } from './capacity.js'
import { interference } from './trust.js'
import { PAST } from './rules.js'

// Every default of the overload experiment, in one place (the help, the docs and the plan read it).
export const OVERLOAD_DEFAULTS = {
  multiples: [1.5, 2, 3], // the steps, as multiples of C
  patienceTargets: 2, // client patience (its timeout) = this many targets
  minStepSec: 8, // a step lasts at least this long ...
  stepPatiences: 10, // ... and at least this many patiences
  burst: { baseMultiple: 0.7, burstMultiple: 2, beforeSec: 10, burstSec: 5, afterSec: 60 },
  recoveryShare: PAST.recoveryShare, // a window has recovered when this share of it was good ...
  confirmWindows: 5 // ... and the burst round stops once this many windows in a row have
}
// The --quick settings (the test suite's budget): the one step the threshold `goodput` reads (2 × C),
// a 2 s burst after 1 s at 0.7 × C, watched for 6 s (a pool that sheds is back within 1-2 s and then
// confirmed by 2 windows; one that is not back by then is called metastable here, not in a full run).
export const OVERLOAD_QUICK = {
  multiples: [2],
  minStepSec: 2,
  stepPatiences: 5,
  burst: { baseMultiple: 0.7, burstMultiple: 2, beforeSec: 1, burstSec: 2, afterSec: 6 },
  confirmWindows: 2
}

// Client patience for a target (ms).
export function patienceMs (sloMs, settings = OVERLOAD_DEFAULTS) {
  return settings.patienceTargets * sloMs
}

// How long a step lasts (s) and how much of its start is not counted (ms): the queue needs about one
// patience to fill (a client leaves after it), so the first max(1 s, 2 patiences) are left out.
export function stepTiming (sloMs, settings = OVERLOAD_DEFAULTS) {
  const p = patienceMs(sloMs, settings)
  const settleMs = Math.ceil(Math.max(1000, 2 * p) / 1000) * 1000
  const durationSec = Math.max(settings.minStepSec, Math.ceil((settings.stepPatiences * p) / 1000), settleMs / 1000 + 1)
  return { durationSec, settleMs }
}

// The burst's rate profile for capacity C: [{ rate, durationMs }] and when the burst ends (ms).
export function burstPhases (capacityRps, { burst } = OVERLOAD_DEFAULTS) {
  const base = burst.baseMultiple * capacityRps
  const phases = [
    { rate: base, durationMs: burst.beforeSec * 1000 },
    { rate: burst.burstMultiple * capacityRps, durationMs: burst.burstSec * 1000 },
    { rate: base, durationMs: burst.afterSec * 1000 }
  ]
  return { phases, burstEndMs: (burst.beforeSec + burst.burstSec) * 1000 }
}

// Whether a window ({ offered, good, p99 }) has recovered.
export function windowRecovered (w, sloMs, share = OVERLOAD_DEFAULTS.recoveryShare) {
  return Boolean(w) && w.offered > 0 && w.good >= share * w.offered && w.p99 !== null && w.p99 <= sloMs
}

// The recovery of a burst from its whole windows (by due time, windowMs each; a schedule stopped at
// `stoppedAtMs` leaves the window it cut short out): the first window k at or after the burst's end from
// which every whole window to the last one recovered; { ms (from the burst's end to window k; null: not
// recovered), metastable }.
export function recoveryOf (windows, { burstEndMs, sloMs, windowMs, share, stoppedAtMs = null }) {
  const first = Math.ceil(burstEndMs / windowMs)
  const whole = stoppedAtMs === null ? windows.length : Math.min(windows.length, Math.floor(stoppedAtMs / windowMs))
  let k = null
  for (let i = whole - 1; i >= first; i--) {
    if (windowRecovered(windows[i], sloMs, share)) k = i
    else break
  }
  if (k === null) return { ms: null, metastable: true }
  return { ms: Math.max(0, k * windowMs - burstEndMs), metastable: false }
}

// Latency p99 (ms) of windows' encoded histograms added together; null without answers.
function p99Of (windows) {
  const h = createHistogram()
  for (const w of windows) if (w.histogram) h.add(decodeHistogram(w.histogram))
  return h.totalCount > 0 ? Math.round(h.getValueAtPercentile(99)) / 1000 : null
}

// The tree's CPU not spent on good answers: 1 − (work time of the good answers) / (the tree's CPU up to
// idle again); null when the CPU is not known, or when the answers' work exceeds it (the work is not
// CPU, a sleep: nothing to call wasted).
export function wastedCpuShare ({ goodWorkMs, workMs, drainedCpuSeconds }) {
  if (typeof drainedCpuSeconds !== 'number' || drainedCpuSeconds <= 0) return null
  const cpuMs = drainedCpuSeconds * 1000
  if (workMs > PAST.cpuSlack * cpuMs) return null
  return roundTo(Math.min(1, Math.max(0, 1 - goodWorkMs / cpuMs)), 3)
}

// One step's figures from its round (run/round/runner.js measuredRound with its goodput): the counted windows
// (from settleMs on) give goodput, shed share and p99; the whole round its timeouts, backlog and CPU.
function overloadStepOf (round, { multiple, rate, capacityRps, settleMs }) {
  const g = round.goodput
  const counted = g.windows.filter((w) => w.t >= settleMs)
  const seconds = (counted.length * g.windowMs) / 1000
  const sum = (k) => counted.reduce((a, w) => a + w[k], 0)
  const offered = sum('offered')
  const goodputRps = seconds > 0 ? sum('good') / seconds : null
  const backlog = backlogOf(round.timeline)
  return {
    multiple,
    offeredRps: roundTo(rate, 1),
    goodputRps: goodputRps === null ? null : roundTo(goodputRps, 1),
    goodputShare: goodputRps === null || !(capacityRps > 0) ? null : roundTo(goodputRps / capacityRps, 3),
    shedShare: offered > 0 ? roundTo(sum('shed') / offered, 3) : null,
    shedP50: g.shedP50,
    timeouts: g.timeouts,
    timeoutShare: g.offered > 0 ? roundTo(g.timeouts / g.offered, 3) : null,
    p99: p99Of(counted),
    backlog: backlog ? { late: backlog.late, growing: backlog.growing } : null,
    wastedCpuShare: wastedCpuShare(g),
    requests: { offered: g.offered, good: g.good, ok: g.ok, shed: g.shed, timeouts: g.timeouts, errors: g.errors },
    countedSec: seconds,
    // what else took the machine during the step (trust.js interference): its goodput is then the machine's too
    disturbed: interference(round.noise).length > 0
  }
}

// The burst's figures: its recovery and its windows (goodput, shed, p99 per second; histograms kept).
function burstOf (round, { sloMs, burstEndMs, stoppedAtMs, phases, share }) {
  const g = round.goodput
  const recovery = recoveryOf(g.windows, { burstEndMs, sloMs, windowMs: g.windowMs, share, stoppedAtMs })
  return {
    ...recovery,
    burstEndMs,
    stoppedAtMs,
    phases: phases.map((p) => ({ rate: roundTo(p.rate, 1), durationMs: p.durationMs })),
    observedMs: g.windows.length * g.windowMs,
    windows: g.windows.map(({ t, offered, good, shed, timeouts, p99, histogram }) => ({
      t, offered, good, shed, timeouts, p99, histogram
    }))
  }
}

// A step's goodput share of C (overloadStepOf's), from its round.
export function stepGoodputShare (round, { multiple, rate, capacityRps, settleMs }) {
  return overloadStepOf(round, { multiple, rate, capacityRps, settleMs }).goodputShare
}

// The steps past C (and the burst) that something else on the machine disturbed, as a reason ({ code:
// 'overload-disturbed', steps: [{ at: multiple or 'burst', by: interference codes }] }), or none.
export function overloadReasons (o) {
  const rounds = [...(o?.steps ?? []).map((s) => ({ at: s.multiple, round: s.round })),
    ...(o?.burst ? [{ at: 'burst', round: o.burst.round }] : [])]
  const hit = rounds.map((r) => ({ at: r.at, by: interference(r.round?.noise) })).filter((r) => r.by.length > 0)
  return hit.length ? [{ code: 'overload-disturbed', steps: hit }] : []
}

// The overload block of a result from the run record's `overload` (run/round/overload.js); null without one.
// `say`: the words of its rule ({ code: 'overload-rule', settings }: text/reasons.js reasonText); without it, the code.
export function overloadOf (o, say = (x) => x.code) {
  if (!o) return null
  const { capacityRps, settleMs, sloMs } = o
  const steps = o.steps.map((s) =>
    overloadStepOf(s.round, { multiple: s.multiple, rate: s.rate, capacityRps, settleMs }))
  const b = o.burst
  const share = o.settings.recoveryShare
  const { burstEndMs, stoppedAtMs = null, phases } = b ?? {}
  const burst = b ? burstOf(b.round, { sloMs, burstEndMs, stoppedAtMs, phases, share }) : null
  return {
    capacityRps: o.capacityRps === null ? null : roundTo(o.capacityRps, 1),
    capacityFrom: o.capacityFrom,
    sloMs: o.sloMs,
    patienceMs: o.patienceMs,
    stepSec: o.stepSec,
    settleMs: o.settleMs,
    rule: say({ code: 'overload-rule', settings: o.settings }),
    refused: o.refused ?? null,
    steps,
    collapsedAt: o.collapsedAt ?? null,
    recovery: burst
  }
}

// A result's goodput share at a multiple of C (the threshold `goodput` reads 2 ×); null when not run.
export function goodputShareAt (result, multiple = 2) {
  const step = result?.overload?.steps?.find((s) => s.multiple === multiple)
  return step?.goodputShare ?? null
}
