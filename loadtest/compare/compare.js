// Compare: lines up the runs that several loadlab reports share (same `key`: server, variant and work)
// and computes, per report, the figures and their ratio to a baseline report. Pure: report objects
// in, comparison data out; reading files and printing live in cli.js, rendering in
// render.js.
import { CompareError } from '../errors.js'
import { errorsOf } from '../result/requests.js'
import { SCHEMA } from '../result/build.js'
import { isNum, PERCENTILE_KEYS, roundTo } from '../result/stats.js'
import { serviceTime } from '../result/figures.js'
import { calibrationKey, withoutRuntime } from '../result/key.js'
import { runtimeName, unmeasuredLines } from '../result/runtime.js'
import { METRICS } from '../report/thresholds.js'
import { withoutImpossible } from './impossible.js'
import { overloadCell } from './overload.js'
import { verdictOf } from '../result/trust.js'
import { isInProcess } from '../result/kind.js'
import { machineLine, unmeasuredText } from '../text/sentences.js'
import { PHASES } from '../result/phases.js'
import {
  capacityInterval, littleInterval, percentileInterval, rateInterval, withRounds
} from '../result/interval.js'
import { judge } from '../result/verdict.js'
import { flatFigures, predict } from '../result/machine.js'
import { COMPARE } from '../result/rules.js'
import { pairedAcross } from './machines.js'
import { rulerSetAside } from '../result/ruler-trust.js'
import { setAsideText } from '../text/ruler.js'
import { connectionsText } from '../text/compare.js'

// The report schema this compare understands (reports/README.md).
export { SCHEMA }

// Units compare can show latency in: milliseconds, or multiples of the machine's calibrated service time.
export const UNITS = ['ms', 'service']

// A refusal a user can cause (bad file, bad flag): one of the lab's errors (loadtest/errors.js).
export { CompareError }

// How deep a report may nest: the lab writes about eight levels; far deeper is not a report, and would
// overflow the stack of any reader that recurses (String() of nested arrays, the renderers).
const MAX_DEPTH = 64

// True when `value` nests deeper than `limit` levels (walked without recursion).
function nestsDeeper (value, limit) {
  const stack = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (depth >= limit) return true
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

// What is wrong with results[i], or null when it is a run compare can line up (an object with a string key).
function badRun (r) {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) {
    return `is not a run (${r === null ? 'null' : Array.isArray(r) ? 'an array' : typeof r})`
  }
  if (typeof r.key !== 'string') return `has no string "key" (got ${r.key === null ? 'null' : typeof r.key})`
  return null
}

// Checks that parsed JSON `data` read from `file` is a report of the schema this compare reads, and
// that every run in it can be lined up; throws a CompareError (one line, exit 2) naming what is wrong.
export function checkReport (data, file) {
  const refuse = (why) => new CompareError(`${file} ${why}`, 'LAB_COMPARE_NOT_REPORT')
  if (data === null || typeof data !== 'object' || Array.isArray(data) || data.kind !== 'loadlab-report') {
    throw refuse('is not a loadlab report (expected "kind": "loadlab-report")')
  }
  if (data.schema !== SCHEMA) {
    throw new CompareError(
      `${file} is a schema ${JSON.stringify(data.schema ?? null)} report; this compare reads schema ${SCHEMA} only`,
      'LAB_COMPARE_SCHEMA'
    )
  }
  if (!Array.isArray(data.results)) throw refuse('is not a loadlab report (no "results" array)')
  if (nestsDeeper(data, MAX_DEPTH)) throw refuse(`nests deeper than ${MAX_DEPTH} levels: not a loadlab report`)
  for (const [i, r] of data.results.entries()) {
    const why = badRun(r)
    if (why) throw refuse(`results[${i}] ${why}: not a loadlab report's run`)
  }
  return data
}

const numOrNull = (v) => (isNum(v) ? v : null)

function ratio (a, b) {
  return isNum(a) && isNum(b) && b !== 0 ? a / b : null
}

function scaled (v, scale) {
  return isNum(v) && isNum(scale) ? v / scale : null
}

// The calibrated service time of a run's work (under --runtime, its runtime's: `SPEC#LABEL`).
function serviceMs (report, work, runtime = null) {
  return serviceTime(report.calibration?.[calibrationKey(work, runtime)] ?? report.calibration?.[work])
}

// A capacity that is a lower bound (the sweep's last step held), and one no rate met.
const AT_LEAST = 'at-least'
const CANNOT_MEET = 'cannot-meet'

