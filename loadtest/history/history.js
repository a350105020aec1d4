// A history of runs: every report in some folders, its figures grouped into series (experiment, run key
// and figure), each in time order with its report, commit (--label and the commit the lab recorded) and
// machine (machine.js: its machine block). Each machine's part of a series is tested for change points
// (result/changepoint.js); where a series moves from one machine to another and its figure moves with it (the
// t-test, as for a code change), that change is the machine's, not the code's, and is named so. A run the lab
// marked disturbed is tested all the same, and said. Reading is bounded: a report's figures are kept, the report
// itself is not; folders are read MAX_DEPTH deep.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileErrorText, readReportFile } from '../report/read.js'
import { FAIL_ON_METRICS, failOnBounds, parseFailOn } from '../compare/fail-on.js'
import { withoutImpossible } from '../compare/impossible.js'
import { changePoints, summary, welch } from '../result/changepoint.js'
import { CHANGE } from '../result/rules.js'
import { METRICS } from '../report/thresholds.js'
import { isInProcess } from '../result/kind.js'
import { figureKind, higherIsBetter } from '../result/better.js'
import { rulerFault } from '../result/ruler.js'
import { isNum } from '../result/stats.js'
import { rulerFaultText } from '../text/ruler.js'
import { describe, LabError, usageError } from '../errors.js'
import { assignMachines } from './machine.js'

// The figures a history follows by default, with their unit; a gate's figure is followed as well.
export const DEFAULT_FIGURES = Object.freeze(['p50', 'p99', 'rps', 'capacity'])
// An in-process case's figure (dispatch, offload): its mean time per case.
const IN_PROCESS_FIGURE = 'meanMs'

// A task's hash in a run key or work spec: `task:NAME[#EXPORT]@HASH` (result/key.js).
const TASK_HASH = /(task:[^#@]*(?:#[^@#]*)?)@([0-9a-f]+)/

// Which way is better for a figure (result/better.js), where history's callers have found it.
export { higherIsBetter }

function unitOf (figure) {
  const kind = figureKind(figure)
  return kind === 'rate' ? 'req/s' : kind === 'ratio' ? 'ratio' : 'ms'
}

// A report's time as the lab writes it (ISO 8601, UTC or with an offset): its epoch ms, or null for text
// that is no time ('', 'zzzz', month 13, day 31 of a 30-day month).
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/
export function timeOf (text) {
  const m = typeof text === 'string' ? ISO_TIME.exec(text) : null
  if (!m) return null
  const [y, mo, d, h, mi, sec] = m.slice(1).map(Number)
  const day = new Date(Date.UTC(y, mo - 1, d))
  if (mo < 1 || mo > 12 || day.getUTCDate() !== d || h > 23 || mi > 59 || sec > 59) return null
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : null
}

// How many folders below a folder given history reads (reports/reference/compare-validation is one below):
// deeper folders are not read, and each is named in `deeper`.
export const MAX_DEPTH = 3

// The report files of the paths given (a folder: its .json and .json.gz files, sorted, then its folders' to
// MAX_DEPTH; a file: itself), and `deeper`, the folders past that depth, not read. A linked folder is not
// entered (no loop). A path that does not exist is a usage error (exit 2): nothing was read.
export function reportFiles (paths, { deeper = [] } = {}) {
  const files = []
  for (const p of paths) {
    let info
    try {
      info = statSync(p)
    } catch (err) {
      throw usageError(`history: cannot read ${p}: ${fileErrorText(err)}`)
    }
    if (info.isDirectory()) folderFiles(p, 0, { files, deeper })
    else files.push(p)
  }
  return files
}

// A folder's report entries (as files: one that is not is left out with its line) and its folders', in order.
function folderFiles (dir, depth, { files, deeper }) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))
  files.push(...entries.filter((e) => /\.json(\.gz)?$/.test(e.name)).map((e) => join(dir, e.name)))
  for (const e of entries.filter((x) => x.isDirectory() && !/\.json(\.gz)?$/.test(x.name))) {
    if (depth + 1 > MAX_DEPTH) deeper.push(join(dir, e.name))
    else folderFiles(join(dir, e.name), depth + 1, { files, deeper })
  }
}

