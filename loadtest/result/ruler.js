// The ruler: the machine itself, read by the lab before any server of a run starts and after the last one
// stopped (run/ruler/ measures a reading), and the pure rules on it: its figures, their ratios between two
// readings or two reports, whether the machine moved, and what is wrong with a ruler no machine gives.
// A reading: { at, durationMs, single: { loop, hash, json, render }, cores: { offered, effective, scaling },
// loopback: { rttMs, rps, connections }, spawn: { workerMs, processMs }, timerLagMs }, each figure an
// F = { value, spreadPct, n } (reports/README.md "ruler").
import { percentile } from './stats.js'
import { RULER } from './rules.js'

// The figures a ruler is compared on, by their path in a reading, in the order they are shown.
export const RULER_FIGURES = Object.freeze([
  'single.loop', 'single.hash', 'single.json', 'single.render', 'cores.effective',
  'loopback.rttMs', 'loopback.rps', 'spawn.workerMs', 'spawn.processMs', 'timerLagMs'
])

// The works the ruler times on one thread by name (run/ruler/works.js), as work specs where they are the
// servers' own: a report's calibration of the same kind of work can be held against them (ruler-trust.js).
export const RULER_WORKS = Object.freeze({ loop: 'loop:5e5', render: 'render:3' })

// The rule book's floor of a figure (percent): each figure has its own, from how far it moved on a quiet machine.
export function floorOf (name) {
  return RULER[FLOOR_OF[name]]
}
const FLOOR_OF = {
  'single.loop': 'loop',
  'single.hash': 'hash',
  'single.json': 'json',
  'single.render': 'render',
  'cores.effective': 'cores',
  'loopback.rttMs': 'rtt',
  'loopback.rps': 'rps',
  'spawn.workerMs': 'worker',
  'spawn.processMs': 'process',
  timerLagMs: 'timerLag'
}

// The spread a figure gets (percent): its own, at least the rule book's floor for it.
const spreadOf = (f, name) => Math.max(floorOf(name), f?.spreadPct ?? 0)
const round1 = (x) => Math.round(x * 10) / 10
const sig = (x) => Number(x.toPrecision(4))

// A figure from its samples (each sample one estimate: a batch's mean ms per call, a window's req/s):
// the median, its spread (p90 over p10, less 1, in percent) and the count; null without a sample.
export function rulerFigure (samples) {
  const sorted = samples.filter((x) => Number.isFinite(x) && x >= 0).sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const mid = sorted.length >> 1
  const value = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  const low = percentile(sorted, 10)
  const high = percentile(sorted, 90)
  return { value: sig(value), spreadPct: low > 0 ? round1((high / low - 1) * 100) : 0, n: sorted.length }
}

// The spread of a ratio of two figures (percent): theirs combined, root of the sum of squares, each at
// least the floor.
export function combinedSpread (a, b, name) {
  return round1(Math.hypot(spreadOf(a, name), spreadOf(b, name)))
}

// b over a as a figure (a speedup: the throughput at k threads over that at one): the ratio of the values,
// the two spreads combined, the fewer samples.
export function ratioFigure (a, b) {
  if (!(a?.value > 0) || !(b?.value >= 0)) return null
  return { value: sig(b.value / a.value), spreadPct: combinedSpread(a, b, 'cores.effective'), n: Math.min(a.n, b.n) }
}

const at = (reading, path) => path.split('.').reduce((x, k) => x?.[k], reading)

// The flat figures of one reading: { 'single.loop': F, … } (only those it has).
export function readingFigures (reading) {
  const out = {}
  for (const name of RULER_FIGURES) {
    const f = at(reading, name)
    if (f && typeof f.value === 'number') out[name] = f
  }
  return out
}