// Why a capacity is never divided as a measurement, or null: the baseline's is a lower bound (a ratio to
// it would be an upper bound only), or either side met its target at no rate (no capacity to divide).
function boundsRefused (base, next) {
  if (base?.capacityBound === CANNOT_MEET || next?.capacityBound === CANNOT_MEET) {
    const who = base?.capacityBound === CANNOT_MEET ? 'the baseline' : 'this run'
    return `capacity not compared: ${who} cannot meet its target at any rate tried, so there is no capacity to divide`
  }
  if (base?.capacityBound === AT_LEAST && isNum(base?.capacity)) {
    return `capacity not compared: the baseline's is a lower bound (≥ ${roundTo(base.capacity, 1)} req/s), ` +
      'so a ratio to it would only be an upper bound'
  }
  return null
}

// Why two capacities cannot be compared (their targets differ by more than COMPARE.targetTolerance), or null.
function targetsDiffer (base, next) {
  if (!isNum(base?.sloMs) || !isNum(next?.sloMs) || !isNum(base?.capacity) || !isNum(next?.capacity)) return null
  const apart = Math.abs(next.sloMs / base.sloMs - 1)
  if (apart <= COMPARE.targetTolerance) return null
  return `capacity not compared: judged against targets ${roundTo(apart * 100, 0)} % apart ` +
    `(p99 ≤ ${roundTo(base.sloMs, 1)} ms and ≤ ${roundTo(next.sloMs, 1)} ms; ` +
    `more than ${COMPARE.targetTolerance * 100} %: run both with one --slo)`
}

// An interval in the cell's units (latency divided by the service time under --units service).
function scaledInterval (iv, scale) {
  if (!iv || !isNum(scale) || scale <= 0) return null
  return { ...iv, value: iv.value / scale, low: iv.low / scale, high: iv.high / scale }
}

// The interval of one figure of a run from the run itself (result/interval.js), in the cell's units:
// metric rps, efficiency, capacity, or a percentile (p50, p99, p99.9 …); null where the run lacks the data.
export function intervalOf (r, metric, scale = 1) {
  const closed = r?.loop !== 'open' && !r?.rate
  const rounds = Array.isArray(r?.runs) ? r.runs : []
  if (metric === 'rps' || metric === 'efficiency') {
    const value = metric === 'rps' ? r?.rps : r?.efficiency
    const p50 = closed ? percentileInterval(r?.histograms?.latency, 50, r?.latency?.p50) : null
    const iv = rateInterval(r?.timeline, value) ?? littleInterval(p50, value)
    const per = metric === 'rps' ? 1 : r?.ideal?.rps > 0 ? 1 / r.ideal.rps : null
    return withRounds(iv, per === null ? [] : rounds.map((x) => (isNum(x?.rps) ? x.rps * per : null)))
  }
  if (metric === 'capacity') return capacityInterval(r?.capacity?.capacity)
  const p = /^p(\d+(?:\.\d+)?)$/.exec(metric)
  if (!p) return null
  const key = p[1]
  const value = r?.latency?.percentiles?.[key] ?? r?.latency?.[`p${key.replace('.', '_')}`]
  const iv = percentileInterval(r?.histograms?.latency, Number(key), value)
  const field = `p${key.replace('.', '_')}`
  return scaledInterval(withRounds(iv, rounds.map((x) => x?.latency?.[field] ?? null)), scale)
}

// The figures compare judges on an HTTP run, each with its interval.
export const JUDGED = ['rps', 'p50', 'p99', 'efficiency', 'capacity']

function httpCell (r, report, units) {
  const scale = units === 'service' ? serviceMs(report, r.work, r.runtime?.label) : 1
  const errors = errorsOf(r.requests)
  const pcts = {}
  for (const p of PERCENTILE_KEYS) {
    const s = scaled(r.latency?.percentiles?.[p], scale)
    if (s !== null) pcts[p] = s
  }
  const verdict = verdictOf(r) // the report's one verdict (result/trust.js), and what compare finds impossible
  const histogram = r.histogramFault ? [`${r.histogramFault}: no interval from it, the run is not vouched for`] : []
  return {
    status: verdict.status,
    trusted: verdict.trusted && !r.impossible?.length && !histogram.length,
    why: [...verdict.reasons, ...(r.impossible ?? []).map(String), ...histogram],
    disturbed: r.disturbed === true, // the lab marked it: something else took the machine (result/trust.js)
    rps: isNum(r.rps) ? r.rps : null,
    p50: scaled(r.latency?.p50, scale),
    p99: scaled(r.latency?.p99, scale),
    max: scaled(r.latency?.max, scale),
    percentiles: pcts,
    errors,
    efficiency: isNum(r.efficiency) ? r.efficiency : null,
    serviceMs: serviceMs(report, r.work, r.runtime?.label),
    // capacity sweeps: the highest rate held under the target, and the target
    // null when no rate held: its bound says why ('cannot-meet' with its floor)
    capacity: isNum(r.capacity?.capacity?.rps) ? r.capacity.capacity.rps : null,
    capacityBound: r.capacity?.capacity?.bound ?? null,
    capacityFloor: r.capacity?.capacity?.floor ?? null,
    capacityBracket: r.capacity?.capacity?.bracket ?? null,
    sloMs: isNum(r.capacity?.sloMs) ? r.capacity.sloMs : null,
    overload: overloadCell(r), // past capacity (the overload experiment), null otherwise
    intervals: Object.fromEntries(JUDGED.map((m) => [m, intervalOf(r, m, m.startsWith('p') ? scale : 1)])),
    ...drawable(r.timeline)
  }
}

