// compare as a function (the package's compareReports; `npm run compare` calls it): report objects in, the
// comparison that compare renders out. Each report is checked as compare reads a file (checkReport, then
// report.schema.json); a report made under several runtimes (lab --node 20,24) is split into one per runtime.
import { CompareError, checkReport, compareReports as compareEntries, splitByRuntime } from './compare.js'
import { failOnBounds } from './fail-on.js'
import { usageError } from '../errors.js'
import { readReportFile, validateReport } from '../report/read.js'

// Reads one report file as compare, merge and the package's readReport do: with the lab's bounds (a
// regular file of at most 64 MiB, this schema; report/read.js), then compare's check (every run one it
// can line up; no nesting past 64 levels), then report.schema.json. Throws a LabError (exit 2) whose one
// line names the file and the fault.
export async function readReport (file) {
  return validateReport(checkReport(readReportFile(file), file), { file })
}

// Compares `reports` (two or more, or one made under several runtimes); `names` labels them (the CLI:
// their files; default: each report's id), `baseline` is an index into them, `units` 'ms' or 'service',
// `failOn` --fail-on bounds (strings such as 'p99:+10%', or parsed), `allowMachine` lets a change put down to
// the machine pass them (--allow-machine). Returns { units, baseline, reports,
// rows, classes, flags, gates, notes }; throws a CompareError (exit 2) naming what is wrong.
export function compareReports (reports, opts = {}) {
  const { baseline = 0, units = 'ms', failOn = [], names = null, allowMachine = false } = opts
  if (!Array.isArray(reports) || reports.length < 1) {
    throw new CompareError(
      'compare needs at least two reports, or one made under lab --node with two runtimes',
      'LAB_COMPARE_TOO_FEW'
    )
  }
  const entries = reports.map((report, i) => {
    const file = names?.[i] ?? report?.id ?? `report ${i + 1}`
    return { file, report: validateReport(checkReport(report, file), { file }) }
  })
  const sides = splitByRuntime(entries)
  if (sides.length < 2) {
    throw new CompareError(
      'compare needs at least two report files, or one made under lab --node with two runtimes; ' +
        `${entries[0].file} has one runtime`,
      'LAB_COMPARE_TOO_FEW'
    )
  }
  if (!Number.isInteger(baseline) || baseline < 0 || baseline >= sides.length) {
    throw new CompareError(
      `baseline: expected the index of one of the ${sides.length} reports, got ${baseline}`,
      'LAB_COMPARE_BASELINE'
    )
  }
  const bounds = failOnBounds(failOn, { option: 'compareReports: failOn', error: usageError })
  return compareEntries(sides, { baseline, units, failOn: bounds, allowMachine: allowMachine === true })
}