// What a history keeps of one report: its id, time, commit, ruler, machine block and figures. A figure no
// measurement gives (compare/impossible.js: a negative latency, 1e308 req/s) is not followed, and a run
// whose histogram contradicts its figures is untrusted; each reason goes to `dropped`.
function kept (report, file, figures, dropped) {
  const results = []
  for (const raw of report.results) {
    if (raw === null || typeof raw !== 'object' || typeof raw.key !== 'string' || raw.status === 'failed') continue
    const r = withoutImpossible(raw)
    for (const why of r.impossible) dropped.push(`${file}: run ${raw.key}: ${why}: not followed`)
    if (r.histogramFault) dropped.push(`${file}: run ${raw.key}: ${r.histogramFault}: untrusted, not tested`)
    const trusted = r.trusted !== false && !(Array.isArray(r.untrusted) && r.untrusted.length) && !r.histogramFault
    const values = {}
    if (isInProcess(r)) {
      if (isNum(r.meanMs)) values[IN_PROCESS_FIGURE] = r.meanMs
    } else {
      for (const f of figures) {
        const v = Object.hasOwn(METRICS, f) ? METRICS[f].read(r) : null
        if (isNum(v)) values[f] = v
      }
    }
    const { key, server = null, variant = null, work = null } = r
    results.push({ key, server, variant, work, trusted, disturbed: r.disturbed === true, values })
  }
  return {
    id: report.id,
    file,
    at: report.createdAt,
    ms: timeOf(report.createdAt),
    experiment: report.experiment,
    // --label, then the commit the lab recorded (its first 12 hex digits): 'ci 1a2b3c4d5e6f'
    commit: [report.label, report.method?.commit?.slice(0, 12)].filter(Boolean).join(' ') || null,
    ruler: report.ruler ?? null,
    machine: report.machine ?? null,
    results
  }
}

// Reads every report of `files` with the lab's safe reader (report/read.js: bounded, parsed, this schema);
// each that cannot be read or is no report of this schema, and each that repeats an id read before, is left
// out with one line: { reports, skipped: [{ file, code, message }] }. The schema's full check (ajv) is not
// made: it would double the time of a thousand reports, and history reads few fields, each checked here.
export async function readReports (files, { figures = DEFAULT_FIGURES } = {}) {
  const reports = []
  const skipped = []
  const ids = new Map()
  for (const file of files) {
    let report
    try {
      report = readReportFile(file) // bounded, JSON, a report of this schema with results (report/read.js)
    } catch (err) {
      if (!err.code?.startsWith?.('LAB_')) throw err
      skipped.push({ file, code: err.code, message: err.message })
      continue
    }
    const bad = typeof report.id !== 'string' ? 'id' : typeof report.createdAt !== 'string' ? 'createdAt' : null
    if (bad) {
      skipped.push({
        file,
        code: 'LAB_REPORT_INVALID',
        message: `${file} has no string "${bad}": not a report ` +
        'the lab wrote'
      })
      continue
    }
    if (timeOf(report.createdAt) === null) {
      const message = `${file} has createdAt ${describe(report.createdAt)}: not a time (ISO 8601, as the lab writes it)`
      skipped.push({ file, code: 'LAB_REPORT_INVALID', message })
      continue
    }
    const ruler = report.ruler === undefined || report.ruler === null ? null : rulerFault(report.ruler)
    if (ruler) {
      skipped.push({ file, code: 'LAB_REPORT_INVALID', message: `${file}: ${rulerFaultText(ruler)}` })
      continue
    }
    if (ids.has(report.id)) {
      const message = `${file} has the id ${report.id} of ${ids.get(report.id)}: left out`
      skipped.push({ file, code: 'LAB_HISTORY_DUPLICATE', message })
      continue
    }
    ids.set(report.id, file)
    const dropped = []
    reports.push(kept(report, file, figures, dropped))
    for (const message of dropped) skipped.push({ file, code: 'LAB_REPORT_FIGURE', message })
  }
  return { reports, skipped }
}

// A point that was measured: trusted, or untrusted because the lab marked it disturbed.
const testedPoint = (p) => p.trusted || p.disturbed

