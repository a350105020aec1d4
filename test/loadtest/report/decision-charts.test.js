// report/decision-charts.js: the capacity bars (bracket whiskers, plan rate) and goodput past capacity on
// the page's first screen, from fixture capacity reports.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decide } from '../../../loadtest/result/decision.js'
import { capacityBarRows, pastConfigs, sweepGoodputShare } from '../../../loadtest/report/decision-figures.js'
import { renderMarkdown } from '../../../loadtest/report/markdown.js'
import { renderReportHtml } from '../../../loadtest/report/page.js'
import { capacityReport, mixCapacityReport } from '../../fixtures/reports.js'

function decided () {
  const report = capacityReport()
  report.decision = decide(report)
  return report
}

// The HTML of one figure of a page, by its data-chart name.
function figureOf (html, name) {
  const at = html.indexOf(`data-chart="${name}"`)
  return at < 0 ? null : html.slice(at, html.indexOf('</figure>', at))
}

test('capacity bars: one per strategy at the decision\'s target, highest first, the decision\'s marked, the bracket kept', () => {
  const report = decided()
  const d = report.decision
  assert.equal(d.key, 'queued-threads@loop:3e7#capacity')
  const rows = capacityBarRows(report.results, d)
  assert.deepEqual(rows.map((r) => r.name), ['queued-threads', 'cluster', 'simple', 'child-process'])
  assert.deepEqual(rows.map((r) => r.chosen), [true, false, false, false])
  assert.deepEqual([rows[0].pass, rows[0].fail], [76.1, 77.6], 'the whiskers: the bracket')
  assert.equal(rows[0].label, '76.1 (76.1–77.6)')
  const none = rows.at(-1)
  assert.deepEqual([none.rps, none.status, none.label, none.fail], [0, 'none', 'cannot meet the target', null])
  // the figure: a bar per strategy, the plan rate as a dashed rule with its figure, what has no bar named
  const fig = figureOf(renderReportHtml(report), 'capacity-bars')
  assert.match(fig, /data-bars="4" data-plan="60\.9"/)
  assert.equal(fig.match(/aria-roledescription="bar"/g).length, 4)
  assert.equal(fig.match(/aria-roledescription="errorbar"/g).length, 3, 'a whisker for each bracket')
  assert.match(fig, /plan rate 60\.9 req\/s/)
  assert.match(fig, /No bar: child-process \(cannot meet the target\)/)
  // refused: no plan rate drawn, and the caption says why
  const disturbed = { reason: 'disturbed', keys: [d.key], reasons: ['steal 9 %'] }
  const refused = { ...report, decision: { ...d, refused: disturbed } }
  const r = figureOf(renderReportHtml(refused), 'capacity-bars')
  assert.match(r, /data-plan=""/)
  assert.doesNotMatch(r, /plan rate 60\.9/)
  assert.match(r, /No plan rate: the decision refused/)
})