// Most points of one timeline compare draws: the lab writes at most 400 (run/watch/timeline.js MAX_BUCKETS).
const MAX_TIMELINE_POINTS = 1000

// A result's timeline as the page can draw it: { timeline } or, when it cannot be, { timeline: null,
// timelineSkipped: why } (the comparison notes it; the tables do not need it).
function drawable (timeline) {
  if (!timeline || !Array.isArray(timeline.points)) return { timeline: null }
  const { points } = timeline
  if (points.length > MAX_TIMELINE_POINTS) {
    return {
      timeline: null,
      timelineSkipped: `${points.length} points, more than the lab writes (${MAX_TIMELINE_POINTS} at most drawn)`
    }
  }
  const bad = points.findIndex((p) => p === null || typeof p !== 'object' || Array.isArray(p))
  if (bad !== -1) {
    const what = points[bad] === null ? 'null' : typeof points[bad]
    return { timeline: null, timelineSkipped: `point ${bad} is not a point (${what})` }
  }
  return { timeline }
}

function dispatchCell (r) {
  return {
    status: r.checked === false ? 'failed' : 'ok',
    trusted: r.checked === true && !r.impossible?.length,
    why: [
      ...(r.checked === true
        ? []
        : [r.checked === false ? 'returned values did not match' : 'returned values not checked']),
      ...(r.impossible ?? [])
    ],
    meanMs: isNum(r.meanMs) ? r.meanMs : null,
    perCallUs: isNum(r.perCallUs) ? r.perCallUs : null
  }
}

// The --fail-on grammar (fail-on.js), where compare's callers have always found it.
export { FAIL_ON_GRAMMAR, parseFailOn } from './fail-on.js'

// One --fail-on bound on one run: its status, and `fails`: regressed, or put down to the machine without
// allowMachine (the ruler never passes a gate by itself: --allow-machine).
function gateRun (g, key, base, next, prediction, allowMachine = false) {
  const def = METRICS[g.metric]
  const b = base ? def.read(base) : null
  const v = next ? def.read(next) : null
  const out = { key, base: b, value: v, change: null, noise: null, status: 'not comparable', why: null, fails: false }
  if (base?.status === 'failed' || next?.status === 'failed') return { ...out, why: 'a run failed' }
  // a run whose histogram contradicts its own figures is not vouched for: a gate on it fails
  const contradicted = [['the baseline', base], ['this run', next]].find(([, r]) => r?.histogramFault)
  if (contradicted) {
    const change = isNum(b) && isNum(v) && b !== 0 ? v / b - 1 : null
    return {
      ...out, change, status: 'unverified', fails: true, why: `${contradicted[0]}: ${contradicted[1].histogramFault}`
    }
  }
  if (!isNum(b) || !isNum(v)) {
    const flagged = base?.impossible?.length || next?.impossible?.length
    return { ...out, why: flagged ? 'a figure is not a measurement (flagged)' : 'not measured' }
  }
  if (b === 0) return { ...out, why: 'baseline figure is 0' }
  const bounded = g.metric === 'capacity' && gateBoundRefused(base, next)
  if (bounded) return { ...out, why: bounded }
  const refused = g.metric === 'capacity' &&
    targetsDiffer({ sloMs: base.capacity?.sloMs, capacity: b }, { sloMs: next.capacity?.sloMs, capacity: v })
  if (refused) return { ...out, why: refused }
  out.change = v / b - 1
  out.noise = judge(g.metric, intervalOf(base, g.metric) ?? { value: b }, intervalOf(next, g.metric) ?? { value: v },
    prediction, { disturbed: base.disturbed === true || next.disturbed === true, server: serverOf(base) })
  const past = g.sign === '+' ? out.change > g.bound : out.change < -g.bound
  if (!past) return { ...out, status: 'within bound' }
  if (out.noise.verdict === 'within-noise') return { ...out, status: 'within noise' }
  if (out.noise.verdict === 'machine') return { ...out, status: 'machine', fails: !allowMachine }
  if (out.noise.verdict === 'disturbed') return { ...out, status: 'disturbed' }
  return { ...out, status: 'regressed', fails: true }
}

