// The cells of a validation part and what each should cost on the 2-core reference VM, before anything runs:
// scripts/validate-capacity.js prints them, and the lead plans quiet-machine time from them. A model, not a
// measurement: service times as calibrated there, a strategy's capacity from its per-request start cost, and
// the brute force's and the sweep's step counts from their rules (docs/capacity.md "Checked against brute
// force"). A cell's real seconds are in its summary row.
import { GRID, LOCATE, stepSec } from './capacity-brute-force.js'
import { BUDGET, SWEEP_LIMITS } from '../loadtest/result/rules.js'

// Service time of a work (ms): loop:N about 8.2e-7 ms an iteration (loop:1e7 calibrates at 8.2 ms there),
// a sleep its own length; null for a work the model does not know (its cells print no estimate).
const LOOP_MS = 8.2e-7
export function serviceMsOf (work) {
  const [kind, arg] = String(work).split(':')
  if (kind === 'loop') return Number(arg) * LOOP_MS
  if (kind === 'sleep-sync') return Number(arg)
  return null
}

// Each strategy's capacity at p99 ≤ 5 service times, req/s, on 2 cores: `share` of its cores' ideal, a
// start cost per request (ms: a fork 40–60, a thread 10–30) on top of the work, and the floor latency
// (a lone request, ms) that must fit the target (5 service times) for any rate to hold.
const STRATEGY = {
  simple: { cores: 1, share: 0.9, startMs: 0.25, floorMs: (s) => s + 1 },
  cluster: { cores: 2, share: 0.8, startMs: 0.25, floorMs: (s) => s + 1 },
  'queued-threads': { cores: 2, share: 0.85, startMs: 0.25, floorMs: (s) => s + 1 },
  'queued-processes': { cores: 2, share: 0.85, startMs: 0.25, floorMs: (s) => s + 1 },
  'worker-per-request': { cores: 2, share: 0.5, startMs: 30, floorMs: (s) => 1.3 * (s + 20) },
  'cluster-threads': { cores: 2, share: 0.5, startMs: 30, floorMs: (s) => 1.3 * (s + 20) },
  'child-process': { cores: 2, share: 0.6, startMs: 50, floorMs: (s) => 1.5 * s + 100 }
}
export function capacityOf (server, serviceMs) {
  const m = STRATEGY[server]
  if (!m || !(serviceMs > 0)) return undefined
  if (m.floorMs(serviceMs) > 5 * serviceMs) return null // "cannot meet": the floor is over the target
  return (m.share * m.cores * 1000) / (serviceMs + m.startMs)
}

// Boot, warm-up and calibration of one server run (s), and the cold calibration of a per-request start.
const BOOT_SEC = 12
const TIMEOUT_SEC = 10
const STEP = BUDGET.stepOverheadSec

// The brute force's expected seconds: the locating floor and climb, two bisections, then about 4.5 grid
// rates (the located bracket is within 1.2 ×: four rates 8 % apart, and half an extension on average);
// a strategy that cannot meet the target, three floor steps.
export function bruteSec (server, work) {
  const s = serviceMsOf(work)
  const c = capacityOf(server, s)
  if (c === undefined) return null
  const floor = LOCATE.floorFirst / s
  const locateStep = (r) => stepSec(r, 'locate') + STEP
  // a strategy with a start cost saturates at its first floors: their requests time out (10 s) first
  const saturated = STRATEGY[server].startMs > 1 ? 2 * (TIMEOUT_SEC + STEP) : 0
  if (c === null) return BOOT_SEC + 3 * locateStep(floor) + saturated
  const climbs = Math.max(0, Math.ceil(Math.log(c / floor) / Math.log(LOCATE.climb)))
  let sec = BOOT_SEC
  for (let i = 0; i <= climbs; i++) sec += locateStep(floor * LOCATE.climb ** i)
  if (floor > c) sec += saturated
  sec += 2 * locateStep(c)
  const gridStep = Math.max(GRID.minSec, (c < GRID.slowRate ? GRID.requestsSlow : GRID.requests) / c) + STEP
  return Math.round(sec + 4.5 * gridStep)
}

// The sweep's expected seconds: its steps (about 12 in default, 8 in --quick) of its sample's length
// within its caps, bounded by its budget; a strategy that cannot meet the target, its floor steps.
export function sweepSec (server, work, mode) {
  const s = serviceMsOf(work)
  const c = capacityOf(server, s)
  if (c === undefined) return null
  const q = mode === 'quick'
  const budget = q ? 32 : SWEEP_LIMITS.budgetSec
  const { minDurationSec, maxStepSec } = SWEEP_LIMITS
  const [n, minSec, capSec, steps] = q ? [59, 0.5, 7.5, 8] : [299, minDurationSec, 3 * maxStepSec, 12]
  const rate = c ?? LOCATE.floorFirst / s / 2
  const step = Math.min(capSec, Math.max(minSec, n / rate)) + STEP
  // saturated floors (a start cost): their timeouts come on top of the budget's planned lengths
  const saturated = STRATEGY[server].startMs > 1 && LOCATE.floorFirst / s > (c ?? 0) ? 2 * (TIMEOUT_SEC + STEP) : 0
  return Math.round(BOOT_SEC + saturated + Math.min(budget, (c === null ? 3 : steps) * step))
}

// The cells of a part (work by work, each strategy's modes together, so they share its brute force), each
// with its expected seconds: the sweep's, and the brute force's on the first cell of its (strategy, work).
export function cellsOf ({ servers, works, modes }) {
  const cells = []
  for (const work of works) {
    for (const server of servers) {
      modes.forEach((mode, i) => {
        const sweep = sweepSec(server, work, mode)
        const brute = i === 0 ? bruteSec(server, work) : 0
        cells.push({ server, work, mode, expectedSec: sweep === null || brute === null ? null : sweep + brute })
      })
    }
  }
  return cells
}

// A duration as "3 min 27 s"; "?" for none.
export function fmtSec (sec) {
  if (!(sec >= 0)) return '?'
  const m = Math.floor(sec / 60)
  return m ? `${m} min ${Math.round(sec - 60 * m)} s` : `${Math.round(sec)} s`
}
