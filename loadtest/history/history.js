// A history of runs: every report in some folders, its figures grouped into series (experiment, run key
// and figure), each in time order with its report, commit (--label and the commit the lab recorded) and
// machine (machine.js). Each machine's part of a series is tested for change points (result/changepoint.js);
// where a series moves from one machine to another and its figure moves with it (the t-test, as for a code
// change), that change is the machine's, not the code's, and is named so. Reading is bounded: a report's
// figures are kept, the report itself is not.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readReportFile } from '../report/read.js'
import { CompareError, parseFailOn } from '../compare/compare.js'
import { changePoints, summary, welch } from '../result/changepoint.js'
import { CHANGE } from '../result/rules.js'
import { METRICS } from '../report/thresholds.js'
import { isInProcess } from '../result/kind.js'
import { usageError } from '../errors.js'
import { assignMachines } from './machine.js'

// The figures a history follows by default, with their unit; a gate's figure is followed as well.
export const DEFAULT_FIGURES = Object.freeze(['p50', 'p99', 'rps', 'capacity'])
// An in-process case's figure (dispatch, offload): its mean time per case.
const IN_PROCESS_FIGURE = 'meanMs'

// A task's hash in a run key or work spec: `task:NAME[#EXPORT]@HASH` (result/key.js).
const TASK_HASH = /(task:[^#@]*(?:#[^@#]*)?)@([0-9a-f]+)/

const isNum = (v) => typeof v === 'number' && Number.isFinite(v)

// Whether a rise of the figure is better (a rate) or worse (a latency, a time).
export function higherIsBetter (figure) {
  return ['rate', 'ratio'].includes(METRICS[figure]?.kind)
}

function unitOf (figure) {
  const kind = METRICS[figure]?.kind
  return kind === 'rate' ? 'req/s' : kind === 'ratio' ? 'ratio' : 'ms'
}

// The report files of the paths given (a folder: its .json and .json.gz files, sorted; a file: itself). A path that
// does not exist is a usage error (exit 2): nothing was read.
export function reportFiles (paths) {
  const files = []
  for (const p of paths) {
    let info
    try {
      info = statSync(p)
    } catch (err) {
      throw usageError(`history: cannot read ${p}: ${err.code === 'ENOENT' ? 'no such file or folder' : err.code}`)
    }
    if (info.isDirectory()) {
      files.push(...readdirSync(p).filter((f) => /\.json(\.gz)?$/.test(f)).sort().map((f) => join(p, f)))
    } else files.push(p)
  }
  return files
}

// What a history keeps of one report: its id, time, commit, ruler, machine block and figures.
function kept (report, file, figures) {
  const results = []
  for (const r of report.results) {
    if (r === null || typeof r !== 'object' || typeof r.key !== 'string' || r.status === 'failed') continue
    const trusted = r.trusted !== false && !(Array.isArray(r.untrusted) && r.untrusted.length)
    const values = {}
    if (isInProcess(r)) {
      if (isNum(r.meanMs)) values[IN_PROCESS_FIGURE] = r.meanMs
    } else {
      for (const f of figures) {
        const v = METRICS[f]?.read(r)
        if (isNum(v)) values[f] = v
      }
    }
    const { key, server = null, variant = null, work = null } = r
    results.push({ key, server, variant, work, trusted, values })
  }
  return {
    id: report.id,
    file,
    at: report.createdAt,
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
    if (ids.has(report.id)) {
      const message = `${file} has the id ${report.id} of ${ids.get(report.id)}: left out`
      skipped.push({ file, code: 'LAB_HISTORY_DUPLICATE', message })
      continue
    }
    ids.set(report.id, file)
    reports.push(kept(report, file, figures))
  }
  return { reports, skipped }
}

// The changes of one machine's points (indexes into the series' points): code changes.
function codeChanges (points, idx, params) {
  const tested = idx.filter((i) => points[i].trusted)
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
function seriesOf (base, points, beyond, params) {
  const byMachine = new Map()
  points.forEach((p, i) => byMachine.set(p.machine, [...(byMachine.get(p.machine) ?? []), i]))
  const tests = []
  const changes = []
  for (const [machine, idx] of byMachine) {
    const t = codeChanges(points, idx, params)
    tests.push({ machine, status: t.status, points: t.points })
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
    const left = points.slice(from, prev.to).filter((p) => p.trusted).map((p) => p.value)
    const right = points.slice(next.from, to).filter((p) => p.trusted).map((p) => p.value)
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
    while (j >= 0 && !points[j].trusted) j--
    Object.assign(c, { report: p.report, at: p.at, commit: p.commit, since: j >= 0 ? points[j].report : null })
    c.worse = isNum(c.change) && c.change !== 0 ? (c.change > 0) !== higher : false
  }
  const status = tests.some((t) => t.status === 'tested') ? 'tested' : 'too-short'
  return { ...base, unit: unitOf(base.figure), higherIsBetter: higher, status, points, tests, changes }
}

// The history of `reports` (readReports' reports): { kind, parameters, reports, machines, series }.
export function buildHistory (reports, { params = {} } = {}) {
  const { maxPValue, weakPValue, minSegment, maxPoints } = CHANGE
  const parameters = { maxPValue, weakPValue, minSegment, maxPoints, ...params }
  const ordered = [...reports].sort((a, b) => String(a.at).localeCompare(String(b.at)) || a.id.localeCompare(b.id))
  const { machines, of, beyond } = assignMachines(ordered)
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
        const point = { report: report.id, at, commit, machine, value, trusted: r.trusted }
        groups.get(id).points.push(taskHash ? { ...point, taskHash } : point)
      }
    }
  }
  const series = [...groups.values()].map((g) => seriesOf(g.base, g.points, beyond, parameters))
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
// reports left out, each with its one line) and `failures` (gateFailures of the failOnChange bounds: strings
// such as 'p99:+10%', or parsed). A gate's figure is followed too.
export async function history (paths, { figures = DEFAULT_FIGURES, params = {}, failOnChange = [] } = {}) {
  if (!Array.isArray(paths) || !paths.length || !paths.every((p) => typeof p === 'string')) {
    throw usageError('history: expected an array of one or more folders (or report files)')
  }
  const bounds = failOnChange.map((b) => (typeof b === 'string' ? parseBound(b) : b))
  const followed = [...new Set([...figures, ...bounds.map((b) => b.metric)])]
  const { reports, skipped } = await readReports(reportFiles(paths), { figures: followed })
  const h = { ...buildHistory(reports, { params }), skipped }
  return { ...h, failures: gateFailures(h, bounds) }
}

// A --fail-on-change bound, parsed as compare's --fail-on is (its message names this option).
export function parseBound (spec) {
  try {
    return parseFailOn(spec)
  } catch (err) {
    if (err instanceof CompareError) throw usageError(err.message.replace(/^--fail-on /, '--fail-on-change '))
    throw err
  }
}

// The gate: per series and machine, its newest code change when the segment after it is that machine's
// newest, the change worse than the one before past a bound on its figure (parsed --fail-on bounds:
// { metric, sign, bound }) and significant. Returns [{ series, bound, change }].
export function gateFailures (hist, bounds) {
  const out = []
  for (const s of hist.series) {
    for (const b of bounds.filter((x) => x.metric === s.figure)) {
      for (const t of s.tests) {
        const last = s.changes.filter((c) => c.cause === 'code' && c.machine === t.machine).at(-1)
        if (!last || !last.worse || last.pValue > hist.parameters.maxPValue) continue
        const past = b.sign === '+' ? last.change > b.bound : last.change < -b.bound
        if (past) out.push({ series: s.id, bound: b.spec, change: last })
      }
    }
  }
  return out
}
