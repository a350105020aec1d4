// Compare: lines up the runs that several loadlab reports share (same `key`: server, variant and work)
// and computes, per report, the figures and their ratio to a baseline report. Pure: report objects
// in, comparison data out; reading files and printing live in cli.js, rendering in
// render.js.
import { isNum, machineLine } from '../report/html.js'
import { CompareError } from '../errors.js'
import { SCHEMA } from '../report/build.js'

// The report schema this compare understands (reports/README.md).
export { SCHEMA }

// Units compare can show latency in: milliseconds, or multiples of the machine's calibrated service time.
export const UNITS = ['ms', 'service']

// A refusal a user can cause (bad file, bad flag): one of the lab's errors (loadtest/errors.js).
export { CompareError }

// Checks that parsed JSON `data` read from `file` is a report of the schema this compare reads.
export function checkReport (data, file) {
  if (data === null || typeof data !== 'object' || Array.isArray(data) || data.kind !== 'loadlab-report') {
    throw new CompareError(
      `${file} is not a loadlab report (expected "kind": "loadlab-report")`,
      'LOADLAB_COMPARE_NOT_REPORT'
    )
  }
  if (data.schema !== SCHEMA) {
    throw new CompareError(
      `${file} is a schema ${JSON.stringify(data.schema ?? null)} report; this compare reads schema ${SCHEMA} only`,
      'LOADLAB_COMPARE_SCHEMA'
    )
  }
  if (!Array.isArray(data.results)) {
    throw new CompareError(`${file} is not a loadlab report (no "results" array)`, 'LOADLAB_COMPARE_NOT_REPORT')
  }
  return data
}

function ratio (a, b) {
  return isNum(a) && isNum(b) && b !== 0 ? a / b : null
}

function scaled (v, scale) {
  return isNum(v) && isNum(scale) ? v / scale : null
}

function serviceMs (report, work) {
  const c = report.calibration?.[work]
  return isNum(c?.medianMs) && c.medianMs > 0 ? c.medianMs : null
}

function httpCell (r, report, units) {
  const scale = units === 'service' ? serviceMs(report, r.work) : 1
  const q = r.requests
  const errors =
    q && typeof q === 'object'
      ? ['errors', 'timeouts', 'non2xx', 'mismatches'].reduce((sum, k) => sum + (isNum(q[k]) ? q[k] : 0), 0)
      : null
  const pcts = {}
  for (const [p, v] of Object.entries(r.latency?.percentiles ?? {})) {
    const s = scaled(v, scale)
    if (s !== null) pcts[p] = s
  }
  return {
    status: r.status === 'failed' ? 'failed' : 'ok',
    trusted: r.trusted !== false && r.status !== 'failed',
    why: [
      ...(r.status === 'failed' ? [r.failure?.reason ?? 'run failed'] : []),
      ...(Array.isArray(r.untrusted) ? r.untrusted : [])
    ].map(String),
    rps: isNum(r.rps) ? r.rps : null,
    p50: scaled(r.latency?.p50, scale),
    p99: scaled(r.latency?.p99, scale),
    max: scaled(r.latency?.max, scale),
    percentiles: pcts,
    errors,
    efficiency: isNum(r.efficiency) ? r.efficiency : null,
    serviceMs: serviceMs(report, r.work),
    // capacity sweeps: the highest rate held under the target, and the target
    capacity: isNum(r.capacity?.capacity?.rps) ? r.capacity.capacity.rps : null,
    capacityBound: r.capacity?.capacity?.bound ?? null,
    sloMs: isNum(r.capacity?.sloMs) ? r.capacity.sloMs : null,
    timeline: r.timeline && Array.isArray(r.timeline.points) ? r.timeline : null
  }
}

function dispatchCell (r) {
  return {
    status: r.checked === false ? 'failed' : 'ok',
    trusted: r.checked === true,
    why:
      r.checked === true ? [] : [r.checked === false ? 'returned values did not match' : 'returned values not checked'],
    meanMs: isNum(r.meanMs) ? r.meanMs : null,
    perCallUs: isNum(r.perCallUs) ? r.perCallUs : null
  }
}

// Compares checked reports: `entries` is [{ file, report }], `baseline` an index into it, `units` one
// of UNITS. Returns { units, baseline, reports, rows, flags, notes } (see compare-render.js); throws a
// CompareError when fewer than two reports are given or they share no run.
export function compareReports (entries, { baseline = 0, units = 'ms' } = {}) {
  if (!Array.isArray(entries) || entries.length < 2) {
    throw new CompareError('compare needs at least two reports', 'LOADLAB_COMPARE_TOO_FEW')
  }
  if (!UNITS.includes(units)) {
    throw new CompareError(
      `--units must be one of ${UNITS.join(', ')}, got ${JSON.stringify(units)}`,
      'LOADLAB_COMPARE_UNITS'
    )
  }
  if (!Number.isInteger(baseline) || baseline < 0 || baseline >= entries.length) {
    throw new CompareError(`baseline must be one of the ${entries.length} reports`, 'LOADLAB_COMPARE_BASELINE')
  }
  const notes = []
  // One map key → result per report; a key repeated inside one report keeps its first run.
  const byKey = entries.map(({ file, report }) => {
    const map = new Map()
    for (const r of report.results) {
      if (!r || typeof r !== 'object' || typeof r.key !== 'string') continue
      if (map.has(r.key)) {
        notes.push(`${file}: run ${r.key} appears more than once; the first is compared`)
        continue
      }
      map.set(r.key, r)
    }
    return map
  })
  // Keys in at least two reports, baseline's order first, then each other report's.
  const order = [baseline, ...entries.map((_, i) => i).filter((i) => i !== baseline)]
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
      'LOADLAB_COMPARE_NOTHING_IN_COMMON'
    )
  }

  const rows = keys.map((key) => {
    const first = byKey.find((m) => m.has(key)).get(key)
    const kind = first.kind === 'dispatch' ? 'dispatch' : 'http'
    const cells = entries.map(({ report }, i) => {
      const r = byKey[i].get(key)
      if (!r) return null
      return kind === 'dispatch' ? dispatchCell(r) : httpCell(r, report, units)
    })
    const base = cells[baseline]
    for (const c of cells) {
      if (!c) continue
      if (kind === 'dispatch') {
        c.meanRatio = ratio(c.meanMs, base?.meanMs)
      } else {
        c.rpsRatio = ratio(c.rps, base?.rps)
        c.p99Ratio = ratio(c.p99, base?.p99)
        c.capacityRatio = ratio(c.capacity, base?.capacity)
      }
    }
    return {
      key,
      kind,
      server: first.server ?? null,
      variant: first.variant ?? null,
      work: first.work ?? null,
      mode: first.mode ?? null,
      cells
    }
  })

  const reports = entries.map(({ file, report }, i) => ({
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

  if (units === 'service') {
    for (const row of rows) {
      if (row.kind !== 'http') continue
      row.cells.forEach((c, i) => {
        if (c && c.serviceMs === null) {
          notes.push(
            `${reports[i].letter} (${reports[i].file}) has no calibration for ${row.work}: its latency for ${row.key} cannot be shown in service times`
          )
        }
      })
    }
  }

  const flags = []
  for (const row of rows) {
    row.cells.forEach((c, i) => {
      if (c && !c.trusted) flags.push({ report: i, key: row.key, status: c.status, why: c.why })
    })
  }
  return { units, baseline, reports, rows, flags, notes: [...new Set(notes)] }
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