// The points of one machine the test reads: its trusted ones, or, where they are too few for the test, those
// the lab marked disturbed as well (said: `withDisturbed`), so that a busy machine's series is still tested.
function testedOf (points, idx, params) {
  const quiet = idx.filter((i) => points[i].trusted)
  const all = idx.filter((i) => testedPoint(points[i]))
  const withDisturbed = quiet.length < 2 * params.minSegment && all.length > quiet.length
  return { tested: withDisturbed ? all : quiet, withDisturbed }
}

// The changes of one machine's points (`tested`: indexes into the series' points): code changes.
function codeChanges (points, tested, params) {
  const values = tested.map((i) => points[i].value)
  const found = changePoints(values, params)
  const changes = found.points.map((c) => ({
    index: tested[c.index],
    cause: 'code',
    pValue: c.pValue,
    before: c.before,
    after: c.after,
    change: c.change
  }))
  return { status: found.status, points: values.length, changes }
}

// One series: its points, each machine's test, and its changes (code and machine) in time order.
function seriesOf (base, points, { beyond, rulerMoved }, params) {
  const byMachine = new Map()
  points.forEach((p, i) => byMachine.set(p.machine, [...(byMachine.get(p.machine) ?? []), i]))
  const tests = []
  const changes = []
  const read = new Set()
  for (const [machine, idx] of byMachine) {
    const { tested, withDisturbed } = testedOf(points, idx, params)
    for (const i of tested) read.add(i)
    const t = codeChanges(points, tested, params)
    tests.push({ machine, status: t.status, points: t.points, withDisturbed })
    changes.push(...t.changes.map((c) => ({ ...c, machine })))
  }
  // a machine change: where the series moves to another machine, the run of points before against the run after
  const runs = []
  points.forEach((p, i) => {
    if (runs.length && runs.at(-1).machine === p.machine) runs.at(-1).to = i + 1
    else runs.push({ machine: p.machine, from: i, to: i + 1 })
  })
  for (let k = 1; k < runs.length; k++) {
    const prev = runs[k - 1]
    const next = runs[k]
    const cut = (from, to) => changes.filter((c) => c.cause === 'code' && c.index > from && c.index < to)
      .map((c) => c.index)
    const from = Math.max(prev.from, ...cut(prev.from, prev.to))
    const to = Math.min(next.to, ...cut(next.from, next.to))
    const values = (a, b) => points.slice(a, b).filter((p, i) => read.has(a + i)).map((p) => p.value)
    const left = values(from, prev.to)
    const right = values(next.from, to)
    const before = summary(left)
    const after = summary(right)
    const pValue = left.length && right.length ? welch(before, after).pValue : null
    if (pValue === null || pValue > params.maxPValue) continue // the series did not move with the machine
    changes.push({
      index: next.from,
      cause: 'machine',
      pValue,
      before,
      after,
      change: before.mean ? after.mean / before.mean - 1 : null,
      machine: next.machine,
      from: prev.machine,
      figures: beyond(prev.machine, next.machine)
    })
  }
  changes.sort((a, b) => a.index - b.index || (a.cause === 'machine' ? -1 : 1))
  const higher = higherIsBetter(base.figure)
  for (const c of changes) {
    const p = points[c.index]
    // the last point the test saw before the change: the change happened after it, by `report` (reports
    // between the two were untrusted, and not tested)
    let j = c.index - 1
    while (j >= 0 && !read.has(j)) j--
    Object.assign(c, { report: p.report, at: p.at, commit: p.commit, since: j >= 0 ? points[j].report : null })
    c.worse = isNum(c.change) && c.change !== 0 ? (c.change > 0) !== higher : false
    // a ruler that moved beside a change of code flags it; the machine block says it is still code
    if (c.cause === 'code') c.ruler = c.since ? rulerMoved(c.since, c.report) : []
  }
  const status = tests.some((t) => t.status === 'tested') ? 'tested' : 'too-short'
  const disturbed = points.filter((p) => p.disturbed).length
  return { ...base, unit: unitOf(base.figure), higherIsBetter: higher, status, disturbed, points, tests, changes }
}

