// Every report in reports/reference/ still loads, renders and compares with the code as it is: the
// reference figures the docs quote must stay readable by the lab that reads them; and the folder stays an index.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { upgradeReport } from '../../loadtest/report/read.js'
import { experimentFor } from '../../loadtest/experiments/index.js'
import { checkReport, compareReports } from '../../loadtest/compare/compare.js'
import { renderCompareMarkdown } from '../../loadtest/compare/render.js'

const DIR = join(ROOT, 'reports', 'reference')
const reports = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, report: upgradeReport(JSON.parse(readFileSync(join(DIR, f), 'utf8'))) }))
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

// The sizes of every file under a folder, recursively.
function sizesUnder (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sizesUnder(join(dir, e.name)) : [statSync(join(dir, e.name)).size])
}

// The folder's bound: the runs the docs quote, and the compare validation's whole tours (about 17 MB, their
// pages left out), which its verdicts are judged from again (`--judge-only`) and the history's real series is
// read from.
const MAX_MIB = 40

test(`reports/reference/ stays an index of current runs: every run named in its README, at most ${MAX_MIB} MiB`, () => {
  const index = readFileSync(join(DIR, 'README.md'), 'utf8')
  const runs = new Set(readdirSync(DIR).filter((f) => /^\d{4}-\d\d-\d\dT[\d-]+Z-/.test(f))
    .map((f) => f.replace(/(-compare)?\.(json|md|html)$/, '')))
  assert.ok(runs.size >= 10, `${runs.size} runs`)
  assert.deepEqual([...runs].filter((id) => !index.includes(id)), [], 'a run the index does not name: list it with what it shows, or remove it')
  const bytes = sizesUnder(DIR).reduce((sum, n) => sum + n, 0)
  assert.ok(bytes <= MAX_MIB * 1024 * 1024, `reports/reference/ holds ${(bytes / 1048576).toFixed(1)} MiB (at most ${MAX_MIB})`)
})
