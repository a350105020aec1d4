// compare with a request mix (--mix): each class of each run side by side, per report, with p99 against
// the baseline's, in the comparison, its Markdown and its page.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareReports } from '../../../loadtest/compare/compare.js'
import { renderCompareHtml, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { httpReport } from '../../fixtures/reports.js'

// One class's figures as result/mix.js classFigures gives them.
function cls (name, { rps, p50, p99, sloMs = null, timeouts = 0 }) {
  return {
    name,
    sloMs,
    requests: {
      sent: 100, completed: 100 - timeouts, ok: 100 - timeouts, non2xx: 0, errors: 0, timeouts, mismatches: 0
    },
    rps,
    latency: { count: 100, p50, p97_5: p99, p99, p99_9: p99, max: p99, censored: timeouts }
  }
}

// A report whose first run had a mix of a cheap and a heavy class.
function mixReport (label, cheap, heavy) {
  const report = httpReport({ label })
  report.results[0].classes = [cls('cheap', cheap), cls('heavy', heavy)]
  return report
}

const entries = (...reports) => reports.map((report, i) => ({ file: `r${i}.json`, report }))

test('compare: a mix\'s classes side by side, p99 against the baseline\'s, failed requests by the one sum', () => {
  const a = mixReport('A', { rps: 80, p50: 2, p99: 10, sloMs: 50 }, { rps: 20, p50: 40, p99: 100 })
  const b = mixReport('B', { rps: 80, p50: 3, p99: 60, sloMs: 50, timeouts: 2 }, { rps: 20, p50: 30, p99: 50 })
  const cmp = compareReports(entries(a, b))
  assert.deepEqual(cmp.classes.map((r) => [r.key, r.name]), [[a.results[0].key, 'cheap'], [a.results[0].key, 'heavy']])
  const [cheap, heavy] = cmp.classes
  assert.equal(cheap.cells[0].p99Ratio, null, 'the baseline has no ratio')
  assert.equal(cheap.cells[1].p99Ratio, 6)
  assert.equal(cheap.cells[1].failed, 2, 'timeouts count as failed')
  assert.equal(heavy.cells[1].p99Ratio, 0.5)
  const md = renderCompareMarkdown(cmp)
  assert.match(md, /## Per class/)
  assert.match(md, /\| cheap \| 80\.0 \| 2\.00 \| 10\.0 ≤ 50 \| 0 \| 80\.0 \| 3\.00 \| 60\.0 \\> 50 \| 2 \| 6\.00× \|/)
  const html = renderCompareHtml(cmp)
  assert.match(html, /<h2>Per class<\/h2>/)
  assert.match(html, /<td>60\.0 &gt; 50<\/td>/)
  // a run without a mix in the other report: its class cells are missing, not made up
  const plain = httpReport({ label: 'C' })
  const none = compareReports(entries(a, plain))
  assert.deepEqual(none.classes[0].cells[1], null)
  assert.match(renderCompareMarkdown(none), /\| cheap \| 80\.0 \| 2\.00 \| 10\.0 ≤ 50 \| 0 \| - \| - \| - \| - \| - \|/)
  // no mix anywhere: no section
  assert.deepEqual(compareReports(entries(httpReport({ label: 'D' }), httpReport({ label: 'E' }))).classes, [])
  assert.doesNotMatch(renderCompareMarkdown(compareReports(entries(httpReport({ label: 'D' }), httpReport({ label: 'E' })))), /Per class/)
})
