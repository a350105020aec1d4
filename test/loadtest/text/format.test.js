// format.js is the one module of text formatters: every one gives a plain string and MISSING for a
// missing value, and the HTML side only escapes and marks what it gets (html.js figureHtml).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as format from '../../../loadtest/text/format.js'
import { figureHtml, msHtml, numHtml, whenHtml } from '../../../loadtest/report/html.js'
import { esc } from '../../../loadtest/text/escape.js'

const { MISSING } = format

// Each formatter with the arguments that make a figure of it.
const CASES = {
  fixedGrouped: [[1234.5, 2], '1,234.50'],
  numGrouped: [[1234, 1], '1,234'],
  msGrouped: [[0.0764], '0.076'],
  fmtMs3: [[42.123], '42.1'],
  fmtMs: [[12345], '12.3s'],
  fmtNum: [[2.345, 2], '2.35'],
  fmtMb: [[64 * 1048576], '64M'],
  fmtCount: [[7], '7'],
  fmtPct: [[0.126], '13%'],
  pctSpaced: [[0.7], '70 %'],
  mbSpaced: [[90 * 2 ** 20], '90 MB'],
  pctFixed: [[0.125, 1], '12.5%'],
  mibGib: [[1.5 * 2 ** 30], '1.5 GiB'],
  utcWhen: [['2026-11-22T04:31:07.123Z'], '2026-11-22 04:31:07 UTC'],
  timesGrouped: [[1.234], '1.23×'],
  latencyGrouped: [[2.345, 'service'], '2.35×'],
  signedPct: [[0.125], '+12.5%'],
  fmtRps: [[1234.4], '1234'],
  fmtSeconds: [[1234], '1.2s'],
  fmtRatio: [[3, 2], '×1.50'],
  msOrSeconds: [[1234], '1.23 s'],
  bytesDecimal: [[65536], '65.536 kB'],
  fmtRounded: [[12.345, 1], '12.3']
}

test('every formatter gives a plain string, and MISSING for null, undefined and NaN', () => {
  const formatters = Object.entries(format).filter(([, v]) => typeof v === 'function')
  assert.deepEqual(formatters.map(([k]) => k).sort(), Object.keys(CASES).sort(), 'a formatter without a case here')
  for (const [name, fn] of formatters) {
    const [args, expected] = CASES[name]
    assert.equal(fn(...args), expected, name)
    for (const missing of [null, undefined, NaN]) {
      if (name === 'utcWhen' && Number.isNaN(missing)) continue
      assert.equal(fn(missing, ...args.slice(1)), MISSING, `${name}(${missing})`)
    }
  }
})

test('the HTML figures are format.js figures escaped, with MISSING marked as not measured', () => {
  assert.equal(numHtml(1234.56, 1), format.numGrouped(1234.56, 1))
  assert.equal(msHtml(4200), '4,200')
  assert.match(msHtml(null), /^<span class="na" title="not measured">-<\/span>$/)
  assert.equal(whenHtml('<b>'), '&lt;b&gt;', 'a date that is not ISO is escaped, not parsed')
  assert.equal(figureHtml('a&b'), esc('a&b'))
  assert.equal(esc('<"\'&>'), '&lt;&quot;&#39;&amp;&gt;')
  assert.equal(esc(null), '')
})

// A dash standing alone as a figure: a terminal-table token, a Markdown cell or an HTML element's text.
const LONE_DASH = /(?:^|\s|\||>)([-–—])(?=\s|\||<|$)/gm

test('a missing figure is shown with MISSING in every output, never an en or em dash', async () => {
  const { httpReport, httpResult } = await import('../../fixtures/reports.js')
  const { renderMarkdown } = await import('../../../loadtest/report/markdown.js')
  const { defaultTable, renderText } = await import('../../../loadtest/report/table.js')
  const { renderReportHtml } = await import('../../../loadtest/report/page.js')
  const { compareReports } = await import('../../../loadtest/compare/compare.js')
  const { renderCompareHtml, renderCompareMarkdown } = await import('../../../loadtest/compare/render.js')
  const report = httpReport()
  // a run that measured nothing but its requests: every figure missing
  report.results.push(httpResult('simple', { work: 'loop:1e3', rps: null, latency: null, probe: null, recovery: null, telemetry: null, outside: null, efficiency: null }))
  const other = httpReport({ hostname: 'other-box' })
  const cmp = compareReports([{ file: 'a.json', report }, { file: 'b.json', report: other }])
  const outputs = {
    text: renderText(defaultTable(report)),
    markdown: renderMarkdown(report),
    html: renderReportHtml(report),
    'compare markdown': renderCompareMarkdown(cmp),
    'compare html': renderCompareHtml(cmp)
  }
  for (const [name, out] of Object.entries(outputs)) {
    const signs = new Set([...out.matchAll(LONE_DASH)].map((m) => m[1]))
    assert.deepEqual([...signs], [MISSING], `${name}: the lone dashes are ${[...signs].join(' ') || 'none'}`)
  }
})
