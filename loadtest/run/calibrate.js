// Calibration: the single-thread time of each work spec, measured over several calls in ONE
// long-lived child process, with the JIT tier shift noticed rather than averaged away.
import { execa } from 'execa'
import { join } from 'node:path'
import { ROOT } from '../catalog.js'
import { median, roundTo } from '../result/stats.js'
import { waitMs } from '../../servers/lib/workloads.js'

const CHILD = join(ROOT, 'loadtest', 'run', 'calibrate-child.js')

// Summarise one spec's samples: { spec, calls, medianMs, minMs, maxMs, firstMs, samplesMs, tierShift, method }.
// Up to 30 calls: React rendering keeps getting faster for a dozen calls as V8 tiers up.
export function summarizeCalibration (spec, samplesMs) {
  const first = samplesMs[0] ?? null
  const later = median(samplesMs.slice(1))
  const tierShift = first !== null && later !== null && (later > first * 1.5 || later * 1.5 < first)
  return {
    spec,
    calls: samplesMs.length,
    // The first call runs cold (interpreter, no inline caches): the service time is the median of the
    // calls after it, and the first is kept apart (firstMs) for the tier-shift check.
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
        error: (r.stderr || r.shortMessage || 'calibration failed').split('\n').filter(Boolean).slice(-3).join(' | ')
      }
    }
  }
  return out
}