// Why a capacity gate cannot judge a pair, or null: a capacity that is a lower bound (≥) on either side
// is no measurement to gate on (the change it gives is only a bound), as compare's ratio column says.
function gateBoundRefused (base, next) {
  const side = [['the baseline', base], ['this run', next]].find(([, r]) => r?.capacity?.capacity?.bound === AT_LEAST)
  if (!side) return null
  return `${side[0]}'s capacity is a lower bound (≥ ${side[1].capacity.capacity.rps} req/s), not a measurement`
}

// One report made under several runtimes (lab --node 20,24) becomes one entry per runtime, its keys
// without the runtime, so compare sets the runtimes side by side as it sets machines. Other entries
// are returned as they are (their keys carry the runtime, so runs line up runtime by runtime).
export function splitByRuntime (entries) {
  if (entries.length !== 1) return entries
  const [{ file, report }] = entries
  const labels = [...new Set(report.results.map((r) => r.runtime?.label).filter(Boolean))]
  if (labels.length < 2) return entries
  return labels.map((label) => {
    const results = report.results
      .filter((r) => r.runtime?.label === label)
      .map((r) => ({ ...r, key: withoutRuntime(r.key) }))
    const name = `${report.label ?? report.machine?.hostname ?? file} · ${runtimeName(results[0].runtime) ?? label}`
    return { file: `${file} (${label})`, report: { ...report, label: name, results, runtime: label } }
  })
}

// The runtime each report's servers ran under (`bun 1.4.5`, or a Node version): one, or null when several.
function serverNode (report) {
  // Node as process.version (as reports from before --runtime have it), Bun and Deno by their own name
  const of = (rt) => (rt?.name && rt.name !== 'node' ? runtimeName(rt) : rt?.node)
  const versions = new Set(report.results.map((r) => of(r.runtime) ?? report.machine?.node ?? null))
  return versions.size === 1 ? [...versions][0] : null
}

// The arguments of compareReports, checked (a CompareError, exit 2, naming what is wrong).
function checkArguments (entries, { baseline, units }) {
  if (!Array.isArray(entries) || entries.length < 2) {
    throw new CompareError('compare needs at least two reports', 'LAB_COMPARE_TOO_FEW')
  }
  if (!UNITS.includes(units)) {
    throw new CompareError(
      `--units must be one of ${UNITS.join(', ')}, got ${JSON.stringify(units)}`,
      'LAB_COMPARE_UNITS'
    )
  }
  if (!Number.isInteger(baseline) || baseline < 0 || baseline >= entries.length) {
    throw new CompareError(`baseline must be one of the ${entries.length} reports`, 'LAB_COMPARE_BASELINE')
  }
}

// One map key → result per report; a key repeated inside one report keeps its first run (noted).
function runsByKey (entries, notes) {
  return entries.map(({ file, report }) => {
    const map = new Map()
    for (const r of report.results) {
      if (!r || typeof r !== 'object' || typeof r.key !== 'string') continue
      if (map.has(r.key)) notes.push(`${file}: run ${r.key} appears more than once; the first is compared`)
      else map.set(r.key, withoutImpossible(r))
    }
    return map
  })
}

// The keys in at least two reports, the baseline's order first, then each other report's.
function sharedKeys (byKey, baseline) {
  const order = [baseline, ...byKey.map((_, i) => i).filter((i) => i !== baseline)]
  const keys = []
  const seen = new Set()
  for (const i of order) {
    for (const key of byKey[i].keys()) {
      if (seen.has(key)) continue
      seen.add(key)
      if (byKey.filter((m) => m.has(key)).length >= 2) keys.push(key)
    }
  }
  if (keys.length === 0) {
    throw new CompareError(
      'the reports have no run in common (a run is matched by server, variant and work: its "key")',
      'LAB_COMPARE_NOTHING_IN_COMMON'
    )
  }
  return keys
}

// The strategy a run's floors are kept under (COMPARE.serverFloors): its server, or server/variant.
function serverOf (run) {
  if (!run?.server) return null
  return run.variant ? `${run.server}/${run.variant}` : run.server
}