// The figures of a ruler: the start reading's, or the mean of the start and the end where both exist
// (its spread the larger of the two, its count both together).
export function rulerFigures (ruler) {
  const start = readingFigures(ruler?.start)
  if (!ruler?.end) return start
  const end = readingFigures(ruler.end)
  const out = {}
  for (const [name, a] of Object.entries(start)) {
    const b = end[name]
    out[name] = b
      ? { value: sig((a.value + b.value) / 2), spreadPct: Math.max(a.spreadPct, b.spreadPct), n: a.n + b.n }
      : a
  }
  return out
}

// The flat figures of a ruler, a reading, or figures already flat.
function figuresOf (x) {
  if (!x || typeof x !== 'object') return {}
  if ('start' in x) return rulerFigures(x)
  if ('single' in x || 'cores' in x) return readingFigures(x)
  return x
}

// Per figure that both have, b over a: { ratio, spreadPct (the two combined), beyond } where beyond says
// the ratio lies outside 1 ± the combined spread (either way, on a log scale); a and b are rulers, readings
// or flat figures. A figure of 0 in a (an idle timer that never lagged) has no ratio (null, not beyond).
export function rulerRatios (a, b) {
  const fa = figuresOf(a)
  const fb = figuresOf(b)
  const out = {}
  for (const name of RULER_FIGURES) {
    if (!fa[name] || !fb[name]) continue
    const spreadPct = combinedSpread(fa[name], fb[name], name)
    const ratio = fa[name].value > 0 ? sig(fb[name].value / fa[name].value) : null
    const bound = 1 + spreadPct / 100
    out[name] = { ratio, spreadPct, beyond: ratio !== null && (ratio > bound || ratio < 1 / bound) }
  }
  return out
}

// Whether the machine of b differs from a's beyond the two rulers' spreads: { changed, figures: [names] }.
export function machineChanged (a, b) {
  const figures = Object.entries(rulerRatios(a, b)).filter(([, r]) => r.beyond).map(([name]) => name)
  return { changed: figures.length > 0, figures }
}

// A run's ruler from its two readings (end null: the run ended before it was read again): the drift of
// each figure, end over start, and whether any moved beyond its spread.
export function rulerOf (start, end = null) {
  const drift = end
    ? Object.entries(rulerRatios(start, end)).map(([figure, r]) => ({ figure, ...r }))
    : []
  return { start, end, drift, moved: drift.some((d) => d.beyond) }
}

// What is wrong with a ruler: the first figure no machine gives, { path, code, value, unit }, or null.
// code: 'missing' (not there, or not the object it should be), 'not-array', 'not-number', 'too-large',
// 'too-small' (past RULER_BOUNDS), 'infinite', 'negative',
// 'zero', 'not-integer', 'not-boolean', 'not-string'; unit: what the figure counts ('cores', 'ms', 'rps',
// 'count', 'pct', 'ratio'), so that text/ruler.js can say why no machine gives it.
export function rulerFault (ruler) {
  const faults = []
  const fault = (path, code, value, unit = null) => faults.push({ path, code, value, unit })
  const obj = (x, path) => {
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) return true
    fault(path, 'missing', x)
    return false
  }
  if (!obj(ruler, 'ruler')) return faults[0]
  readingFault(ruler.start, 'ruler.start', { obj, fault })
  if (ruler.end !== null && !faults.length) readingFault(ruler.end, 'ruler.end', { obj, fault })
  if (!faults.length && !Array.isArray(ruler.drift)) fault('ruler.drift', 'not-array', ruler.drift)
  for (const [i, d] of (faults.length ? [] : ruler.drift.entries())) {
    const path = `ruler.drift[${i}]`
    if (!obj(d, path)) break
    if (typeof d.figure !== 'string') fault(`${path}.figure`, 'not-string', d.figure)
    if (d.ratio !== null) num(d.ratio, `${path}.ratio`, { fault, unit: 'ratio' })
    num(d.spreadPct, `${path}.spreadPct`, { fault, unit: 'pct', zero: true })
    if (typeof d.beyond !== 'boolean') fault(`${path}.beyond`, 'not-boolean', d.beyond)
    if (faults.length) break
  }
  if (!faults.length && typeof ruler.moved !== 'boolean') fault('ruler.moved', 'not-boolean', ruler.moved)
  return faults[0] ?? null
}