// The history of `reports` (readReports' reports): { kind, parameters, reports, machines, series }.
export function buildHistory (reports, { params = {} } = {}) {
  const parameters = checkedParams(params)
  const ordered = [...reports].sort((a, b) => a.ms - b.ms || a.id.localeCompare(b.id))
  const { machines, of, beyond, rulerMoved } = assignMachines(ordered)
  const groups = new Map()
  for (const report of ordered) {
    for (const r of report.results) {
      // a task's work names its file's hash (task:NAME@HASH): the code measured, which a history follows
      // over time, so the series is the task's name and the hash goes with the point
      const taskHash = TASK_HASH.exec(r.key)?.[2] ?? null
      const key = r.key.replace(TASK_HASH, '$1')
      const work = typeof r.work === 'string' ? r.work.replace(TASK_HASH, '$1') : null
      for (const [figure, value] of Object.entries(r.values)) {
        const id = `${report.experiment} ${key} ${figure}`
        if (!groups.has(id)) {
          const { server, variant } = r
          const base = { id, experiment: report.experiment, key, server, variant, work, figure }
          groups.set(id, { base, points: [] })
        }
        const { at, commit } = report
        const machine = of.get(report.id)
        const point = { report: report.id, at, commit, machine, value, trusted: r.trusted, disturbed: r.disturbed }
        groups.get(id).points.push(taskHash ? { ...point, taskHash } : point)
      }
    }
  }
  const series = [...groups.values()].map((g) => seriesOf(g.base, g.points, { beyond, rulerMoved }, parameters))
  return {
    kind: 'loadlab-history',
    parameters,
    reports: ordered.map((r) => ({
      id: r.id, file: r.file, at: r.at, commit: r.commit, machine: of.get(r.id), ruler: r.ruler !== null
    })),
    machines,
    series
  }
}

// The history of the reports in `paths` (folders or files): buildHistory's object with `skipped` (the
// reports left out, each with its one line), `failures` (gateFailures of the failOnChange bounds: strings
// such as 'p99:+10%', or parsed) and `passedDisturbed` (with allowDisturbed). A gate's figure is followed too.
export async function history (paths, opts = {}) {
  const { figures = DEFAULT_FIGURES, params = {}, failOnChange = [], allowDisturbed = false } = opts
  if (!Array.isArray(paths) || !paths.length || !paths.every((p) => typeof p === 'string')) {
    throw usageError('history: expected an array of one or more folders (or report files)')
  }
  const bounds = failOnBounds(failOnChange, { option: 'history: failOnChange', error: usageError })
  const followed = [...new Set([...checkedFigures(figures), ...bounds.map((b) => b.metric)])]
  checkedParams(params)
  const deeper = []
  const files = reportFiles(paths, { deeper })
  const { reports, skipped } = await readReports(files, { figures: followed })
  for (const dir of deeper) {
    const message = `${dir}: more than ${MAX_DEPTH} folders down, not read`
    skipped.push({ file: dir, code: 'LAB_HISTORY_DEEPER', message })
  }
  if (!reports.length) throw noReports(paths, files, skipped)
  const h = { ...buildHistory(reports, { params }), skipped }
  for (const b of bounds) {
    if (!h.series.some((s) => s.figure === b.metric)) throw unmatched(b, h)
  }
  const gate = { allowDisturbed }
  return { ...h, failures: gateFailures(h, bounds, gate), passedDisturbed: passedDisturbed(h, bounds, gate) }
}

// A --fail-on-change bound, parsed as compare's --fail-on is (fail-on.js; its message names this option).
export function parseBound (spec) {
  return parseFailOn(spec, { option: '--fail-on-change', error: usageError })
}

// No report to follow: an input error (exit 2) naming the paths and why, never an empty history.
function noReports (paths, files, skipped) {
  const where = paths.length === 1 ? paths[0] : `${paths.length} paths`
  const why = !files.length
    ? 'no .json file in it'
    : `${skipped.length} file(s) left out, the first: ${skipped[0]?.message}`
  const err = new LabError('LAB_HISTORY_EMPTY', `history: no report to follow in ${where}: ${why}`, { exitCode: 2 })
  return Object.assign(err, { skipped })
}

// A bound whose figure no series has: an error naming it (a gate that matches nothing never passes silently).
function unmatched (b, h) {
  const figures = [...new Set(h.series.map((s) => s.figure))].join(', ')
  return new LabError('LAB_HISTORY_UNMATCHED', `history: the bound ${b.spec} matches no series: no report ` +
    `has the figure ${b.metric} (the series follow ${figures})`, { exitCode: 2 })
}