// What the rulers of two reports predict for a run moved from the baseline's machine to another's
// (result/machine.js), with latency in service units divided by the service times; null without both rulers.
function predictionOf ({ baseReport, report, baseRun, run, units }) {
  if (!baseRun || !run) return null
  const workMs = serviceMs(baseReport, baseRun.work, baseRun.runtime?.label)
  const p = predict({ rulerA: baseReport.ruler, rulerB: report.ruler, runA: baseRun, runB: run, workMs })
  if (!p || units !== 'service') return p
  const other = serviceMs(report, run.work, run.runtime?.label)
  return isNum(workMs) && isNum(other) && other > 0 ? { ...p, latency: p.latency * workMs / other } : p
}

// A cell's ratios to the baseline's and, for HTTP runs, the verdict on each (result/verdict.js).
function againstBaseline (c, i, { kind, base, baseRun, run, baseline, baseReport, report, units, floors }) {
  if (kind === 'dispatch') {
    c.meanRatio = ratio(c.meanMs, base?.meanMs)
    return
  }
  c.rpsRatio = ratio(c.rps, base?.rps)
  c.p99Ratio = ratio(c.p99, base?.p99)
  const differ = i === baseline ? null : targetsDiffer(base, c)
  c.capacityRefused = i === baseline ? null : differ ?? boundsRefused(base, c)
  // why, as a code: 'targets-differ', or 'bound' (a lower bound, or no capacity to divide); null: compared
  c.capacityRefusedBy = differ ? 'targets-differ' : c.capacityRefused ? 'bound' : null
  c.capacityRatio = c.capacityRefused ? null : ratio(c.capacity, base?.capacity)
  // a lower bound over a measurement: the ratio is at least this much
  c.capacityRatioSign = isNum(c.capacityRatio) && c.capacityBound === AT_LEAST ? '≥' : null
  if (i === baseline || !base) return
  c.prediction = predictionOf({ baseReport, report, baseRun, run, units })
  c.verdicts = {}
  for (const m of JUDGED) {
    if (m === 'capacity' && (c.capacityRefused || !isNum(c.capacity) || !isNum(base.capacity))) continue
    const a = base.intervals[m] ?? (isNum(base[m]) ? { value: base[m] } : null)
    const b = c.intervals[m] ?? (isNum(c[m]) ? { value: c[m] } : null)
    if (a && b) {
      const disturbed = base.disturbed || c.disturbed
      c.verdicts[m] = judge(m, a, b, c.prediction, { disturbed, server: serverOf(run), floors })
    }
  }
}

// One row of the comparison: the run's cell in each report (null where it has none), against the baseline.
function rowOf (key, entries, byKey, { baseline, units, floors }) {
  const first = byKey.find((m) => m.has(key)).get(key)
  const kind = isInProcess(first) ? 'dispatch' : 'http' // an in-process case: its mean time
  const cells = entries.map(({ report }, i) => {
    const r = byKey[i].get(key)
    if (!r) return null
    return kind === 'dispatch' ? dispatchCell(r) : httpCell(r, report, units)
  })
  const base = cells[baseline]
  const baseRun = byKey[baseline].get(key)
  const baseReport = entries[baseline].report
  cells.forEach((c, i) => c && againstBaseline(c, i, {
    kind, base, baseRun, run: byKey[i].get(key), baseline, baseReport, report: entries[i].report, units, floors
  }))
  const { server = null, variant = null, work = null, mode = null } = first
  return { key, kind, server, variant, work, mode, cells }
}

// A request mix's classes, run by run (result/mix.js classFigures): for every HTTP run with a mix and
// every class its baseline run has, one row { key, name, cells } with per report { rps, p50, p99, sloMs,
// failed, p99Ratio } (p99Ratio: p99 over the baseline's; null for the baseline or a missing figure), or
// null where that report's run has no such class. [] when no run had a mix.
function classRowsOf (rows, byKey, baseline) {
  const out = []
  for (const row of rows.filter((r) => r.kind === 'http')) {
    const runs = byKey.map((m) => m.get(row.key) ?? null)
    for (const name of (runs[baseline]?.classes ?? []).map((c) => c.name)) {
      const cells = runs.map((r) => {
        const c = r?.classes?.find((x) => x.name === name)
        if (!c) return null
        const { p50 = null, p99 = null } = c.latency ?? {}
        return { rps: c.rps, p50, p99, sloMs: c.sloMs ?? null, failed: errorsOf(c.requests) }
      })
      const base = cells[baseline]
      for (const [i, c] of cells.entries()) {
        if (c) c.p99Ratio = i !== baseline && isNum(c.p99) && base?.p99 > 0 ? c.p99 / base.p99 : null
      }
      out.push({ key: row.key, name, cells })
    }
  }
  return out
}

