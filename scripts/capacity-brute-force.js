// The brute force scripts/validate-capacity.js checks the capacity sweep against: for one strategy and work,
// on one server, a cheap locating search for the knee's neighbourhood, then a fine grid of rates around it,
// each long enough for GRID_REQUESTS requests. One grid serves every percentile asked for (default's p99,
// --quick's p95): a step's requests over the target are counted once, and each percentile judges them.
// Nothing here reads the sweep's steps: the knee is the grid's alone.
import { availableParallelism } from 'node:os'
import { judgeStep } from '../loadtest/result/capacity.js'
import { FLOOR, GRID as RULE_GRID, SWEEP_LIMITS, firstFloorRate, percentileCall } from '../loadtest/result/rules.js'
import { roundTo } from '../loadtest/result/stats.js'
import { faultText, reasonText } from '../loadtest/text/reasons.js'
import { runEntry } from '../loadtest/run/round/runner.js'

// The grid: rates GRID.ratio × apart (the rule book's grid ratio, 8 %: "10 % or less"; the hold rule's excess
// is that ratio − 1), over each percentile's located range (its pass to the first rate at or past its failure),
// each step long enough for GRID.requests requests (the rule book's: the horizon over which the sweep's backlog
// rule projects a slow growth)
// (GRID.requestsSlow under GRID.slowRate req/s) and at least GRID.minSec; extended a rate at a time where a
// percentile shows no knee, up to GRID.extend rates.
export const GRID = Object.freeze({
  ratio: RULE_GRID.ratio,
  requests: RULE_GRID.requests,
  requestsSlow: 300,
  slowRate: 5,
  minSec: SWEEP_LIMITS.minDurationSec, // the sweep's shortest step
  extend: 5
})
// The locating search, for each percentile asked for in turn (strictest first; every locating step counts
// for each): a floor first (the sweep's first floor rate, result/rules.js firstFloorRate, lowered by the
// sweep's floor rule while its requests overlap and it fails; never under LOCATE.minRate), climbing
// LOCATE.climb × until a step fails, then geometric bisection until the failure is within LOCATE.ratio × the
// highest pass. Its steps last for LOCATE.requests requests within [LOCATE.minSec, LOCATE.maxSec]: enough to
// place a knee, never to judge one (the grid does that).
export const LOCATE = Object.freeze({
  climb: 2, ratio: 1.2, requests: 60, minSec: 1.5, maxSec: 15, minRate: 0.2
})
// The most steps one brute force takes (locating and grid).
export const MAX_STEPS = 30

// A step's figures as the brute force keeps them: its rate, requests, those over the target, a fault
// (failed requests, a growing backlog, no answer), how much its requests overlapped (rate × p50) and what
// disturbed it (the lab's noise rule: result/figures.js), kept to read, never used to judge.
export function bruteStep (fig, sloMs) {
  const j = judgeStep(fig, sloMs)
  const fault = faultText(j)
  const { p50, p99 } = fig.latency
  const overlap = p50 > 0 ? roundTo((fig.open.rate * p50) / 1000, 3) : null
  const disturbedBy = fig.disturbedBy?.length ? fig.disturbedBy.map(reasonText) : null
  return { rate: roundTo(fig.open.rate, 3), n: j.n, over: j.over, p50, p99, fault, overlap, disturbedBy }
}

// Does a step hold the target at a percentile (`share` of requests allowed over it): no fault, and at most
// that share observed over the target.
export function holdsAt (step, share) {
  return !step.fault && step.n > 0 && typeof step.over === 'number' && step.over / step.n <= share
}

// Is a step shown to fail at a percentile: a fault, or its requests over the target show the percentile
// above it by the sweep's own binomial rule (result/capacity.js percentileCall, 95 %). A step over the
// share but not shown above it (8 of 606 at p99: 1.3 %, as likely from a p99 within the target) is
// neither: the knee lies in a band (kneeBandOf).
export function failsAt (step, share) {
  return Boolean(step.fault) || !(step.n > 0) || percentileCall(step.n, step.over ?? step.n, { share }) === 'fail'
}

// Two grid rates are neighbours when they are at most one grid step apart (a grid of two located ranges
// can have a gap between them). Rates are kept to 3 decimals: 1 % of slack, well under the 8 % step.
const neighbours = (a, b) => b.rate / a.rate <= GRID.ratio * 1.01

