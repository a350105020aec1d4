// Calibration: the single-thread time of each work spec, measured over several calls in ONE
// long-lived child process, with the JIT tier shift noticed rather than averaged away.
import { loadExeca } from '../../result/lazy.js'
import { join } from 'node:path'
import { ROOT } from '../../catalog.js'
import { median, percentile, roundTo } from '../../result/stats.js'
import { CALIBRATION, TRUST } from '../../result/rules.js'
import { waitMs } from '../../../servers/lib/workloads.js'
import { childEndText, nodeExitText } from '../../text/exit.js'

const CHILD = join(ROOT, 'loadtest', 'run', 'watch', 'calibrate-child.js')

// The warm calls and the percentile of them that is the service time (the rule book's CALIBRATION).
const { warmShare: WARM_SHARE, servicePercentile: SERVICE_PERCENTILE } = CALIBRATION

// The robust estimate of a spec's warm calls: { serviceMs, spreadPct, warmCalls, estimate }; spreadPct is
// the warm calls' p90 over their p10, less 1, in percent.
function warmEstimate (samplesMs) {
  const skip = Math.max(1, Math.floor(samplesMs.length * (1 - WARM_SHARE)))
  const warm = (samplesMs.length > skip ? samplesMs.slice(skip) : samplesMs).slice().sort((a, b) => a - b)
  if (warm.length === 0) return { serviceMs: null, spreadPct: null, warmCalls: 0, estimate: null }
  const low = percentile(warm, SERVICE_PERCENTILE)
  const high = percentile(warm, 100 - SERVICE_PERCENTILE)
  return {
    serviceMs: roundTo(low, 3),
    spreadPct: low > 0 ? roundTo((high / low - 1) * 100, 1) : null,
    warmCalls: warm.length,
    estimate: `p${SERVICE_PERCENTILE} of the warm calls (the last ${warm.length} of ${samplesMs.length})`
  }
}

// Summarise one spec's samples: { spec, calls, serviceMs, spreadPct, warmCalls, estimate, medianMs, minMs,
// maxMs, firstMs, samplesMs, tierShift, method }. serviceMs (warmEstimate) is the service time the lab uses.
export function summarizeCalibration (spec, samplesMs) {
  const first = samplesMs[0] ?? null
  const later = median(samplesMs.slice(1))
  const tierShift = first !== null && later !== null && (later > first * 1.5 || later * 1.5 < first)
  return {
    spec,
    calls: samplesMs.length,
    ...warmEstimate(samplesMs),
    // The first call runs cold (interpreter, no inline caches): the median of the calls after it, shown
    // beside the service time; the first is kept apart (firstMs) for the tier-shift check.
    medianMs: roundTo(samplesMs.length >= 3 ? later : median(samplesMs), 3),
    minMs: samplesMs.length ? roundTo(Math.min(...samplesMs), 3) : null,
    maxMs: samplesMs.length ? roundTo(Math.max(...samplesMs), 3) : null,
    firstMs: roundTo(first, 3),
    samplesMs: samplesMs.map((s) => roundTo(s, 3)),
    tierShift,
    method: 'measured'
  }
}

// The sleep kinds need no measuring: their service time is the delay itself.
function declared (spec) {
  const ms = waitMs(spec)
  if (ms === null) return null
  return {
    spec,
    calls: 0,
    serviceMs: ms,
    spreadPct: 0,
    warmCalls: 0,
    estimate: 'declared: the delay itself',
    medianMs: ms,
    minMs: ms,
    maxMs: ms,
    firstMs: ms,
    samplesMs: [],
    tierShift: false,
    method: 'declared'
  }
}

// Calibrate specs (bounded: about totalBudgetMs over all, at most maxCalls each, at least 2 each while
// the budget lasts; the child is killed a minute after the budget, its specs then carry an error);
// resolves { [spec]: summary }, with { spec, error } for a spec that could not be measured.
// `tasks` maps a --task spec to its description (servers/lib/task-module.js describeTask().task);
// `execPath` is the runtime that runs the calibration (the servers' under --runtime), `execArgs` what it
// needs before the script (Deno's `run -A`).
export async function calibrate (
  specs,
  { maxCalls = 30, totalBudgetMs = 20000, signal, tasks = {}, execPath = process.execPath, execArgs = [] } = {}
) {
  const out = {}
  const measure = []
  for (const spec of [...new Set(specs)].filter(Boolean)) {
    const d = declared(spec)
    if (d) out[spec] = d
    else measure.push(spec)
  }
  if (measure.length === 0) return out
  const plan = { specs: measure, tasks, maxCalls, totalBudgetMs }
  const execa = await loadExeca()
  const r = await execa(execPath, [...execArgs, CHILD], {
    env: { ...process.env },
    reject: false,
    cancelSignal: signal,
    timeout: totalBudgetMs + 60000,
    input: JSON.stringify(plan)
  })
  let samples = null
  try {
    samples = JSON.parse(r.stdout)
  } catch {}
  for (const spec of measure) {
    if (samples?.[spec]?.length) out[spec] = summarizeCalibration(spec, samples[spec])
    else {
      out[spec] = {
        spec,
        error: nodeExitText(r, 'the work') ??
          (r.stderr ? r.stderr.split('\n').filter(Boolean).slice(-3).join(' | ') : childEndText(r, 'the work'))
      }
    }
  }
  return out
}