// How each report is named and described in the comparison.
function reportsOf (entries, keys, byKey, baseline) {
  return entries.map(({ file, report }, i) => ({
    file,
    name: machineLine(report) || file,
    letter: letter(i),
    id: report.id ?? null,
    label: report.label ?? null,
    createdAt: report.createdAt ?? null,
    experiment: report.experiment ?? null,
    machine: report.machine ?? {},
    method: report.method ?? {},
    baseline: i === baseline,
    missing: keys.filter((k) => !byKey[i].has(k)).length
  }))
}

// What the reader must know to read the comparison: service units a report cannot give, and servers
// that ran under different runtimes (a variable like the machine).
function comparisonNotes ({ entries, rows, reports, units, byKey }) {
  const notes = []
  for (const row of units === 'service' ? rows.filter((r) => r.kind === 'http') : []) {
    row.cells.forEach((c, i) => {
      if (c && c.serviceMs === null) {
        notes.push(
          `${reports[i].letter} (${reports[i].file}) has no calibration for ${row.work}: ` +
            `its latency for ${row.key} cannot be shown in service times`
        )
      }
    })
  }
  for (const row of rows) {
    row.cells.forEach((c, i) => {
      if (c?.capacityRefused) notes.push(`${reports[i].letter} ${row.key}: ${c.capacityRefused}`)
    })
    row.cells.forEach((c, i) => {
      if (!c?.timelineSkipped) return
      notes.push(`${reports[i].letter} (${reports[i].file}): the timeline of ${row.key} is not drawn: ` +
        c.timelineSkipped)
    })
  }
  for (const n of sameReportNotes(entries, reports)) notes.push(n)
  for (const row of rows.filter((r) => r.kind === 'http')) {
    const closed = byKey.map((m) => m.get(row.key))
      .map((r, i) => [reports[i].letter, r && r.loop !== 'open' && !r.rate ? r.connections : null])
      .filter(([, c]) => isNum(c))
    if (new Set(closed.map(([, c]) => c)).size > 1) notes.push(connectionsText(row.key, closed))
  }
  reports.forEach((r, i) => {
    const unjudged = (row) => Object.values(row.cells[i]?.verdicts ?? {}).some((v) => v.verdict === 'no-interval')
    const raw = rows.filter(unjudged)
    if (!raw.length) return
    notes.push(`${r.letter}: ${raw.length} run(s) with a ratio marked no interval (first ${raw[0].key}): it or the ` +
      "baseline's run has no latency histogram or timeline to give that figure an interval, so the ratio is shown " +
      'raw and not judged')
  })
  const nodes = entries.map(({ report }) => serverNode(report))
  if (nodes.every(Boolean) && new Set(nodes).size > 1 && !entries.some(({ report }) => report.runtime)) {
    notes.push(
      `the servers ran under different runtimes (${reports.map((r, i) => `${r.letter} ${nodes[i]}`).join(', ')}): ` +
        'the runtime differs as well as the machine (lab --runtime runs the same runtimes on each machine)'
    )
  }
  // Figures a runtime could not measure are "—" in every report, never 0: say which and why.
  entries.forEach(({ report }, i) => {
    for (const line of unmeasuredLines(report.results)) notes.push(`${reports[i].letter}: ${unmeasuredText(line)}`)
  })
  return notes
}

// A report given twice (the same file, or the same id): its ratios are 1 by construction, which says nothing.
function sameReportNotes (entries, reports) {
  const notes = []
  entries.forEach(({ report }, i) => {
    const j = entries.findIndex((e, k) => k < i && (e.report === report ||
      (typeof report.id === 'string' && e.report.id === report.id && e.report.createdAt === report.createdAt)))
    if (j === -1) return
    notes.push(`${reports[i].letter} is the same report as ${reports[j].letter} (id ${report.id ?? 'none'}): ` +
      'its ratios are 1 by construction, not a measured comparison')
  })
  return notes
}

// The untrusted and failed runs, with their reasons.
function flagsOf (rows) {
  const flags = []
  for (const row of rows) {
    row.cells.forEach((c, i) => {
      if (c && !c.trusted) flags.push({ report: i, key: row.key, status: c.status, why: c.why })
    })
  }
  return flags
}

