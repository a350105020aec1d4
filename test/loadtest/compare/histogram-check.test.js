// A run's latency histogram held against its own count and percentiles (result/histogram.js histogramFault),
// as merge holds a shard's: where they disagree, or the histogram cannot be read, the figure gets no
// interval, the run is untrusted with the reason, and a --fail-on gate on it fails, however small the
// change. Also the words a comparison owes: a ratio without an interval says so and why, a report given
// twice is named, and the page charts at most CHARTED_REPORTS reports while its tables hold all. Built data.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { compareReports } from '../../../loadtest/compare/api.js'
import { anyRegressed } from '../../../loadtest/compare/compare.js'
import { CHARTED_REPORTS, renderCompareHtml, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import {
  createHistogram, encodeHistogram, histogramFault, recordMs, summarizeHistogram
} from '../../../loadtest/result/histogram.js'
import { ROOT } from '../../helpers/lab.js'
import { readBounded } from '../../../loadtest/report/read.js'

const REAL = JSON.parse(readBounded(join(ROOT, 'reports/reference/tours/2026-11-26T13-50-55Z-vm-tour.json.gz')))

// A histogram of `n` latencies spread evenly from `from` to `to` ms, with its summary and encoding.
function built (n = 2000, from = 10, to = 30) {
  const h = createHistogram()
  for (let i = 0; i < n; i++) recordMs(h, from + ((to - from) * i) / n)
  return { latency: summarizeHistogram(h), encoded: encodeHistogram(h) }
}

test('histogramFault: agreeing figures pass; a pasted percentile, a count or an unreadable string is named', () => {
  const { latency, encoded } = built()
  assert.equal(histogramFault(latency, encoded), null)
  assert.equal(histogramFault(latency, undefined), null, 'no histogram: nothing to hold the figures against')
  assert.match(histogramFault({ ...latency, p50: latency.p50 * 14 }, encoded), /latency p50 \d.* ms, its histogram says/)
  assert.match(histogramFault({ ...latency, p99: latency.p99 * 1.05 }, encoded), /latency p99/)
  assert.match(histogramFault({ ...latency, count: latency.count + 1 }, encoded), /count 2001, its histogram holds 2000/)
  assert.match(histogramFault(latency, 'not a histogram'), /histogram is unreadable/)
  // within the histogram's own precision (3 digits) the figures agree
  assert.equal(histogramFault({ ...latency, p50: latency.p50 * 1.0005 }, encoded), null)
})

// A report of one run (the reference tour's first) with a built histogram; `edit` changes the run after.
function report (id, edit = () => {}) {
  const r = structuredClone(REAL)
  r.id = id
  r.results = r.results.slice(0, 1)
  const { latency, encoded } = built()
  const run = r.results[0]
  run.latency = { ...latency }
  run.histograms = { ...run.histograms, latency: encoded }
  edit(run)
  return r
}

test('compare: a histogram that contradicts its run gives no interval, untrusts the run and fails the gate', () => {
  const A = report('a')
  // the baseline's histogram pasted into a run whose p50 and p99 say 14 × (the probe's case)
  const pasted = report('b', (run) => {
    run.latency.p50 *= 14
    run.latency.p99 *= 11
    run.latency.percentiles = { ...run.latency.percentiles, 50: run.latency.p50, 99: run.latency.p99 }
  })
  const cmp = compareReports([A, pasted], { failOn: ['p50:+10%', 'p99:+2000%'] })
  const cell = cmp.rows[0].cells[1]
  assert.equal(cell.trusted, false)
  assert.match(cell.why.join(' '), /its histogram says .*not vouched for/)
  assert.equal(cell.intervals.p50, null)
  assert.equal(cell.verdicts.p50.verdict, 'no-interval')
  // both gates fail: the one the change crosses and the one it does not (the run's figures are not vouched for)
  assert.deepEqual(cmp.gates.map((g) => g.runs[0].status), ['unverified', 'unverified'])
  assert.equal(anyRegressed(cmp), true)
  // an unreadable string: the same
  const unreadable = report('c', (run) => { run.histograms.latency = 'HISTFAAAAA' })
  const u = compareReports([A, unreadable], { failOn: ['p99:+10%'] })
  assert.equal(u.rows[0].cells[1].trusted, false)
  assert.match(u.rows[0].cells[1].why.join(' '), /unreadable/)
  assert.equal(anyRegressed(u), true)
  // agreeing histograms: trusted, intervals, and a gate that passes within its bound
  const same = compareReports([A, report('d')], { failOn: ['p99:+10%'] })
  assert.ok(same.rows[0].cells[1].intervals.p50)
  assert.equal(anyRegressed(same), false)
})

test('compare: a ratio without an interval is worded and explained; a report given twice is named', () => {
  const bare = (id) => report(id, (run) => { delete run.histograms; delete run.timeline; delete run.runs })
  const cmp = compareReports([bare('a'), bare('b')])
  const md = renderCompareMarkdown(cmp)
  assert.match(md, /× no interval/)
  assert.match(md, /B: 1 run\(s\) with a ratio marked no interval .* no latency histogram or timeline/)
  const A = report('a')
  for (const twice of [[A, A], [A, structuredClone(A)]]) {
    const notes = compareReports(twice).notes.join('\n')
    assert.match(notes, /B is the same report as A \(id a\): its ratios are 1 by construction/)
  }
  assert.doesNotMatch(compareReports([A, report('b')]).notes.join('\n'), /same report/)
})

test('compare --html: the charts draw at most CHARTED_REPORTS reports, the baseline among them; the tables all', () => {
  const n = CHARTED_REPORTS + 2
  const reports = Array.from({ length: n }, (_, i) => report(`r${i}`))
  const html = renderCompareHtml(compareReports(reports, { baseline: n - 1 }))
  const bars = /data-chart="rps" data-bars="(\d+)"/.exec(html)
  assert.equal(Number(bars[1]), CHARTED_REPORTS, 'one bar per drawn report')
  const last = String.fromCharCode(64 + n) // the baseline, drawn though it comes last
  assert.match(html, new RegExp(`the charts draw ${CHARTED_REPORTS} of the ${n} reports \\([A-Z, ]*${last};`))
  assert.match(html, /the tables hold all \d+, 2 of them not drawn/)
  for (let i = 0; i < n; i++) {
    assert.match(html, new RegExp(`<th class="group" colspan="\\d+">${String.fromCharCode(65 + i)} · `), 'a column each')
  }
})
