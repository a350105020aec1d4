// compare across machines by paired ratios (compare/machines.js, text/paired.js) on built reports:
// each machine's ratios to one baseline strategy side by side, its ranking, and a ratio named only
// where its intervals on the two machines are apart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareReports } from '../../../loadtest/compare/compare.js'
import { renderCompareHtml, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { httpReport } from '../../fixtures/reports.js'

// A fixture report whose HTTP results ran `n` rounds: server → its req/s per round (p50 and p99
// from it).
function withRounds (report, perServer, { label = report.label, cores = 2 } = {}) {
  report.label = label
  report.machine.availableParallelism = cores
  report.results = report.results.filter((r) => perServer[r.server]).map((r) => ({
    ...r,
    runs: perServer[r.server].map((rps, k) => ({
      round: k + 1, place: 1, startedAt: '2026-11-22T04:31:08.000Z', rps, latency: { p50: 1000 / rps, p99: 3000 / rps }
    }))
  }))
  return report
}

const entries = (...reports) => reports.map((report, i) => ({ file: `r${i}.json`, report }))
const round = (x, k) => x * (1 + 0.03 * Math.sin(3 * k + x)) // a machine's drift, the same for every server

// `simple` is the baseline in each; `queued-threads` 1.7 × simple on both machines, or `there` on
// B.
function pair (there) {
  const a = withRounds(httpReport({ label: 'two cores' }), {
    simple: [0, 1, 2, 3, 4].map((k) => round(100, k)),
    'queued-threads': [0, 1, 2, 3, 4].map((k) => round(170, k) * (1 + 0.01 * (k % 2)))
  })
  const b = withRounds(httpReport({ label: 'one core', hostname: 'other-box' }), {
    simple: [0, 1, 2, 3, 4].map((k) => round(60, k + 1)),
    'queued-threads': [0, 1, 2, 3, 4].map((k) => round(60 * there, k + 1) * (1 - 0.01 * (k % 2)))
  }, { cores: 1 })
  return compareReports(entries(a, b))
}

test('machines: identical paired ratios on two machines name no change, whatever their absolute figures', () => {
  const cmp = pair(1.7)
  const p = cmp.machines.paired
  assert.equal(p.baseline, 'simple@loop:1e5')
  assert.equal(p.blocks.length, 2)
  assert.deepEqual(p.changed, [])
  const md = renderCompareMarkdown(cmp)
  assert.match(md, /## Machines by paired ratios/)
  assert.match(md, /no paired ratio differs from A's beyond both intervals/)
  assert.ok(md.indexOf('## Machines by paired ratios') < md.indexOf('## HTTP runs'), 'it leads')
})

test('machines: a ratio whose intervals are apart is named in one line with both, and the cores offered', () => {
  const cmp = pair(0.98)
  const changed = cmp.machines.paired.changed
  assert.deepEqual([...new Set(changed.map((c) => c.key))], ['queued-threads@loop:1e5'])
  assert.ok(changed.some((c) => c.figure === 'rps'))
  const md = renderCompareMarkdown(cmp)
  const line = md.split('\n').find((l) => l.startsWith('- queued-threads / simple req/s'))
  const iv = String.raw`\\?\[[\d.]+, [\d.]+\\?\]` // Markdown escapes the brackets
  const head = String.raw`^- queued-threads / simple req/s 1\.7\d × ${iv} on A, 0\.9\d × ${iv} on B: `
  assert.match(line, new RegExp(head + String.raw`lower on B, its gain over simple gone \(cores offered: 2 on A, 1 on B\)$`))
  assert.match(md, /- ranking on A by req\/s: queued-threads \\?> simple/)
  assert.match(md, /- ranking on B by req\/s: simple (\\?>|≈) queued-threads/)
  const html = renderCompareHtml(cmp)
  assert.match(html, /data-section="paired"/)
  assert.match(html, /its gain over simple gone/)
})

test('machines: without rounds in two reports there is no paired section', () => {
  const cmp = compareReports(entries(httpReport(), httpReport({ rpsScale: 0.5 })))
  assert.equal(cmp.machines.paired, null)
  assert.doesNotMatch(renderCompareMarkdown(cmp), /paired ratios/)
})
