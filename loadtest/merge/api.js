// merge as a function (the package's mergeReports; `npm run merge` calls it and writes what it returns):
// the reports of the shards of one plan in, one report out. Each is checked as compare reads a file, then
// as the shards of one plan (merge.js: its counts against its histograms and its slice), then against
// report.schema.json.
import { checkReport } from '../compare/compare.js'
import { validateReport } from '../report/read.js'
import { reportId } from '../report/write.js'
import { checkShards, mergeError, mergeShards } from './merge.js'

// The merged report of `reports` (every shard of one plan, once each, in any order); `names` labels them
// in refusals (the CLI: their files; default: each report's id), `command` is what the report names as
// its command. Throws a LabError (code LAB_MERGE, exit 2) naming the first difference.
export function mergeReports (reports, { names = null, command = null } = {}) {
  if (!Array.isArray(reports)) throw mergeError('expected an array of the reports of at least two shards')
  const refused = (err) => mergeError(err.message)
  const entries = reports.map((report, i) => {
    const file = names?.[i] ?? report?.id ?? `report ${i + 1}`
    try {
      return { file, report: checkReport(report, file) }
    } catch (err) {
      throw refused(err)
    }
  })
  const ordered = checkShards(entries)
  for (const { file, report } of ordered) {
    try {
      validateReport(report, { file })
    } catch (err) {
      throw refused(err)
    }
  }
  const createdAt = new Date()
  return mergeShards(ordered, {
    id: reportId(createdAt, 'merged', ordered[0].report.experiment),
    createdAt: createdAt.toISOString(),
    command
  })
}
