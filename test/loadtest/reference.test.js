// Every report in reports/reference/ still loads, renders and compares with the code as it is: the
// reference figures the docs quote must stay readable by the lab that reads them; and the folder stays an index.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { readBounded, upgradeReport } from '../../loadtest/report/read.js'
import { experimentFor } from '../../loadtest/experiments/index.js'
import { checkReport, compareReports } from '../../loadtest/compare/compare.js'
import { renderCompareMarkdown } from '../../loadtest/compare/render.js'

const DIR = join(ROOT, 'reports', 'reference')
// the reports are kept compressed (.json.gz), read as every reader of the lab reads them
const reports = readdirSync(DIR)
  .filter((f) => /\.json(\.gz)?$/.test(f))
  .map((f) => ({ file: f, report: upgradeReport(JSON.parse(readBounded(join(DIR, f)))) }))
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

// The folder's bound (bytes): the runs the docs quote, their reports compressed (.json.gz), and the compare
// validation's whole tours (their pages left out), which its verdicts are judged from again (`--judge-only`)
// and the history's real series is read from.
const MAX_MB = 25

test(`reports/reference/ stays an index of current runs: every run named in its README, at most ${MAX_MB} MB`, () => {
  const index = readFileSync(join(DIR, 'README.md'), 'utf8')
  const runs = new Set(readdirSync(DIR).filter((f) => /^\d{4}-\d\d-\d\dT[\d-]+Z-/.test(f))
    .map((f) => f.replace(/(-compare)?\.(json|json\.gz|md|html)$/, '')))
  assert.ok(runs.size >= 10, `${runs.size} runs`)
  assert.deepEqual([...runs].filter((id) => !index.includes(id)), [], 'a run the index does not name: list it with what it shows, or remove it')
  const bytes = sizesUnder(DIR).reduce((sum, n) => sum + n, 0)
  assert.ok(bytes <= MAX_MB * 1e6, `reports/reference/ holds ${(bytes / 1e6).toFixed(1)} MB (at most ${MAX_MB})`)
  const plain = readdirSync(DIR, { recursive: true }).filter((f) => f.endsWith('.json') &&
    readFileSync(join(DIR, f), 'latin1').slice(0, 200).includes('"kind": "loadlab-report"'))
  assert.deepEqual(plain, [], 'a report kept uncompressed: gzip -9 -n it to .json.gz and update its links')
})
