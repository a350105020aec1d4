// Thresholds (`--threshold 'p99<500'`): parse them, evaluate them against a report's results, and lay
// the verdicts out as rows for the table, the Markdown and the page. Pure: strings and report objects in,
// plain data out. A crossed threshold makes the lab exit 99 (k6's code) once the report is written.
import { PERCENTILES } from '../result/stats.js'
import { ThresholdError, clip } from '../errors.js'
import { errorsOf } from '../result/requests.js'
import { goodputShareAt } from '../result/overload.js'
import { lagCouldFlip } from '../result/trust.js'
import { MISSING } from '../text/format.js'
import { boundText } from '../text/reasons.js'
import { runName } from '../result/key.js'
import { isInProcess } from '../result/kind.js'

// k6's exit code for a crossed threshold.
export const THRESHOLD_EXIT = 99

const OPS = ['<=', '>=', '==', '!=', '<', '>']
const TEST = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b
}

// Units a value may be written in, per kind of metric: suffix → factor to the metric's own unit.
const UNITS = {
  latency: { '': 1, ms: 1, s: 1000 },
  rate: { '': 1, rps: 1, 'req/s': 1, '/s': 1 },
  count: { '': 1 },
  ratio: { '': 1, '%': 0.01 }
}
const SHOWN = { latency: 'ms', rate: 'req/s', count: '', ratio: '' }

// The capacity a sweep found (the capacity experiment's `capacity.capacity.rps`); null for other runs and
// for a sweep that held no rate (its bound says why: evaluateThresholds judges it as none).
function capacityFigure (r) {
  const rps = r.capacity?.capacity?.rps
  return typeof rps === 'number' ? rps : null
}

function latencyAt (r, p) {
  const key = String(p)
  const v = r.latency?.percentiles?.[key] ?? r.latency?.[`p${key.replace('.', '_')}`]
  return typeof v === 'number' ? v : null
}

// Every metric a threshold can name: its kind (for units), what it means, and how to read it off a result.
export const METRICS = Object.freeze({
  ...Object.fromEntries(PERCENTILES.filter((p) => p >= 50 && p <= 99.99).map((p) => [`p${p}`, {
    kind: 'latency', what: `latency p${p} (ms)`, read: (r) => latencyAt(r, p)
  }])),
  max: {
    kind: 'latency',
    what: 'slowest latency (ms)',
    read: (r) => typeof r.latency?.max === 'number' ? r.latency.max : null
  },
  rps: { kind: 'rate', what: 'own-timed requests/s', read: (r) => typeof r.rps === 'number' ? r.rps : null },
  errors: {
    kind: 'count',
    what: 'failed requests: connection errors + timeouts + non-2xx + body ' +
    'mismatches',
    read: (r) => errorsOf(r.requests)
  },
  timeouts: {
    kind: 'count',
    what: 'timed-out requests',
    read: (r) => typeof r.requests?.timeouts === 'number' ? r.requests.timeouts : null
  },
  efficiency: {
    kind: 'ratio',
    what: 'rps / ideal rps, ' +
    '0.8 or 80%',
    read: (r) => typeof r.efficiency === 'number' ? r.efficiency : null
  },
  capacity: {
    kind: 'rate',
    what: 'highest rate holding the SLO (req/s), capacity ' +
    'experiment only',
    read: capacityFigure
  },
  goodput: {
    kind: 'ratio',
    what: 'goodput at 2 × capacity as a share of it, overload ' +
    'experiment only',
    read: (r) => goodputShareAt(r, 2)
  }
})

// The metrics a request mix's class has its own figure of (`p99{class=cheap}<50`: result/mix.js classFigures).
const PER_CLASS = new Set(['p50', 'p97.5', 'p99', 'p99.9', 'max', 'rps', 'errors', 'timeouts'])

// The grammar, for usage errors and --help.
const THRESHOLD_GRAMMAR = '[SERVER[/VARIANT]:]METRIC[{class=NAME}] OP VALUE[UNIT]; METRIC one ' +
  `of ${Object.keys(METRICS).join(', ')}; ` +
  `OP one of ${OPS.join(' ')}; UNIT ms or s for latency, req/s for rps and capacity, % for efficiency and goodput; ` +
  "e.g. 'p99<500', 'rps>100', 'timeouts==0', 'queued-threads:p99<200ms'"