test('goodput past capacity: each candidate weighed, as swept and with its shedding setting, at 1, 1.5 and 2 × C', () => {
  const report = decided()
  const configs = pastConfigs(report.results, report.decision)
  assert.deepEqual(configs.map((c) => [c.name, c.config, c.chosen]), [
    ['queued-threads', 'as swept', false],
    ['queued-threads', 'shedding setting', true],
    ['cluster', 'as swept', false],
    ['cluster', 'shedding setting', false]
  ], 'the decision\'s strategy first, as swept before its shedding setting; the chosen one marked')
  const [asSwept, shedding] = configs
  assert.deepEqual(asSwept.points.map((p) => [p.multiple, p.goodput, p.from]), [[1, 1, 'sweep'], [1.5, 0, 'probe'], [2, 0, 'probe']])
  assert.deepEqual(shedding.points.map((p) => [p.multiple, p.goodput]), [[1, null], [1.5, 0.95], [2, 0.93]], 'not measured at C')
  assert.equal(asSwept.past.collapses, true)
  assert.equal(shedding.past.keeps, true)
  const html = renderReportHtml(report)
  const fig = figureOf(html, 'past-capacity')
  assert.match(fig, /data-configs="4"/)
  assert.equal(fig.match(/aria-roledescription="line mark"/g).length, 4, 'a line per configuration')
  assert.match(fig, />not measured</, 'the chart says where a figure was not measured')
  const table = html.slice(html.indexOf('<table class="past-capacity">'), html.indexOf('</table>', html.indexOf('<table class="past-capacity">')))
  assert.equal(table.match(/<tr/g).length, 5, 'a head and a row per configuration')
  assert.match(table, /<tr class="chosen"><td class="text"><b>queued-threads ✓<\/b>/)
  assert.match(table, /data-measured="no">not measured/)
  assert.match(table, /collapses/)
  // the Markdown has the same table, under the decision
  const md = renderMarkdown(report, null)
  assert.ok(md.indexOf('## Past capacity') > md.indexOf('## Decision') && md.indexOf('## Past capacity') < md.indexOf('## Results'))
  assert.match(md, /\| queued-threads ✓ \| --deadline auto --slo 120 \| not measured \| 95 % \| 93 % \| 53 % \| 0 s \| keeps \|/)
  assert.match(md, /\| queued-threads \| as swept \(unbounded queue\) \| 100 % \(sweep\) \| 0 % \| 0 % \| 0 % \| none within 12 s \| collapses \|/)
})

test('goodput at C: the sweep\'s steps at the capacity pooled, the answers over the target not counted', () => {
  const r = capacityReport().results.find((x) => x.server === 'cluster')
  assert.equal(sweepGoodputShare(r), 1)
  const at = r.capacity.steps.find((s) => s.rate === 74.6)
  at.over = 3
  at.requests = { ...at.requests, sent: 300, ok: 300 }
  assert.equal(sweepGoodputShare(r), 0.99)
  assert.equal(sweepGoodputShare({ capacity: { capacity: { rps: null }, steps: [] } }), null)
})

test('first screen: the capacity-against-target lines only where the answer changes with the target', () => {
  const report = decided()
  assert.equal(figureOf(renderReportHtml(report), 'targets'), null, 'one target: no lines')
  const changes = [{ fromMs: 120, toMs: 400, from: 'queued-threads', to: 'cluster', atMs: 200 }]
  const withTargets = { ...report, decision: { ...report.decision, changes } }
  for (const r of withTargets.results) r.capacity.targets.push({ ...r.capacity.targets[0], sloMs: 400 })
  const html = renderReportHtml(withTargets)
  assert.ok(figureOf(html, 'targets'))
  assert.ok(html.indexOf('data-chart="capacity-bars"') < html.indexOf('data-chart="targets"'))
})

test('a --url mix\'s page: no probe past capacity, said so; no single target line under class targets', () => {
  const report = mixCapacityReport()
  report.decision = { ...decide(report), recommends: 'rate', limitedBy: { name: 'cheap', rate: 77.6, why: 'p95 over the target' } }
  const html = renderReportHtml(report)
  assert.match(figureOf(html, 'past-capacity'), /data-configs="0"[^]*not measured \(a service given by --url is not restarted for probes/)
  assert.match(figureOf(html, 'capacity-bars'), /data-bars="1"[^]*Capacity at each class(&#39;|')s own target \(cheap p95 ≤ 50 ms, heavy p95 ≤ 300 ms\)/)
  // refused: nothing chosen, nothing in the decision's colour
  const refused = { ...report, decision: { ...report.decision, refused: { reason: 'disturbed', keys: [], reasons: [] } } }
  assert.doesNotMatch(figureOf(renderReportHtml(refused), 'capacity-bars'), /the decision's in blue/)
  assert.match(html, /Target: each class at its own, cheap p95 ≤ 50 ms, heavy p95 ≤ 300 ms\./)
  assert.match(figureOf(html, 'capacity'), /no one target line is drawn/)
})
