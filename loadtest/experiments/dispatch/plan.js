// Experiment `dispatch`, its plan: the settings (defaults, --quick), the cases in study order, calls and
// runs per case, the expected wall time, and each case's key.
import { availableParallelism } from 'node:os'
import { MODES, UNPOOLED } from '../../channels/index.js'

// The pooled modes (every mode but those on the main thread).
export const POOLED = MODES.filter((m) => !UNPOOLED.includes(m))

export const defaults = Object.freeze({
  runs: 10,
  workers: [1, 4, 8, 16],
  costs: [0, 1, 3, 5, 10],
  payloads: [30, 1e4, 1e5, 1e6],
  payloadCost: 10, // the payload sweep runs at this cost, as the study did
  callsBase: 1000, // calls = callsBase when the cost is 0, else floor(callsBase / cost)
  startupRuns: null, // pool start-ups measured per mode and worker count (null: runs)
  // Long cases (their hook alone spins calls × cost / workers >= longCaseMs: main and 1 worker with a
  // cost) run min(runs, longCaseRuns) times, to keep the full run to a few minutes. Their time is
  // ~1000 ms of spinning by construction and varies little; longCaseMs: Infinity runs every case
  // `runs` times, as the study did.
  longCaseMs: 500,
  longCaseRuns: 3,
  modes: MODES
})

export const quick = Object.freeze({
  runs: 1,
  workers: [1, 2],
  costs: [0, 1],
  payloads: [30, 1e4],
  payloadCost: 1,
  callsBase: 100,
  startupRuns: 1
})

// The options this experiment reads, merged: defaults, then quick (opts.quick), then opts.
export function resolveOptions (opts = {}) {
  const o = { ...defaults, ...(opts.quick ? quick : {}) }
  for (const key of Object.keys(defaults)) if (opts[key] !== undefined && opts[key] !== null) o[key] = opts[key]
  const list = (name, check, rule) => {
    const v = o[name]
    if (!Array.isArray(v) || v.length === 0 || !v.every(check)) {
      throw new RangeError(`dispatch: ${name}: expected a non-empty list of ${rule}, got ${JSON.stringify(v)}`)
    }
  }
  list('workers', (n) => Number.isInteger(n) && n >= 1 && n <= 256, 'integers from 1 to 256')
  list('costs', (n) => Number.isFinite(n) && n >= 0 && n <= 1000, 'numbers of ms from 0 to 1000')
  list('payloads', (n) => Number.isInteger(n) && n >= 1 && n <= 64e6, 'integers of bytes from 1 to 64e6')
  list('modes', (m) => MODES.includes(m), MODES.join(' | '))
  for (const [name, min, max] of [
    ['runs', 1, 1000],
    ['callsBase', 1, 1e7]
  ]) {
    if (!Number.isInteger(o[name]) || o[name] < min || o[name] > max) {
      throw new RangeError(
        `dispatch: ${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(o[name])}`
      )
    }
  }
  if (!(Number.isFinite(o.payloadCost) && o.payloadCost >= 0 && o.payloadCost <= 1000)) {
    throw new RangeError(
      `dispatch: payloadCost: expected a number of ms from 0 to 1000, got ${JSON.stringify(o.payloadCost)}`
    )
  }
  o.startupRuns ??= o.runs
  if (o.longCaseRuns !== null && (!Number.isInteger(o.longCaseRuns) || o.longCaseRuns < 1)) {
    throw new RangeError(
      `dispatch: longCaseRuns: expected a positive integer or null, got ${JSON.stringify(o.longCaseRuns)}`
    )
  }
  if (!(typeof o.longCaseMs === 'number' && o.longCaseMs >= 0)) {
    throw new RangeError(
      'dispatch: longCaseMs: expected a non-negative number (Infinity: no long cases), ' +
        `got ${JSON.stringify(o.longCaseMs)}`
    )
  }
  if (!Number.isInteger(o.startupRuns) || o.startupRuns < 1) {
    throw new RangeError(`dispatch: startupRuns: expected a positive integer, got ${JSON.stringify(o.startupRuns)}`)
  }
  return o
}

// Calls per case: the study keeps the hook's total CPU time constant.
export function callsFor (costMs, callsBase = 1000) {
  return costMs === 0 ? callsBase : Math.max(1, Math.floor(callsBase / costMs))
}

// The cases in study order: each cost with the smallest payload, then the payload sweep at payloadCost.
export function cases (o) {
  const out = []
  const seen = new Set()
  const add = (costMs, payloadBytes) => {
    const k = `${costMs}/${payloadBytes}`
    if (seen.has(k)) return
    seen.add(k)
    out.push({ costMs, payloadBytes, calls: callsFor(costMs, o.callsBase) })
  }
  const [first, ...rest] = o.payloads
  for (const c of o.costs) add(c, first)
  for (const p of rest) add(o.payloadCost, p)
  return out
}

// Runs of one case: `runs`, or fewer for a long case (see longCaseMs in the defaults).
export function runsFor (o, c, workers) {
  const spinMs = (c.calls * c.costMs) / Math.max(1, workers)
  return o.longCaseRuns !== null && spinMs >= o.longCaseMs ? Math.min(o.runs, o.longCaseRuns) : o.runs
}

// Rough expected wall time of a run in ms: the hook's spin time (threads beyond the cores do not
// help much here, measured) plus allowances per call, per payload byte and per thread started.
export function estimateMs (opts) {
  const o = resolveOptions(opts)
  const cores = availableParallelism()
  let ms = 0
  for (const c of cases(o)) {
    const spin = c.calls * c.costMs
    for (const m of UNPOOLED) if (o.modes.includes(m)) ms += runsFor(o, c, 0) * (spin * 1.05 + c.calls * 0.02)
    for (const w of o.workers) {
      const perRun = spin / Math.min(w, cores) + c.calls * 0.05 + (c.payloadBytes * c.calls) / 5e6
      for (const m of POOLED) if (o.modes.includes(m)) ms += runsFor(o, c, w) * perRun
    }
  }
  for (const w of o.workers) ms += POOLED.filter((m) => o.modes.includes(m)).length * o.startupRuns * (40 + 15 * w)
  return ms
}

export const key = (mode, workers, costMs, payloadBytes) => `dispatch/${mode}/w${workers}/c${costMs}/p${payloadBytes}`