// --fail-on: each bound, for each other report, on every HTTP run it shares with the baseline. A bound on a
// figure no run of any report has is an error naming it: a gate that matches nothing never passes silently.
function gatesOf (failOn, { entries, rows, byKey, baseline, allowMachine }) {
  for (const g of failOn) {
    if (byKey.some((m) => [...m.values()].some((r) => isNum(METRICS[g.metric].read(r))))) continue
    throw new CompareError(`--fail-on ${g.spec} matches no run: no report has the figure ${g.metric}`,
      'LAB_COMPARE_FAIL_ON')
  }
  return failOn.map((g) => ({
    ...g,
    runs: entries.flatMap((_, i) => i === baseline
      ? []
      : rows.filter((row) => row.kind === 'http' && row.cells[i] && row.cells[baseline])
        .map((row) => ({
          report: i,
          ...gateRun(g, row.key, byKey[baseline].get(row.key), byKey[i].get(row.key), row.cells[i].prediction ?? null,
            allowMachine)
        })))
  }))
}

// Each run's phases side by side (result/phases.js): for every HTTP run whose baseline run has phases, one
// row { key, phase, cells } per phase either has, with per report { mean (ms), p99At (ms of it in the
// request at the latency's p99), meanRatio, p99AtRatio (over the baseline's; null for the baseline, a
// missing figure or a baseline of 0) }, or null where that report's run has no phases. [] when none has.
function phaseRowsOf (rows, byKey, baseline) {
  const out = []
  for (const row of rows.filter((r) => r.kind === 'http')) {
    const runs = byKey.map((m) => m.get(row.key)?.phases ?? null)
    if (!runs[baseline]?.phases) continue
    const names = PHASES.filter((p) => runs.some((f) => f?.phases?.[p]))
    for (const phase of names) {
      const cells = runs.map((f) => f?.phases
        ? { mean: numOrNull(f.phases[phase]?.mean), p99At: numOrNull(f.at?.p99?.phases?.[phase]) }
        : null)
      const base = cells[baseline]
      for (const [i, c] of cells.entries()) {
        if (!c) continue
        c.meanRatio = i === baseline ? null : ratio(c.mean, base.mean)
        c.p99AtRatio = i === baseline ? null : ratio(c.p99At, base.p99At)
      }
      out.push({ key: row.key, phase, cells })
    }
  }
  return out
}

// The ruler figures a machine's column shows (result/machine.js flatFigures), or null without a ruler.
const RULER_LINE = ['cores.effective', 'single.loop', 'loopback.rps', 'loopback.rttMs', 'spawn.workerMs',
  'spawn.processMs', 'timerLagMs']
// `setAside`: why the ruler explains nothing (result/ruler-trust.js), or null; `moved` recomputed from its readings.
function rulerLineOf (report) {
  const f = flatFigures(report.ruler)
  if (!f) return null
  const setAside = rulerSetAside(report)
  const out = { offered: f.offered ?? null, moved: setAside?.code === 'moved', setAside }
  for (const name of RULER_LINE) out[name] = f[name] ? { value: f[name].value, spreadPct: f[name].spreadPct } : null
  return out
}

// Each machine's ranking of the strategies: the HTTP runs in this report ordered by capacity where every
// one it ran has a capacity (a capacity run), else by req/s; { figure, order: [key …], top }.
function rankingOf (rows, i) {
  const cells = rows.filter((r) => r.kind === 'http' && r.cells[i] && r.cells[i].status !== 'failed')
  if (!cells.length) return { figure: null, order: [], top: null }
  const figure = cells.every((r) => isNum(r.cells[i].capacity)) ? 'capacity' : 'rps'
  const order = cells.filter((r) => isNum(r.cells[i][figure]))
    .sort((x, y) => y.cells[i][figure] - x.cells[i][figure]).map((r) => r.key)
  return { figure, order, top: order[0] ?? null }
}

// True when two runs' intervals of `figure` on one machine are apart (neither reaches the other).
function apart (rows, i, x, y, figure) {
  const of = (key) => rows.find((r) => r.key === key)?.cells[i]?.intervals?.[figure]
  const a = of(x)
  const b = of(y)
  return Boolean(a && b && (a.low > b.high || b.low > a.high))
}