// A malformed threshold, naming it, why, and the grammar (a LabError, exit 2).
function malformed (spec, why) {
  return new ThresholdError(`--threshold ${clip(JSON.stringify(spec))}: ${why}; expected ${THRESHOLD_GRAMMAR}`)
}

const BODY = new RegExp([
  /^([a-z][a-z0-9.]*)(?:\{class=([A-Za-z0-9_.-]+)\})?/.source, // the metric, and its class
  /\s*(<=|>=|==|!=|<|>)\s*/.source, // the comparison
  /(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*([a-z%/]*)$/.source // the value and its unit
].join(''), 'i')

/**
 * Parse one threshold string into { spec, server, metric, op, value, unit, text }: `value` in the
 * metric's own unit (ms, req/s, a count, a fraction), `server` the qualifier or null. Throws a
 * ThresholdError naming the threshold and the grammar when it is malformed.
 */
export function parseThreshold (spec) {
  if (typeof spec !== 'string' || spec.trim() === '') throw malformed(String(spec ?? ''), 'empty')
  const s = spec.trim()
  const colon = s.lastIndexOf(':')
  const server = colon === -1 ? null : s.slice(0, colon).trim()
  if (server === '') throw malformed(spec, 'empty server name before ":"')
  if (server !== null && !/^[\w.@-]+(\/[\w.@-]+)?(:\d+)?$/.test(server)) {
    throw malformed(spec, `bad server name ${JSON.stringify(server)}`)
  }
  const m = BODY.exec(s.slice(colon + 1).trim())
  if (!m) throw malformed(spec, 'cannot read it')
  const [, metric, cls = null, op, raw, suffix] = m
  const def = METRICS[metric.toLowerCase()]
  if (!def) throw malformed(spec, `unknown metric ${JSON.stringify(metric)}`)
  if (cls !== null && !PER_CLASS.has(metric.toLowerCase())) {
    throw malformed(spec, `${metric} has no figure per class; {class=…} goes with ${[...PER_CLASS].join(', ')}`)
  }
  const factor = UNITS[def.kind][suffix.toLowerCase()]
  if (factor === undefined) {
    const allowed = Object.keys(UNITS[def.kind]).filter(Boolean)
    throw malformed(spec, `${metric} takes ${allowed.length ? `no unit or ${allowed.join(', ')}` : 'no unit'}, ` +
      `got ${JSON.stringify(suffix)}`)
  }
  const value = Number(raw) * factor
  if (!Number.isFinite(value)) throw malformed(spec, `${clip(raw, 20)} is past the largest number`)
  if (def.kind === 'ratio' && suffix === '' && value > 1) {
    throw malformed(spec, `${metric} ${raw} reads as a fraction, ${+(value * 100).toFixed(4)} %: write ${raw}% ` +
      `(or ${+(value / 100).toFixed(6)})`)
  }
  if (def.kind === 'count' && !Number.isInteger(value)) {
    throw malformed(spec, `${metric} is a count: expected a ` +
    'whole number')
  }
  const name = metric.toLowerCase()
  const unit = SHOWN[def.kind]
  const shown = def.kind === 'ratio' ? `${+(value * 100).toFixed(6)}%` : `${+value.toFixed(6)}${unit ? ` ${unit}` : ''}`
  const of = cls === null ? '' : `{class=${cls}}`
  const text = `${server ? `${server}: ` : ''}${name}${of} ${op} ${shown}`
  return { spec, server, class: cls, metric: name, op, value, unit, text }
}

// Parse a list of threshold strings (see parseThreshold); the first malformed one throws.
export function parseThresholds (specs = []) {
  return specs.map(parseThreshold)
}

function appliesTo (t, r) {
  if (t.server === null) return true
  return t.server === r.server || t.server === runName(r)
}

// Why a verdict on a run is in doubt (result/trust.js, the rule of the trust column): a latency limit
// crossed where taking the generator's lag out could flip it. (An untrusted run's reasons are in its
// trust column and "Not to be taken at face value".)
function reasonOf (t, r, figure) {
  const lag = r.open?.lag?.p99
  const upper = t.op === '<' || t.op === '<='
  if (METRICS[t.metric].kind === 'latency' && upper && lagCouldFlip(figure, lag, t.value)) {
    return `in doubt: less the generator's lag p99 ${lag} ms it is within ${t.value} ms`
  }
  return null
}

/**
 * Evaluate parsed thresholds against a report's results: for each threshold { ...threshold, status,
 * runs: [{ key, run, status, figure, reason }] }, a run's status 'passed', 'crossed' or 'not-applicable'
 * (reason: 'not measured', 'run failed'); a threshold is crossed when any run crosses it, passed when
 * one passed and none crossed, not-applicable otherwise. Runs without HTTP figures (in-process cases) are skipped.
 */
export function evaluateThresholds (thresholds, results = []) {
  const runs = results.filter((r) => r && typeof r === 'object' && !isInProcess(r))
  return thresholds.map((t) => {
    const out = runs.filter((r) => appliesTo(t, r)).map((r) => {
      const own = t.class ? r.classes?.find((c) => c.name === t.class) : r // a mix class's own figures
      const figure = own ? METRICS[t.metric].read(own) : null
      const base = { key: r.key ?? null, run: runName(r), figure }
      if (!own) return { ...base, status: 'not-applicable', reason: `no class ${t.class}` }
      if (r.status === 'failed' && figure === null) return { ...base, status: 'not-applicable', reason: 'run failed' }
      // a sweep that held no rate has no capacity (never 0): judged as none, with the reason
      const noCapacity = t.metric === 'capacity' && figure === null && r.capacity?.steps?.length &&
        r.capacity.capacity?.bound
      const none = noCapacity ? boundText(r.capacity.capacity) : null
      if (none) return { ...base, status: TEST[t.op](0, t.value) ? 'passed' : 'crossed', reason: none }
      if (figure === null) return { ...base, status: 'not-applicable', reason: 'not measured' }
      return { ...base, status: TEST[t.op](figure, t.value) ? 'passed' : 'crossed', reason: reasonOf(t, r, figure) }
    })
    const status = out.some((x) => x.status === 'crossed')
      ? 'crossed'
      : out.some((x) => x.status === 'passed') ? 'passed' : 'not-applicable'
    const { spec, text, server, metric, op, value, unit } = t
    return { threshold: spec, text, server, class: t.class ?? null, metric, op, value, unit, status, runs: out }
  })
}

// True when an evaluation (evaluateThresholds' list, or a report's `thresholds`) has a crossed threshold.
export function anyCrossed (evaluated) {
  return Array.isArray(evaluated) && evaluated.some((t) => t.status === 'crossed')
}

function figureText (t, v) {
  if (typeof v !== 'number') return MISSING
  if (METRICS[t.metric]?.kind === 'ratio') return `${+(v * 100).toFixed(1)}%`
  const digits = Number.isInteger(v) ? 0 : Math.abs(v) < 10 ? 2 : 1
  return `${v.toFixed(digits)}${t.unit ? ` ${t.unit}` : ''}`
}

const VERDICT = { passed: '✓ passed', crossed: '✗ crossed', 'not-applicable': `${MISSING} not applicable` }

/**
 * The evaluation as { head, rows } of plain strings (one row per threshold and run; a threshold that
 * applies to no run gets one row saying so), and `status[i]` the verdict of row i, for the renderers.
 */
export function thresholdRows (evaluated = []) {
  const head = ['threshold', 'run', 'figure', 'verdict']
  const rows = []
  const status = []
  for (const t of evaluated) {
    if (t.runs.length === 0) {
      rows.push([t.text, t.server ? `no run of ${t.server}` : 'no HTTP run', MISSING, VERDICT['not-applicable']])
      status.push('not-applicable')
      continue
    }
    for (const r of t.runs) {
      rows.push([t.text, r.run, figureText(t, r.figure), `${VERDICT[r.status]}${r.reason ? ` (${r.reason})` : ''}`])
      status.push(r.status)
    }
  }
  return { head, rows, status }
}

// One line for the end of a run: how many thresholds passed and crossed, naming each crossing.
export function thresholdSummary (evaluated = []) {
  const count = (s) => evaluated.filter((t) => t.status === s).length
  const crossings = evaluated.flatMap((t) => t.runs.filter((r) => r.status === 'crossed')
    .map((r) => `${t.text} on ${r.run}: ${figureText(t, r.figure)}`))
  const idle = evaluated.filter((t) => t.status === 'not-applicable').map((t) => t.text)
  const parts = [`${count('passed')} passed`, `${count('crossed')} crossed`]
  if (idle.length) parts.push(`${idle.length} not applicable (${idle.join('; ')})`)
  return `thresholds: ${parts.join(', ')}${crossings.length
? ` — crossed: ${crossings.join('; ')} ` +
    `(exit ${THRESHOLD_EXIT})`
: ''}`
}
