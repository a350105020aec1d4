// Phases where people look: the terminal's `where the time went` line, the page's stacked bars, compare's
// ratio per phase; a report whose phases are not the lab's shape draws nothing and breaks nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { addPhases, createPhaseTally, parseStamps, phaseFigures, requestPhases } from '../../loadtest/result/phases.js'
import { phaseLine, phaseLines } from '../../loadtest/text/phases.js'
import { phaseRows, phasesSection } from '../../loadtest/report/phases-chart.js'
import { tableNotes } from '../../loadtest/report/table.js'
import { compareReports } from '../../loadtest/compare/compare.js'
import { renderCompareMarkdown } from '../../loadtest/compare/render.js'
import { SCHEMA } from '../../loadtest/result/build.js'

const T = 1_800_000_000_000

// The phases of n pool requests that queue `queueMs` (every 50th queues 40 ms more).
function poolPhases (n, queueMs) {
  const tally = createPhaseTally()
  for (let i = 0; i < n; i++) {
    const q = queueMs + (i % 50 === 0 ? 40 : 0)
    const at = [['wait', 1], ['queue', 1 + q], ['send', 1.5 + q], ['run', 3.5 + q], ['return', 4 + q]]
    const stamps = parseStamps(at.map(([p, ms]) => `${p}=${(T + ms).toFixed(3)}`).join(','))
    addPhases(tally, 5 + q, requestPhases({ dueMs: T, writtenMs: T + 0.5, doneMs: T + 5 + q, stamps }))
  }
  return phaseFigures(tally)
}

const run = (phases) => ({ kind: 'http', key: 'queued-threads@loop:1e5#open:100/s', server: 'queued-threads', work: 'loop:1e5', phases })

test('the terminal line names each phase\'s share at p50 and p99 and what is unexplained', () => {
  const line = phaseLine('queued-threads', poolPhases(200, 0))
  assert.match(line, /^queued-threads: where the time went: p50 5\.\d+ ms: sent 10 % · wait 10 % · send 10 % · run 40 % · return 10 % · reply 20 %; p99 4\d\.?\d* ms: .*queue 8\d %/)
  assert.match(line, /unexplained 0\.00 ms \(median over 200 requests\)$/)
  assert.ok(tableNotes({ results: [run(poolPhases(200, 0))] }).some((l) => l.includes('where the time went')))
  assert.deepEqual(phaseLines([run(null), run('nonsense'), run({ count: 3, at: 'x' }), null]), [])
  const mixed = { ...run(null), classes: [{ name: 'cheap', phases: { ...poolPhases(100, 0), clamped: 2, clockShiftMs: 0.4 } }] }
  assert.match(phaseLines([mixed])[0], /^queued-threads cheap: where the time went: .*, 2 clamped, the server's clock taken 0\.4 ms ahead\)$/)
})

test('the page draws the p50 and p99 requests of each strategy, stacked in phase order', () => {
  const rows = phaseRows([run(poolPhases(200, 0))])
  assert.deepEqual([...new Set(rows.map((r) => r.at))], ['p50', 'p99'])
  assert.deepEqual(rows.filter((r) => r.at === 'p50').map((r) => r.phase), ['sent', 'wait', 'queue', 'send', 'run', 'return', 'reply'])
  const html = phasesSection([run(poolPhases(200, 0))])
  assert.match(html, /data-chart="phases"/)
  assert.match(html, /<svg/)
  assert.equal(phasesSection([run(null), run({ at: { p50: 'x' } })]), '')
})

test('compare gives each phase\'s ratio to the baseline\'s', () => {
  const report = (phases) => ({ kind: 'loadlab-report', schema: SCHEMA, results: [run(phases)] })
  const cmp = compareReports([{ file: 'a.json', report: report(poolPhases(200, 0)) }, { file: 'b.json', report: report(poolPhases(200, 4)) }])
  const queue = cmp.phases.find((r) => r.phase === 'queue')
  assert.equal(queue.cells[0].meanRatio, null, 'none for the baseline')
  assert.ok(Math.abs(queue.cells[1].mean - queue.cells[0].mean - 4) < 1e-6)
  assert.ok(queue.cells[1].meanRatio > 4)
  const run1 = cmp.phases.find((r) => r.phase === 'run')
  assert.ok(Math.abs(run1.cells[1].meanRatio - 1) < 1e-9, 'the same work: the same run')
  assert.match(renderCompareMarkdown(cmp), /## Per phase[\s\S]*\| `queued-threads@loop:1e5#open:100\/s` \| queue \|/)
  const odd = compareReports([{ file: 'a.json', report: report(poolPhases(10, 0)) }, { file: 'b.json', report: report({ phases: { queue: { mean: 'x' } } }) }])
  assert.equal(odd.phases.find((r) => r.phase === 'queue').cells[1].mean, null)
})
