// Every report in reports/reference/ still loads, renders and compares with the code as it is: the
// reference figures the README quotes must stay readable by the lab that reads them (issue 17).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { experimentFor } from '../../loadtest/experiments/index.js'
import { checkReport, compareReports } from '../../loadtest/compare/compare.js'
import { renderCompareMarkdown } from '../../loadtest/compare/render.js'

const DIR = join(ROOT, 'reports', 'reference')
const reports = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, report: JSON.parse(readFileSync(join(DIR, f), 'utf8')) }))
  .filter(({ report }) => report.kind === 'loadlab-report')

test('every reference report renders as Markdown and compares with itself', async () => {
  assert.ok(reports.length >= 10, `reference reports found: ${reports.length}`)
  for (const { file, report } of reports) {
    const md = renderMarkdown(report, await experimentFor(report.experiment))
    assert.match(md, /^# loadlab report: /, file)
    checkReport(report, file) // compare's own check of a report's shape: throws a CompareError when off
    const cmp = compareReports([{ file: 'a', report }, { file: 'b', report }])
    assert.equal(cmp.rows.length, new Set(report.results.map((r) => r.key)).size, file)
    assert.match(renderCompareMarkdown(cmp), /^# loadlab compare/, file)
  }
})
