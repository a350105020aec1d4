// The ruler: the machine itself, read by the lab before any server of a run starts and after the last one
// stopped (run/ruler/ measures a reading), and the pure rules on it: its figures, their ratios between two
// readings or two reports, whether the machine moved, and what is wrong with a ruler no machine gives.
// A reading: { at, durationMs, single: { loop, hash, json, render }, cores: { offered, effective, scaling },
// loopback: { rttMs, rps, connections }, spawn: { workerMs, processMs }, timerLagMs }, each figure an
// F = { value, spreadPct, n } (reports/README.md "ruler").
import { readFileSync } from 'node:fs'
import { lazyRequire } from './lazy.js'
import { percentile } from './stats.js'
import { RULER } from './rules.js'

const ajv2020 = lazyRequire('ajv/dist/2020.js')

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

// What is wrong with a ruler, by report.schema.json's `ruler`: the first fault, { path, code, value, unit }, or
// null. code: 'missing', 'not-array', 'not-number', 'infinite', 'negative', 'zero', 'not-integer',
// 'not-boolean', 'not-string', 'too-large' or 'too-small' (past RULER_BOUNDS), or 'schema' (another rule:
// `rule` says it); unit: what the figure counts ('cores', 'ms', 'rps', 'count', 'pct', 'ratio'), so that
// text/ruler.js can say why no machine gives it.
export function rulerFault (ruler) {
  const validate = rulerValidator()
  if (validate(ruler)) return boundsFault(ruler)
  const errors = validate.errors
  // under an anyOf (end: a reading or null) the branch that failed deepest says where
  const e = errors.filter((x) => x.keyword !== 'anyOf')
    .reduce((a, x) => (x.instancePath.length > a.instancePath.length ? x : a))
  const steps = e.instancePath.split('/').slice(1)
  const value = steps.reduce((x, k) => x?.[k], ruler)
  if (e.keyword === 'required') steps.push(e.params.missingProperty)
  const extra = e.keyword === 'additionalProperties' ? e.params.additionalProperty : null
  if (extra !== null) steps.push(extra)
  const code = faultCode(e, value)
  const at = e.keyword === 'required' ? undefined : extra === null ? value : value[extra]
  const rule = extra === null ? e.message : 'not a ruler field'
  return { path: pathOf(steps), code, value: at, unit: unitOf(steps), rule }
}

// `ruler.start.cores.scaling[1].speedup` for its steps (a figure's `.value` is the figure).
const pathOf = (steps) => ['ruler', ...steps].join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]').replace(/\.value$/, '')

// ajv's error as a fault's code: a type the value lacks, or the bound it crossed.
function faultCode (e, value) {
  if (e.keyword === 'required') {
    const want = e.parentSchema.properties?.[e.params.missingProperty] ?? {}
    const type = want.type ?? (String(want.$ref).endsWith('/time') ? 'string' : 'object')
    return TYPE_CODES[type] ?? 'missing'
  }
  if (e.keyword === 'type' && typeof value === 'number' && /number|integer/.test(e.params.type)) {
    return Number.isFinite(value) ? 'not-integer' : 'infinite'
  }
  if (e.keyword === 'type') return TYPE_CODES[e.params.type] ?? 'missing'
  if (e.keyword === 'minimum' || e.keyword === 'exclusiveMinimum') return value < 0 ? 'negative' : 'zero'
  return 'schema'
}
const TYPE_CODES = {
  number: 'not-number', integer: 'not-number', boolean: 'not-boolean', string: 'not-string', array: 'not-array'
}

// What the figure at a path counts, by its last name.
function unitOf (steps) {
  const names = steps.filter((k) => !/^\d+$/.test(k) && k !== 'value')
  return UNITS[names.at(-1)] ?? 'ms'
}
const UNITS = {
  spreadPct: 'pct',
  n: 'count',
  connections: 'count',
  ratio: 'ratio',
  rps: 'rps',
  offered: 'cores',
  effective: 'cores',
  threads: 'cores',
  speedup: 'cores'
}

// The schema's `ruler`, compiled once (ajv: stops at the first fault; its `number` refuses Infinity).
let validator = null
function rulerValidator () {
  if (validator) return validator
  const ajv = new (ajv2020())({ allErrors: false, allowUnionTypes: true, strict: true, verbose: true })
  ajv.addSchema(JSON.parse(readFileSync(new URL('../../report.schema.json', import.meta.url), 'utf8')))
  validator = ajv.compile({ $ref: 'urn:loadlab:report:schema-1#/$defs/ruler' })
  return validator
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

// The first number of a schema-valid ruler past its unit's RULER_BOUNDS, as a fault; null when none is.
function boundsFault (x, steps = []) {
  if (typeof x === 'number') {
    const unit = unitOf(steps)
    const { min, max } = RULER_BOUNDS[unit] ?? RULER_BOUNDS.ms
    const code = x > max ? 'too-large' : x > 0 && x < min ? 'too-small' : null
    return code && { path: pathOf(steps), code, value: x, unit }
  }
  if (x === null || typeof x !== 'object') return null
  for (const [k, v] of Object.entries(x)) {
    const f = boundsFault(v, [...steps, k])
    if (f) return f
  }
  return null
}
