// The result's sentences: the lines and cells every output (terminal table, Markdown, page, compare, the
// experiments' tables) writes of a result's data. result/ computes; this module only words it. Pure.
import { callOf } from '../result/capacity.js'
import { BOUND } from '../result/rules.js'
import { runName } from '../result/key.js'
import { isInProcess } from '../result/kind.js'
import { isNum, roundTo } from '../result/stats.js'
import { verdictOf } from '../result/trust.js'
import { MISSING } from './format.js'
import { boundText } from './reasons.js'

// The legend of the marks, whole: an installed package ships no reports/README.md to point at.
export const MARKS = 'Marks: ✓ held · ! or ⚠ see the reasons · ~ near its target · ≥ a lower bound · ' +
  '? undecided · ✗ failed · - not measured'

// Milliseconds and req/s as the capacity line writes them.
const ms = (x) => (typeof x === 'number' ? `${roundTo(x, x >= 100 ? 0 : 1)} ms` : MISSING)
const rate = (x) => (typeof x === 'number' ? `${roundTo(x, x >= 100 ? 0 : 1)} req/s` : MISSING)

// The one line every output gives for a capacity that cannot be met, or is sensitive to its target:
// "child-process cannot meet p99 ≤ 115 ms at any rate tried: p99 172 ms at 3.2 req/s"; null otherwise.
export function capacityLine (name, c) {
  if (!c?.floor) return null
  const floor = `p99 ${ms(c.floor.p99)} at ${rate(c.floor.rps)}`
  const p = `p${c.percentile}` // the percentile judged (p95 under --quick)
  if (c.bound === 'undecided') {
    const fails = c.bracket?.fail ? ` (fails at ${rate(c.bracket.fail)})` : ''
    return `${name}: capacity ${boundText(c)}${fails}; ${floor}` +
      (c.floor.true === false ? ' (requests overlapped: not a floor)' : '')
  }
  if (c.bound === 'cannot-meet') {
    const near = c.sensitive ? ` (within ${BOUND.sensitive} × of the target: a slightly looser one may be met)` : ''
    return `${name} cannot meet ${p} ≤ ${ms(c.sloMs)} at any rate tried: ${floor}${near}`
  }
  if (c.sensitive) {
    return `${name}: the target ${p} ≤ ${ms(c.sloMs)} is within ${BOUND.sensitive} × of its floor (${floor}): ` +
      'its capacity is sensitive to the target'
  }
  return null
}

// Why a marked step is undecided, or in doubt (result/rules.js FIT, HALVES).
const STEP_MARKS = {
  smooth: { undecided: 'arrivals smoother than Poisson' },
  bunched: { doubt: 'arrivals bunched' },
  drift: { undecided: 'halves disagree', doubt: 'halves disagree' }
}

// A step's verdict as every table shows it: ✓ holds, ✗ fails, ? undecided (too few requests to decide p99, or
// a marked pass), and a failure the generator's lag, bunched arrivals or a change between its halves could
// have made marked in doubt (result/rules.js FIT, HALVES).
export function holdsText (s) {
  const call = callOf(s)
  if (call === 'pass') return '✓'
  if (call === 'undecided') return `? ${STEP_MARKS[s.mark]?.undecided ?? 'undecided'}`
  if (!s.inDoubt) return '✗'
  return `✗ in doubt (${STEP_MARKS[s.mark]?.doubt ?? 'lag'})`
}

// A recovery as one cell, always in seconds with one decimal: "0.0 s", "15.0 s", or in words when the
// service did not come back: "metastable: not within 60.0 s" (the time watched after the burst, when known).
export function fmtRecovery (rec) {
  if (!rec || (rec.metastable !== true && typeof rec.ms !== 'number')) return MISSING
  const sec = (x) => `${(x / 1000).toFixed(1)} s`
  if (!rec.metastable) return sec(rec.ms)
  const watched = typeof rec.observedMs === 'number' && typeof rec.burstEndMs === 'number'
  return watched ? `metastable: not within ${sec(rec.observedMs - rec.burstEndMs)}` : 'metastable'
}

// The one-line note of an unmeasured figure (result/runtime.js unmeasuredLines): what is shown as "—",
// under which runtime, and why.
export function unmeasuredText ({ runtime, what, why }) {
  const figure = what === 'eventLoop' ? 'loop p99 (event-loop delay)' : 'ELU (event-loop utilisation)'
  return `— ${figure} under ${runtime ?? 'this runtime'}: not measured (${why})`
}

// One line naming a report's machine: its label if set, else host, CPU model and cores.
export function machineLine (report) {
  const m = report?.machine ?? {}
  if (typeof report?.label === 'string' && report.label.trim() !== '') return report.label
  return [m.hostname, m.cpuModel, isNum(m.cores) ? `${m.cores} cores` : null]
    .filter((x) => x !== null && x !== undefined && x !== '')
    .join(' · ')
}

// The trust cell of a table row: ✗ failed, ! untrusted, ✓ trusted.
export function trustMark (r) {
  const v = verdictOf(r)
  return v.status === 'failed' ? '✗ failed' : v.trusted ? '✓' : '!'
}

// What a report found that is neither a fault nor noise, in one line each for every output, in result
// order (empty: none): a strategy's own contention (result/trust.js contentionOf) and a capacity that
// cannot be met or is sensitive to its target (capacityLine).
export function findingLines (results = []) {
  const out = []
  for (const r of results) {
    if (!r || typeof r !== 'object' || isInProcess(r)) continue
    const line = capacityLine(runName(r), r.capacity?.capacity)
    if (line) out.push(line)
    if (r.contention?.text) out.push(`${runName(r)}: ${r.contention.text} (its own contention: a finding, not noise)`)
    const steps = r.capacity?.steps ?? []
    const own = steps.filter((s) => s.contention)
    if (own.length) {
      const worst = own.reduce((a, b) => (b.contention.inflation > a.contention.inflation ? b : a))
      out.push(`${runName(r)}: its own contention in ${own.length} of ${steps.length} steps, at ` +
        `most ${worst.contention.text} ` +
        `(step ${worst.index + 1}): a finding, not noise`)
    }
  }
  return out
}

// The targets that decided a request mix's capacity sweep (result/mix.js judgeByClass: every class at its
// own target, its sloMs, else the run's), in words: `cheap p95 ≤ 50 ms, heavy p95 ≤ 300 ms`, or with
// `short` a table cell, `cheap 50 · heavy 300`; null where the run's own target decided (no mix, no step
// judged by class, or every class at the run's target: a one-request -m/-H/-b run's).
export function classTargetsText (result, { short = false } = {}) {
  const classes = (result?.classes ?? []).filter((c) => isNum(c.sloMs))
  const judged = (result?.capacity?.steps ?? []).some((s) => s.cls)
  const own = classes.some((c) => c.sloMs !== result.capacity?.sloMs)
  if (!classes.length || !judged || !own) return null
  const p = `p${result.capacity.percentile}`
  const f = (x) => roundTo(x, x >= 100 ? 0 : 1)
  if (short) return classes.map((c) => `${c.name} ${f(c.sloMs)}`).join(' · ')
  return classes.map((c) => `${c.name} ${p} ≤ ${f(c.sloMs)} ms`).join(', ')
}

// An experiment's title with the published studies it reproduces, as --list, the report and docs/studies.md
// name them: `Sleep: … (study 002)`, `… (studies 001, 004)`.
export function experimentTitle ({ title = '', study = null } = {}) {
  if (!study) return title
  return `${title} (${String(study).includes(',') ? 'studies' : 'study'} ${study})`
}
