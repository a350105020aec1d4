// The ruler's words (result/ruler.js is its data): its figures' names, one line for a machine, the rows
// of its table (start, end, end over start, spread) and the one line that says what is wrong with a ruler
// no machine gives.
import { RULER_BOUNDS, RULER_FIGURES, rulerRatios } from '../result/ruler.js'
import { MISSING, fixedGrouped, msGrouped, numGrouped } from './format.js'

// Each figure's name in a table, and its unit.
export const RULER_NAMES = Object.freeze({
  'single.loop': 'loop, ms per call (one thread)',
  'single.hash': 'hash, ms per call (one thread)',
  'single.json': 'JSON, ms per call (one thread)',
  'single.render': 'render, ms per call (one thread)',
  'cores.effective': 'cores given (speedup at the most threads)',
  'loopback.rttMs': 'loopback round trip, ms (one connection)',
  'loopback.rps': 'loopback req/s',
  'spawn.workerMs': 'start a Worker, ms',
  'spawn.processMs': 'start a child node, ms',
  timerLagMs: 'idle timer lag, ms'
})

const at = (reading, path) => path.split('.').reduce((x, k) => x?.[k], reading)

// One figure's value as the tables write it: ms by their size, req/s whole, cores with two decimals.
export function rulerValue (name, f) {
  if (!f || typeof f.value !== 'number') return MISSING
  if (name === 'cores.effective') return fixedGrouped(f.value, 2)
  if (name === 'loopback.rps') return numGrouped(Math.round(f.value))
  return msGrouped(f.value)
}

// A figure with its spread: "0.512 ±3.1 %".
export function rulerValueSpread (name, f) {
  const v = rulerValue(name, f)
  return v === MISSING ? v : `${v} ±${fixedGrouped(f.spreadPct, 1)} %`
}

// The ruler of one machine in one line (a reading, or a ruler: its start): its cores, single-thread loop,
// loopback and spawn, e.g. "2 cores offered, 1.96 given · loop 0.512 ms · loopback 0.081 ms, 9,800 req/s
// · Worker 21.3 ms, node 48.2 ms · timer lag 0.071 ms". MISSING without one.
export function rulerLine (x) {
  const r = x && 'start' in x ? x.start : x
  if (!r?.cores) return MISSING
  return [
    `${r.cores.offered} cores offered, ${rulerValue('cores.effective', r.cores.effective)} given`,
    `loop ${rulerValue('single.loop', r.single?.loop)} ms`,
    `loopback ${rulerValue('loopback.rttMs', r.loopback?.rttMs)} ms, ` +
      `${rulerValue('loopback.rps', r.loopback?.rps)} req/s`,
    `Worker ${rulerValue('spawn.workerMs', r.spawn?.workerMs)} ms, ` +
      `node ${rulerValue('spawn.processMs', r.spawn?.processMs)} ms`,
    `timer lag ${rulerValue('timerLagMs', r.timerLagMs)} ms`
  ].join(' · ')
}

// The ruler's table: a header and one row per figure [name, start, end, end / start, beyond?]; the end
// columns are MISSING when the run ended before its end reading.
export function rulerRows (ruler) {
  const ratios = ruler.end ? rulerRatios(ruler.start, ruler.end) : {}
  const rows = RULER_FIGURES.map((name) => {
    const r = ratios[name]
    return [
      RULER_NAMES[name],
      rulerValueSpread(name, at(ruler.start, name)),
      ruler.end ? rulerValueSpread(name, at(ruler.end, name)) : MISSING,
      r?.ratio ? `${fixedGrouped(r.ratio, 3)}×` : MISSING,
      !r
        ? MISSING
        : r.beyond ? `moved (beyond ±${fixedGrouped(r.spreadPct, 1)} %)` : `within ±${fixedGrouped(r.spreadPct, 1)} %`
    ]
  })
  return [['figure', 'start', 'end', 'end / start', 'drift'], ...rows]
}