// Where the ranking flips between the baseline's machine and another's: each pair of runs both rank whose
// order differs ({ report, above, below, sure }: `above` ranked over `below` on the baseline, under it
// there; `sure` when on both machines the two runs' intervals are apart, not a tie within noise), and
// whether the decision differs: each report's own (`chosen[i]`, its decision block's run) where both have
// one, else the top of the ranking.
function flipsOf (rankings, baseline, rows, chosen) {
  const base = rankings[baseline]
  const flips = []
  const decisions = []
  rankings.forEach((r, i) => {
    if (i === baseline || r.figure !== base.figure) return
    const at = new Map(r.order.map((k, j) => [k, j]))
    const shared = base.order.filter((k) => at.has(k))
    for (let x = 0; x < shared.length; x++) {
      for (let y = x + 1; y < shared.length; y++) {
        if (at.get(shared[x]) <= at.get(shared[y])) continue
        const sure = apart(rows, baseline, shared[x], shared[y], base.figure) &&
          apart(rows, i, shared[x], shared[y], base.figure)
        flips.push({ report: i, above: shared[x], below: shared[y], sure })
      }
    }
    const own = chosen[baseline] !== null && chosen[i] !== null
    const was = own ? chosen[baseline] : shared[0]
    const top = own ? chosen[i] : (r.order.find((k) => base.order.includes(k)) ?? null)
    if (top !== null && was !== undefined && top !== was) {
      const sure = apart(rows, baseline, was, top, base.figure) && apart(rows, i, was, top, base.figure)
      decisions.push({ report: i, was, now: top, sure })
    }
  })
  return { flips, decisions }
}

// The machines side by side: per report its ruler line and ranking, and the flips against the baseline.
function machinesOf (entries, rows, baseline) {
  const rankings = entries.map((_, i) => rankingOf(rows, i))
  const chosen = entries.map(({ report }) => (typeof report.decision?.key === 'string' ? report.decision.key : null))
  const { flips, decisions } = flipsOf(rankings, baseline, rows, chosen)
  return {
    rulers: entries.map(({ report }) => rulerLineOf(report)),
    noRuler: entries.flatMap(({ report }, i) => (rulerLineOf(report) ? [] : [i])),
    rankings,
    flips,
    decisions,
    // reports with rounds: each one's ratios to one baseline strategy, paired on its machine (compare/machines.js)
    paired: pairedAcross(entries, baseline)
  }
}

// Compares checked reports: `entries` is [{ file, report }], `baseline` an index into it, `units` one
// of UNITS. Returns { units, baseline, reports, rows, classes, phases, machines, flags, gates, notes }
// (see compare/render.js);
// throws a CompareError when fewer than two reports are given or they share no run.
// `floors`: the strategies' own floors (COMPARE.serverFloors unless a validation fits its own; null: none).
export function compareReports (entries, opts = {}) {
  const { baseline = 0, units = 'ms', failOn = [], allowMachine = false, floors = COMPARE.serverFloors } = opts
  checkArguments(entries, { baseline, units })
  const notes = []
  const byKey = runsByKey(entries, notes)
  const keys = sharedKeys(byKey, baseline)
  // a ruler set aside (result/ruler-trust.js) predicts nothing: its report's ratios are judged raw
  const judged = entries.map((e) => (rulerSetAside(e.report) ? { ...e, report: { ...e.report, ruler: null } } : e))
  const rows = keys.map((key) => rowOf(key, judged, byKey, { baseline, units, floors }))
  const reports = reportsOf(entries, keys, byKey, baseline)
  for (const n of comparisonNotes({ entries, rows, reports, units, byKey })) notes.push(n)
  const gates = gatesOf(failOn, { entries, rows, byKey, baseline, allowMachine })
  const classes = classRowsOf(rows, byKey, baseline)
  const phases = phaseRowsOf(rows, byKey, baseline)
  const machines = machinesOf(entries, rows, baseline)
  machines.rulers.forEach((r, i) => r?.setAside && notes.push(setAsideText(reports[i].letter, r.setAside)))
  return {
    units,
    baseline,
    reports,
    rows,
    classes,
    phases,
    machines,
    flags: flagsOf(rows),
    gates,
    allowMachine,
    notes: [...new Set(notes)]
  }
}

// The comparison as `compare --json` prints it: all of it but the timelines drawn on the page (a cell's
// `timeline`), with every figure a JSON number or null (an open interval's Infinity becomes null).
export function comparisonData (cmp) {
  const rows = cmp.rows.map((row) => ({
    ...row,
    cells: row.cells.map((c) => {
      if (!c) return null
      const { timeline, ...rest } = c
      return rest
    })
  }))
  return JSON.parse(JSON.stringify({ ...cmp, rows }))
}

// True when a --fail-on bound failed a run: regressed, put down to the machine without --allow-machine, or
// a run whose histogram contradicts it (the compare CLI then exits 99).
export function anyRegressed (cmp) {
  return (cmp.gates ?? []).some((g) => g.runs.some((r) => r.fails))
}

// Column-group letter of report i: A, B, …, Z, AA, AB, …
export function letter (i) {
  let s = ''
  let n = i
  do {
    s = String.fromCharCode(65 + (n % 26)) + s
    n = Math.floor(n / 26) - 1
  } while (n >= 0)
  return s
}