// A grid's steps at the same rate as one step, their requests and those over the target summed (a rate
// measured again), sorted by rate.
export function pooledGrid (grid) {
  const byRate = new Map()
  for (const g of grid) {
    const key = roundTo(g.rate, 3)
    const had = byRate.get(key)
    byRate.set(key, had
      ? { ...had, n: had.n + g.n, over: had.over + g.over, fault: had.fault ?? g.fault, steps: had.steps + 1 }
      : { ...g, steps: 1 })
  }
  return [...byRate.values()].sort((a, b) => a.rate - b.rate)
}

// The highest step of a grid (pooled, sorted by rate) that holds by `ok` with the next one failing by
// `bad`, and that next one; null when none does.
function holdThenFail (sorted, share, ok = holdsAt, bad = (s, sh) => !holdsAt(s, sh)) {
  for (let i = sorted.length - 2; i >= 0; i--) {
    if (ok(sorted[i], share) && bad(sorted[i + 1], share)) return [sorted[i], sorted[i + 1]]
  }
  return null
}

// The knee of a grid at a percentile: the highest rate that holds with the next grid rate (one grid step
// above it) failing; null when the grid shows none.
export function kneeOf (grid, share) {
  const pair = holdThenFail(pooledGrid(grid), share)
  return pair && neighbours(...pair) ? pair[0].rate : null
}

// The knee as the grid's evidence places it: from kneeOf's (its share over the target within the
// percentile's, the next rate's over it) to the highest rate not shown to fail with the next rate shown
// to fail (failsAt: the sweep's binomial rule). { lo, hi }, or null when neither shows a knee.
export function kneeBandOf (grid, share) {
  const strict = kneeOf(grid, share)
  const pair = holdThenFail(pooledGrid(grid), share, (s, sh) => !failsAt(s, sh), failsAt)
  const lenient = pair && neighbours(...pair) ? pair[0].rate : null
  if (strict === null && lenient === null) return null
  return { lo: Math.min(strict ?? lenient, lenient ?? strict), hi: Math.max(strict ?? lenient, lenient ?? strict) }
}

// Where the locating steps put the knee: { pass, fail } once a failure is within LOCATE.ratio × the highest
// pass below it; { pass: null, fail } when a floor whose requests did not overlap failed (nothing holds
// below it) or the rate fell under LOCATE.minRate; else { next } (the next rate to try).
export function locate (steps, { serviceMs, share }) {
  if (!steps.length) return { next: firstFloorRate(serviceMs) }
  const held = steps.filter((s) => holdsAt(s, share)).map((s) => s.rate)
  if (!held.length) {
    const low = steps.reduce((a, s) => (s.rate < a.rate ? s : a))
    const overlapped = low.overlap === null || low.overlap > FLOOR.overlap
    const fit = firstFloorRate(low.p50) ?? 0 // the rate where its p50 would just not overlap
    const next = overlapped ? Math.min(low.rate / FLOOR.dropMin, Math.max(fit, low.rate / FLOOR.dropMax)) : null
    if (next === null || next < LOCATE.minRate) return { pass: null, fail: low.rate }
    return { next }
  }
  const lowPass = Math.min(...held)
  const fails = steps.filter((s) => !holdsAt(s, share) && s.rate > lowPass).map((s) => s.rate)
  if (!fails.length) return { next: Math.max(...held) * LOCATE.climb }
  const fail = Math.min(...fails)
  const pass = Math.max(...held.filter((r) => r < fail))
  if (fail / pass <= LOCATE.ratio) return { pass, fail }
  return { next: Math.sqrt(pass * fail) }
}

// The grid's planned rates: GRID.ratio × apart from the lowest located pass, covering each percentile's located
// range (its pass to the first rate at or past its failure), and nothing between ranges that do not meet.
export function gridRates (ranges) {
  const base = Math.min(...ranges.map((r) => r.pass))
  const k = (rate) => Math.log(rate / base) / Math.log(GRID.ratio)
  const ks = new Set()
  for (const { pass, fail } of ranges) {
    for (let i = Math.floor(k(pass) + 1e-9); i <= Math.ceil(k(fail) - 1e-9); i++) ks.add(i)
  }
  return [...ks].sort((a, b) => a - b).map((i) => base * GRID.ratio ** i)
}