// The line that marks a run whose ruler moved: which figures, end over start, beyond what spread.
export function rulerMovedLine (ruler) {
  const moved = ruler.drift.filter((d) => d.beyond)
  if (!moved.length) return null
  const each = moved.map((d) => `${d.figure} ${fixedGrouped(d.ratio, 3)}× (±${fixedGrouped(d.spreadPct, 1)} %)`)
  return `The machine moved during the run (end over start, beyond the readings' spread): ${each.join(', ')}`
}

// How the ruler was read, for under its table.
export function rulerMethodLine (ruler) {
  const r = ruler.start
  const threads = r.cores.scaling.map((s) => `${s.threads}: ${fixedGrouped(s.speedup.value, 2)}×`).join(', ')
  const took = ruler.end
    ? `start ${msGrouped(r.durationMs)} ms, end ${msGrouped(ruler.end.durationMs)} ms`
    : `${msGrouped(r.durationMs)} ms; no end reading: the run ended early`
  return `Read before any server started and after the last stopped (${took}); speedup by threads ${threads}; ` +
    `loopback at ${r.loopback.connections} connections.`
}

// Why no machine gives a figure, by what it counts.
const NO_MACHINE = {
  cores: (v) => `no machine gives ${v} cores`,
  ms: (v) => `no machine takes ${v} ms`,
  rps: (v) => `no machine answers ${v} requests/s`,
  count: (v) => `a count is at least 1, not ${v}`,
  pct: (v) => `a spread is never ${v} %`,
  ratio: (v) => `a ratio of two figures is never ${v}`
}

// The one line that says what is wrong with a ruler (result/ruler.js rulerFault), e.g.
// "ruler.start.cores.effective is 0: no machine gives 0 cores".
export function rulerFaultText ({ path, code, value, unit }) {
  const shown = typeof value === 'number' ? String(value) : value === undefined ? 'missing' : JSON.stringify(value)
  if (code === 'missing') return `${path} is ${shown === 'missing' ? 'missing' : shown}: expected an object`
  if (code === 'not-array') return `${path} is ${shown}: expected an array`
  if (code === 'not-number') return `${path} is ${shown}: expected a number`
  if (code === 'too-large' || code === 'too-small') {
    const { min, max } = RULER_BOUNDS[unit] ?? RULER_BOUNDS.ms
    const n = (v) => (v !== 0 && (v < 1e-3 || v >= 1e6) ? v.toExponential() : String(v))
    return `${path} is ${shown}: no machine gives it (a ruler's ${unit ?? 'ms'} figure lies within ${n(min)}–${n(max)})`
  }
  if (code === 'not-string') return `${path} is ${shown}: expected a string`
  if (code === 'not-boolean') return `${path} is ${shown}: expected true or false`
  if (code === 'infinite') return `${path} is ${shown}: no machine gives an infinite figure`
  if (code === 'not-integer') return `${path} is ${shown}: expected a whole number`
  return `${path} is ${shown}: ${(NO_MACHINE[unit] ?? NO_MACHINE.ms)(shown)}`
}

const times = (x) => `${x >= 1e6 ? x.toExponential(2) : fixedGrouped(x, x >= 10 ? 1 : 2)} ×`

// Why a ruler explains nothing (result/ruler-trust.js rulerSetAside's code and figures), as words.
const SET_ASIDE = {
  moved: (w) => 'it moved during its run, by its own two readings (end over start: ' +
    `${w.figures.map((f) => `${f.figure} ${times(f.ratio)}`).join(', ')})`,
  offered: (w) => `it says ${w.offered} cores offered where its machine block says ${w.machine}`,
  scaling: (w) => `its effective cores (${fixedGrouped(w.effective, 2)}) are not its own scaling's speedup at ` +
    `the most threads (${fixedGrouped(w.speedup, 2)}), the same figure`,
  runs: (w) => `its effective cores (${fixedGrouped(w.effective, 2)}) are far under what the report's own runs ` +
    `show: ${w.key} ran ${times(w.shown)} the req/s of one event loop on the same work`
}

// The one line that says a report's ruler was set aside, and why: "B's ruler is set aside: …".
export function setAsideText (letter, why) {
  return `${letter}'s ruler is set aside: ${SET_ASIDE[why.code](why)}; it explains no change, and ` +
    `${letter}'s ratios are judged raw`
}
