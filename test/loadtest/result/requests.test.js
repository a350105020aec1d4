// result/requests.js: `errors` has one meaning, and the `errors` threshold, compare's errors column and
// a capacity step's verdict all read it off the same report alike.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ERROR_KINDS, errorsOf } from '../../../loadtest/result/requests.js'
import { evaluateThresholds, parseThresholds } from '../../../loadtest/report/thresholds.js'
import { compareReports } from '../../../loadtest/compare/compare.js'
import { judgeStep } from '../../../loadtest/result/capacity.js'
import { httpReport } from '../../fixtures/reports.js'

test('errorsOf: connection errors + timeouts + non-2xx + mismatches, not unanswered; null without counts', () => {
  assert.deepEqual(ERROR_KINDS, ['errors', 'timeouts', 'dropped', 'non2xx', 'mismatches'])
  assert.equal(errorsOf({ errors: 1, timeouts: 2, non2xx: 4, mismatches: 8, unanswered: 16, completed: 32 }), 15)
  assert.equal(errorsOf({ errors: 1, timeouts: null }), 1)
  assert.equal(errorsOf(null), null)
  assert.equal(errorsOf(undefined), null)
})

test('thresholds, compare and capacity agree on errors for one report', () => {
  const report = httpReport()
  const counts = [
    { errors: 0, timeouts: 0, non2xx: 0, mismatches: 0 }, // clean
    { errors: 0, timeouts: 3, non2xx: 0, mismatches: 0 }, // only timeouts: errors all the same
    { errors: 1, timeouts: 2, non2xx: 3, mismatches: 4 }
  ]
  report.results = report.results.slice(0, counts.length)
  report.results.forEach((r, i) => {
    r.requests = { ...r.requests, ...counts[i], unanswered: 0 }
  })
  const want = report.results.map((r) => errorsOf(r.requests))
  assert.deepEqual(want, [0, 3, 10])
  // the threshold: `errors==N` passes exactly where N is the result's errors
  for (const [i, r] of report.results.entries()) {
    const [t] = evaluateThresholds(parseThresholds([`errors==${want[i]}`]), [r])
    assert.equal(t.runs[0].figure, want[i], r.key)
    assert.equal(t.status, 'passed', r.key)
  }
  const [zero] = evaluateThresholds(parseThresholds(['errors==0']), report.results)
  assert.deepEqual(zero.runs.map((x) => x.status), ['passed', 'crossed', 'crossed'])
  // compare: the errors column of the same report
  const cmp = compareReports([{ file: 'a.json', report }, { file: 'b.json', report }])
  const byKey = new Map(cmp.rows.map((row) => [row.key, row.cells[0].errors]))
  assert.deepEqual(report.results.map((r) => byKey.get(r.key)), want)
  // capacity: a step holds its target only with no errors (and none unanswered)
  for (const [i, r] of report.results.entries()) {
    const fig = { requests: r.requests, latency: { p99: 1 }, backlog: null }
    assert.equal(judgeStep(fig, 1e9).call === 'pass', want[i] === 0, r.key)
  }
  const unanswered = { requests: { ...report.results[0].requests, unanswered: 1 }, latency: { p99: 1 }, backlog: null }
  assert.equal(errorsOf(unanswered.requests), 0)
  assert.equal(judgeStep(unanswered, 1e9).call === 'pass', false, 'a step with requests left unanswered does not hold')
})