// The figures asked for, checked: an array of figures a bound takes (FAIL_ON_METRICS).
function checkedFigures (figures) {
  if (!Array.isArray(figures)) {
    throw usageError(`history: figures: expected an array of figure names, got ${describe(figures)}`)
  }
  for (const f of figures) {
    if (typeof f !== 'string' || !FAIL_ON_METRICS.includes(f)) {
      throw usageError(`history: figures: ${describe(f)} is no figure; expected some of ${FAIL_ON_METRICS.join(', ')}`)
    }
  }
  return figures
}

// The change-point parameters (CHANGE's, each given one replacing its default), each checked against its
// type and range: a usage error names the first that is not (a minSegment of 0 would never end).
const PARAMS = {
  maxPValue: { test: (v) => isNum(v) && v > 0 && v <= 1, range: 'a number in (0, 1]' },
  weakPValue: { test: (v) => isNum(v) && v > 0 && v <= 1, range: 'a number in (0, 1]' },
  minSegment: { test: (v) => Number.isInteger(v) && v >= 2 && v <= 1000, range: 'a whole number from 2 to 1000' },
  maxPoints: { test: (v) => Number.isInteger(v) && v >= 4 && v <= 10_000, range: 'a whole number from 4 to 10000' }
}
function checkedParams (params) {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw usageError(`history: params: expected an object, got ${describe(params)}`)
  }
  const { maxPValue, weakPValue, minSegment, maxPoints } = CHANGE
  const out = { maxPValue, weakPValue, minSegment, maxPoints }
  for (const [name, v] of Object.entries(params)) {
    if (!Object.hasOwn(PARAMS, name)) {
      throw usageError(`history: params.${name}: no such parameter; expected ${Object.keys(PARAMS).join(', ')}`)
    }
    if (!PARAMS[name].test(v)) {
      throw usageError(`history: params.${name}: expected ${PARAMS[name].range}, got ${describe(v)}`)
    }
    out[name] = v
  }
  return out
}

// The gate: per series and machine, its newest code change when the segment after it is that machine's
// newest, the change worse than the one before past a bound on its figure (parsed --fail-on bounds:
// { metric, sign, bound }) and significant, whatever the ruler says (a change of machine block is no code
// change: it is never one). Without such a change, a machine whose newest CHANGE.minSegment tested runs (the
// fewest a change in them needs) hold one the lab marked disturbed is not passed unless `allowDisturbed`: the
// test could not vouch for them. Returns [{ series, bound, why: 'change'|'disturbed', change (null for
// disturbed), machine, disturbed (of the newest runs) }].
export function gateFailures (hist, bounds, { allowDisturbed = false } = {}) {
  return gateOutcomes(hist, bounds).filter((o) => o.why === 'change' || (o.why === 'disturbed' && !allowDisturbed))
}

// The series a bound follows that the gate passed with --allow-disturbed though the lab marked some of their
// newest runs disturbed: said, so that no gate passes them in silence. gateFailures' disturbed entries.
export function passedDisturbed (hist, bounds, { allowDisturbed = false } = {}) {
  return allowDisturbed ? gateOutcomes(hist, bounds).filter((o) => o.why === 'disturbed') : []
}

// Each bound on each series and machine: a change past it, or newest runs disturbed, or nothing (left out).
function gateOutcomes (hist, bounds) {
  const out = []
  const newest = hist.parameters.minSegment
  for (const s of hist.series) {
    for (const b of bounds.filter((x) => x.metric === s.figure)) {
      for (const t of s.tests) {
        const last = s.changes.filter((c) => c.cause === 'code' && c.machine === t.machine).at(-1)
        const past = last?.worse && last.pValue <= hist.parameters.maxPValue &&
          (b.sign === '+' ? last.change > b.bound : last.change < -b.bound)
        const recent = s.points.filter((p) => p.machine === t.machine && testedPoint(p)).slice(-newest)
        const disturbed = recent.filter((p) => p.disturbed).length
        const base = { series: s.id, bound: b.spec, machine: t.machine, disturbed }
        if (past) out.push({ ...base, why: 'change', change: last })
        // a series too short for the test gates nothing, disturbed or not (its words say it is too short)
        else if (disturbed && t.status === 'tested') {
          out.push({ ...base, why: 'disturbed', change: null, newest: recent.length })
        }
      }
    }
  }
  return out
}