// The next grid rate once the planned ones ran, for the first percentile that shows no knee: one grid step
// above its highest hold-then-fail pair when a gap splits it, else above the grid when its top rate holds,
// or below it when its bottom one fails; null when every percentile shows a knee.
export function extendGrid (grid, shares) {
  const sorted = pooledGrid(grid)
  for (const share of shares) {
    const pair = holdThenFail(sorted, share)
    if (pair && neighbours(...pair)) continue
    if (pair) return pair[0].rate * GRID.ratio
    if (holdsAt(sorted.at(-1), share)) return sorted.at(-1).rate * GRID.ratio
    if (!holdsAt(sorted[0], share)) return sorted[0].rate / GRID.ratio
  }
  return null
}

// How long a step lasts (s): locating steps for LOCATE.requests, grid steps for GRID.requests.
export function stepSec (rate, kind) {
  const sec = (n, lo, hi) => Math.min(hi, Math.max(lo, Math.ceil((n / rate) * 10) / 10))
  if (kind === 'locate') return sec(LOCATE.requests, LOCATE.minSec, LOCATE.maxSec)
  return sec(rate < GRID.slowRate ? GRID.requestsSlow : GRID.requests, GRID.minSec, Infinity)
}

// The next step of a brute force from its steps so far (bruteStep's, each with its `kind`): { rate, kind }
// or null when done, and where each percentile was located ({ [share]: { pass, fail } }, once it is). Each
// percentile is located in turn, strictest first, on every locating step; the grid covers each located
// range, then is extended while a percentile shows no knee (not one that failed down to a true floor: it
// has none).
export function nextStep (steps, { serviceMs, shares }) {
  const order = [...shares].sort((a, b) => a - b)
  const located = {}
  if (steps.length >= MAX_STEPS) return { rate: null, located }
  const locating = steps.filter((s) => s.kind === 'locate')
  for (const share of order) {
    const at = locate(locating, { serviceMs, share })
    if (at.next) return { rate: at.next, kind: 'locate', located }
    located[share] = at
  }
  const found = order.map((share) => located[share]).filter((at) => at.pass !== null)
  if (!found.length) return { rate: null, located }
  const planned = gridRates(found)
  const grid = steps.filter((s) => s.kind === 'grid')
  if (grid.length < planned.length) return { rate: planned[grid.length], kind: 'grid', located }
  const open = order.filter((share) => located[share].pass !== null)
  const more = grid.length - planned.length < GRID.extend ? extendGrid(grid, open) : null
  return { rate: more, kind: 'grid', located }
}

// The brute force as a sweep the runner can drive (run/round/runner.js sweepRounds). `state` keeps its
// steps and where it located each percentile, for the caller.
function bruteSweep ({ serviceMs, sloMs, shares }, state) {
  const kinds = []
  let planned = null
  return {
    kinds,
    describe: () => ({ rule: 'brute force (scripts/capacity-brute-force.js)', sloMs, targetsMs: [sloMs], shares, budget: null }),
    durationFor: () => planned,
    next (history) {
      state.steps = history.map((h, i) => ({ ...bruteStep(h.figures, sloMs), kind: kinds[i] }))
      const { rate, kind, located } = nextStep(state.steps, { serviceMs, shares })
      state.located = located
      if (rate === null) return null
      kinds.push(kind)
      planned = stepSec(rate, kind)
      return rate
    }
  }
}

// One brute force: the strategy's server started once (the capacity experiment's `entry` and `load`), the
// locating and grid steps measured in turn. Returns { located: { [share]: { pass, fail } }, locate, grid,
// knees: { [share]: rate|null }, seconds }.
export async function runBruteForce ({ entry, load, calibration, sloMs, shares, signal, progress }) {
  const state = {}
  const serviceMs = calibration[entry.work].serviceMs
  const brute = { ...entry, sweep: () => bruteSweep({ serviceMs, sloMs, shares }, state) }
  const t0 = Date.now()
  const record = await runEntry(brute, load, { signal, progress, calibration })
  if (record.failure) throw new Error(`brute force: ${record.failure.reason}`)
  const steps = state.steps ?? []
  const grid = steps.filter((s) => s.kind === 'grid').sort((a, b) => a.rate - b.rate)
  return {
    located: state.located ?? null,
    locate: steps.filter((s) => s.kind === 'locate'),
    grid,
    // a percentile whose floor failed where requests did not overlap: no knee, whatever the grid shows
    knees: Object.fromEntries(shares.map((share) => [
      share, state.located?.[share]?.pass === null ? null : kneeOf(grid, share)
    ])),
    cores: availableParallelism(),
    seconds: roundTo((Date.now() - t0) / 1000, 1)
  }
}
