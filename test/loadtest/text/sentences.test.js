// The result's sentences (loadtest/text/sentences.js) and its one name (result/key.js runName).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { findingLines, fmtRecovery, machineLine, trustMark } from '../../../loadtest/text/sentences.js'
import { runName } from '../../../loadtest/result/key.js'

test('the recovery cell: always seconds with one decimal, metastable in words with the time watched', () => {
  assert.equal(fmtRecovery({ ms: 0, metastable: false }), '0.0 s')
  assert.equal(fmtRecovery({ ms: 2000, metastable: false }), '2.0 s')
  assert.equal(fmtRecovery({ ms: 15000, metastable: false }), '15.0 s')
  assert.equal(fmtRecovery({ ms: null, metastable: true, burstEndMs: 15000, observedMs: 75000 }), 'metastable: not within 60.0 s')
  assert.equal(fmtRecovery({ ms: null, metastable: true }), 'metastable')
  assert.equal(fmtRecovery(null), '-')
})

test('a run\'s name: server, server/variant, never its setting; its key without a server', () => {
  assert.equal(runName({ server: 'queued-threads', variant: null, setting: 'threads=3' }), 'queued-threads')
  assert.equal(runName({ server: 'queued-threads', variant: 'deadline' }), 'queued-threads/deadline')
  assert.equal(runName({ key: 'x@loop:1e7' }), 'x@loop:1e7')
  const contended = { kind: 'http', server: 'queued-threads', variant: 'deadline', contention: { text: 'work 2.1 × slower' } }
  assert.deepEqual(findingLines([contended]), ['queued-threads/deadline: work 2.1 × slower (its own contention: a finding, not noise)'])
})

test('the machine line and the trust mark', () => {
  assert.equal(machineLine({ label: 'quiet box', machine: { hostname: 'h' } }), 'quiet box')
  assert.equal(machineLine({ machine: { hostname: 'h', cpuModel: 'cpu', cores: 2 } }), 'h · cpu · 2 cores')
  assert.equal(trustMark({ kind: 'http', status: 'failed', failure: { reason: 'x' } }), '✗ failed')
})

test('every output links the one legend of the marks: the terminal table, the Markdown, the page', async () => {
  const { httpReport } = await import('../../fixtures/reports.js')
  const { MARKS } = await import('../../../loadtest/text/sentences.js')
  const { reportTable, renderText } = await import('../../../loadtest/report/table.js')
  const { renderMarkdown } = await import('../../../loadtest/report/markdown.js')
  const { renderReportHtml } = await import('../../../loadtest/report/page.js')
  const report = httpReport()
  assert.ok(renderText(reportTable(report, null)).includes(MARKS))
  assert.ok(renderMarkdown(report, null).includes(MARKS))
  assert.ok(renderReportHtml(report).includes(MARKS.replace(/"/g, '&quot;')))
})