// Calibrate a spec again (a short run: after each server of a capacity sweep) and hold it against the
// calibration the lab used: { serviceMs, calls, drift, bound, holds } (drift: the new service time over
// the used one, less 1; holds: |drift| ≤ TRUST.calibrationDrift); null for a declared or missing calibration.
// `tasks`, `execPath` and `execArgs` as calibrate's: a --task spec is measured again only with its task.
export async function recheckCalibration (used, {
  signal, tasks, execPath, execArgs, maxCalls = 15, totalBudgetMs = 2000
} = {}) {
  if (!used || used.method !== 'measured' || !(used.serviceMs > 0)) return null
  const opts = { maxCalls, totalBudgetMs, signal, tasks, execPath, execArgs }
  const again = (await calibrate([used.spec], opts))[used.spec]
  const bound = TRUST.calibrationDrift
  if (!(again?.serviceMs > 0)) return { serviceMs: null, calls: 0, drift: null, bound, holds: false }
  const drift = roundTo(again.serviceMs / used.serviceMs - 1, 3)
  const holds = Math.abs(drift) <= bound
  return { serviceMs: again.serviceMs, calls: again.calls, drift, bound, holds }
}

// A strategy that starts a process or thread per request (catalog.js `starts`) runs its work once, cold
// (a fresh JIT, no inline caches), in each: its work time is held against COLD_CALLS such calls, each the
// first and only one in a fresh process or thread, their median. Not its start-up: only the work's time.
export const COLD_CALLS = 5

// Calibrate a spec cold, as `start` ('process' or 'thread') runs it: { spec, start, calls, serviceMs,
// samplesMs, estimate, method: 'cold' }, or { spec, start, error }. Processes are forked one after another
// (execPath, like the servers); threads are started one after another inside one calibration child.
export async function calibrateCold (
  spec, start, { calls = COLD_CALLS, signal, tasks = {}, execPath = process.execPath, execArgs = [] } = {}
) {
  const execa = await loadExeca()
  const run = (plan) => execa(execPath, [...execArgs, CHILD], {
    env: { ...process.env }, reject: false, cancelSignal: signal, timeout: 120000, input: JSON.stringify(plan)
  })
  const samplesMs = []
  let last = null
  const outcomes = start === 'thread'
    ? [await run({ coldThreads: calls, spec, tasks })]
    : []
  if (start !== 'thread') {
    const once = { specs: [spec], tasks, maxCalls: 1, totalBudgetMs: 0 }
    for (let i = 0; i < calls && !signal?.aborted; i++) outcomes.push(await run(once))
  }
  for (const r of outcomes) {
    last = r
    try {
      samplesMs.push(...JSON.parse(r.stdout)[spec])
    } catch {}
  }
  if (!samplesMs.length) {
    const why = last ? childEndText(last, 'the work') : 'cold calibration failed'
    return { spec, start, error: why }
  }
  return {
    spec,
    start,
    calls: samplesMs.length,
    serviceMs: roundTo(median(samplesMs), 3),
    samplesMs: samplesMs.map((s) => roundTo(s, 3)),
    estimate: `median of ${samplesMs.length} calls, each the first in a fresh ${start}`,
    method: 'cold'
  }
}

// The service time a round's work time is held against (its work inflation): a strategy that starts a
// process or thread per request (`starts`) against the cold calibration of that kind (cal.cold[starts]),
// every other against the warm one; the warm one where no cold calibration was made.
export function noiseServiceMs (cal, starts = null) {
  const cold = starts ? cal?.cold?.[starts]?.serviceMs : null
  if (cold > 0) return { serviceMs: cold, against: `cold ${starts}` }
  const warm = cal?.serviceMs ?? cal?.medianMs
  return { serviceMs: warm > 0 ? warm : null, against: 'warm' }
}