// What each figure of a reading counts, by its path: ms, cores or requests/s.
const UNITS = {
  'cores.effective': 'cores', 'loopback.rps': 'rps', timerLagMs: 'ms'
}

// The faults of one reading (pushed through `fault`; the first is the one said).
function readingFault (r, path, { obj, fault }) {
  if (!obj(r, path)) return
  if (typeof r.at !== 'string') return fault(`${path}.at`, 'not-string', r.at)
  if (num(r.durationMs, `${path}.durationMs`, { fault, unit: 'ms', zero: true })) return
  for (const name of RULER_FIGURES) {
    const [head, tail] = name.split('.')
    if (tail && !obj(r[head], `${path}.${head}`)) return
    const how = { obj, fault, unit: UNITS[name] ?? 'ms', zero: name === 'timerLagMs' }
    if (figureFault(at(r, name), `${path}.${name}`, how)) return
  }
  if (int(r.cores.offered, `${path}.cores.offered`, { fault, unit: 'cores' })) return
  if (int(r.loopback.connections, `${path}.loopback.connections`, { fault, unit: 'count' })) return
  if (!Array.isArray(r.cores.scaling)) return fault(`${path}.cores.scaling`, 'not-array', r.cores.scaling)
  for (const [i, s] of r.cores.scaling.entries()) {
    const p = `${path}.cores.scaling[${i}]`
    if (!obj(s, p) || int(s.threads, `${p}.threads`, { fault, unit: 'cores' }) ||
      figureFault(s.speedup, `${p}.speedup`, { obj, fault, unit: 'cores' })) return
  }
}

// A figure F = { value, spreadPct, n }: true when it is at fault (the fault pushed).
function figureFault (f, path, { obj, fault, unit, zero = false }) {
  if (!obj(f, path)) return true
  return num(f.value, path, { fault, unit, zero }) ||
    num(f.spreadPct, `${path}.spreadPct`, { fault, unit: 'pct', zero: true }) ||
    int(f.n, `${path}.n`, { fault, unit: 'count' })
}

// The range a machine's figure of each unit can be in, as compare/impossible.js bounds a run's: no timed
// figure is under a nanosecond or over 11 days, no machine answers a billion requests/s or has 100,000 cores,
// a spread past 10^6 % or a ratio past 10^6 either way is no reading (a ruler of 1e300 ms is refused).
export const RULER_BOUNDS = Object.freeze({
  ms: { min: 1e-6, max: 1e9 },
  cores: { min: 0, max: 1e5 },
  rps: { min: 0, max: 1e9 },
  count: { min: 0, max: 1e9 },
  pct: { min: 0, max: 1e6 },
  ratio: { min: 1e-6, max: 1e6 }
})

// A finite number above 0 (at least 0 with `zero`) and within its unit's RULER_BOUNDS: true when it is at
// fault (the fault pushed).
function num (x, path, { fault, unit, zero = false }) {
  const bounds = RULER_BOUNDS[unit] ?? RULER_BOUNDS.ms
  let code = null
  if (typeof x !== 'number') code = 'not-number'
  else if (!Number.isFinite(x)) code = 'infinite'
  else if (x < 0) code = 'negative'
  else if (x === 0 && !zero) code = 'zero'
  else if (x > bounds.max) code = 'too-large'
  else if (x > 0 && x < bounds.min) code = 'too-small'
  if (code) fault(path, code, x, unit)
  return code !== null
}

// An integer of at least 1: true when it is at fault (the fault pushed).
function int (x, path, { fault, unit }) {
  if (num(x, path, { fault, unit })) return true
  if (Number.isInteger(x)) return false
  fault(path, 'not-integer', x, unit)
  return true
}
