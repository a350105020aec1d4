// report/table.js and report/markdown.js: the terminal table and the Markdown page of a report.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildHttpResult as build, buildReport } from '../../../loadtest/result/build.js'
import { reasonText } from '../../../loadtest/text/reasons.js'
import { summarizeCalibration } from '../../../loadtest/run/watch/calibrate.js'
import { defaultTable, renderText } from '../../../loadtest/report/table.js'
import { renderMarkdown } from '../../../loadtest/report/markdown.js'
import { entry, rawRound } from '../../helpers/raw-round.js'
import { decide } from '../../../loadtest/result/decision.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'
import { capacityReport, httpReport, mixCapacityReport, rulerFixture, rulerReading } from '../../fixtures/reports.js'
import { combinedSpread } from '../../../loadtest/result/ruler.js'

const buildHttpResult = (record, opts = {}) => build(record, { ...opts, say: reasonText }) // as the lab builds it

function sampleReport () {
  const ok = buildHttpResult(
    { entry, rounds: [rawRound()] },
    { calibration: { 'loop:1e7': { medianMs: 10 } }, cores: 2 }
  )
  const failed = buildHttpResult({
    entry: { ...entry, server: 'cluster' },
    rounds: [],
    failure: { reason: 'exited before it was ready', exitCode: 3, signal: null, stderrTail: ['bad | thing'] }
  }, { cores: 2 })
  return buildReport({
    id: '2026-11-22T04-31-07Z-vm-custom',
    createdAt: '2026-11-22T04:31:07.000Z',
    finishedAt: '2026-11-22T04:32:00.000Z',
    experiment: 'custom',
    label: 'unit',
    machine: {
      hostname: 'vm',
      cpuModel: 'Test CPU',
      cores: 2,
      availableParallelism: 2,
      memoryBytes: 2 ** 33,
      os: { type: 'Linux', platform: 'linux', release: '6' },
      arch: 'x64',
      node: 'v20.19.0',
      v8: '11',
      versions: { fastify: '5.0.0', piscina: '5.0.0', autocannon: '9.0.0', react: '19.0.0' },
      loadavg: [0.1, 0.2, 0.3]
    },
    method: {
      tool: 'autocannon',
      toolVersion: '9.0.0',
      connections: 4,
      amount: 10,
      durationSec: null,
      timeoutSec: 10,
      warmup: { amount: 5 },
      runs: 1,
      url: null,
      outsideSampling: true,
      command: 'npm run lab -- --server simple,cluster'
    },
    calibration: { 'loop:1e7': summarizeCalibration('loop:1e7', [10, 10, 10]) },
    results: [ok, failed],
    notes: ['a note']
  })
}

test('table and Markdown: machine and method stated, one row per result, failures shown', () => {
  const report = sampleReport()
  const t = defaultTable(report)
  assert.equal(t.rows.length, 2)
  assert.equal(t.rows[0][0], 'simple')
  assert.equal(t.rows[0][3], '100.0')
  assert.equal(t.rows[0][16], '50%')
  assert.equal(t.rows[0][17], '-', 'no own contention')
  assert.equal(t.rows[0][18], '✓')
  assert.equal(t.rows[1][3], 'FAILED')
  const text = renderText(t)
  assert.equal(text.trim().split('\n').length, 4)
  const md = renderMarkdown(report)
  assert.match(md, /Test CPU, 2 cores \(availableParallelism 2\), 8\.0 GiB RAM/)
  assert.match(
    md,
    /\*\*Node:\*\* v20\.19\.0 \(V8 11\); fastify 5\.0\.0, piscina 5\.0\.0, autocannon 9\.0\.0, react 19\.0\.0/
  )
  assert.match(md, /\*\*Command:\*\* `npm run lab -- --server simple,cluster`/)
  assert.match(md, /4 connections, 10 requests per measured round, 10 s timeout, warm-up 5 requests/)
  assert.match(md, /\| simple \| loop:1e7 \| 4 \| 100\.0 \|/)
  assert.match(md, /### Failure: `cluster@loop:1e7`/)
  assert.match(md, /exit code 3/)
  assert.match(md, /bad \| thing/)
  assert.match(md, /- a note/)
  const custom = renderMarkdown(report, { table: () => ({ head: ['a', 'b'], rows: [['1', '2']] }) })
  assert.match(custom, /\| a \| b \|\n\| --- \| --- \|\n\| 1 \| 2 \|/)
})

// The order of a report's Markdown sections (## headings).
const sectionsOf = (md) => md.split('\n').filter((l) => l.startsWith('## '))

test('Markdown: the decision first, the method last; the experiment\'s description is the method\'s', async () => {
  const report = capacityReport()
  report.decision = decide(report)
  const experiment = await experimentFor('capacity')
  const md = renderMarkdown(report, experiment)
  const sections = sectionsOf(md)
  assert.equal(sections[0], '## Decision')
  assert.equal(sections.at(-1), '## Method')
  assert.ok(sections.indexOf('## Results') < sections.indexOf('## Machine'), 'the figures before the machine')
  // over the decision: the title and one status line, never the experiment's description
  const before = md.slice(0, md.indexOf('## Decision'))
  assert.ok(before.split(/\s+/).length < 60, `${before.split(/\s+/).length} words before the decision`)
  assert.ok(md.indexOf(experiment.description) > md.indexOf('## Method'), 'the description opens the method')
  assert.match(before, /\*\*Capacity at a latency target/)
  // a report without a decision opens on its results, and ends on its method too
  const plain = sectionsOf(renderMarkdown(sampleReport()))
  assert.equal(plain[0], '## Results')
  assert.equal(plain.at(-1), '## Method')
})

test('Markdown and table: a --url mix\'s capacity states each class\'s own target, not the run\'s default', async () => {
  const report = mixCapacityReport()
  report.decision = { ...decide(report), recommends: 'rate', limitedBy: { name: 'cheap', rate: 77.6, why: 'p95 over the target' } }
  const md = renderMarkdown(report, await experimentFor('capacity'))
  assert.match(md, /- \*\*Capacity:\*\* 76\.1 req\/s \(bracket 76\.1–77\.6\) at each class's own target \(cheap p95 ≤ 50 ms, heavy p95 ≤ 300 ms\)/)
  assert.match(md, /- \*\*Target:\*\* each class at its own: cheap p95 ≤ 50 ms, heavy p95 ≤ 300 ms/)
  assert.doesNotMatch(md, /p95 ≤ 10 ms/, 'the run\'s default target is not stated as the target')
  const t = (await experimentFor('capacity')).table(report)
  assert.equal(t.rows[0][t.head.indexOf('target')], 'cheap 50 · heavy 300')
  // a run whose steps were not judged class by class keeps the run's target
  const whole = mixCapacityReport()
  whole.results[0].capacity.steps.forEach((s) => { s.cls = null })
  assert.match(renderMarkdown(whole, null), /- \*\*Target:\*\* p95 ≤ 10 ms/)
  // one request (-m -H -b: a one-class mix) at the run's target: the run's target, said once
  const one = mixCapacityReport()
  one.results[0].classes = [{ ...one.results[0].classes[0], name: 'request', sloMs: 10 }]
  assert.match(renderMarkdown(one, null), /- \*\*Target:\*\* p95 ≤ 10 ms/)
})

test('Markdown: the machine section has the ruler\'s line and table, a marked line when it moved; none without one', () => {
  const quiet = renderMarkdown({ ...httpReport(), ruler: rulerFixture(rulerReading(), rulerReading()) }, null)
  const machine = quiet.slice(quiet.indexOf('## Machine'), quiet.indexOf('## Calibration'))
  assert.match(machine, /^- \*\*Ruler:\*\* 2 cores offered, 1\.96 given · loop 0\.512 ms · loopback 0\.081 ms, 9,800 req\/s/m)
  const within = combinedSpread({ spreadPct: 4.1 }, { spreadPct: 4.1 }, 'cores.effective')
  const cores = '| cores given (speedup at the most threads) | 1.96 ±4.1 % | 1.96 ±4.1 % | 1.000× | ' +
    `within ±${within} % |`
  assert.ok(machine.split('\n').includes(cores), machine)
  assert.doesNotMatch(machine, /⚠/)
  const slower = rulerFixture(rulerReading(), rulerReading({ scale: 1.5 }))
  const moved = renderMarkdown({ ...httpReport(), ruler: slower }, null)
  assert.match(moved, /^- ⚠ \*\*The machine moved during the run \(end over start, beyond the readings' spread\): single\.loop 1\.500×/m)
  assert.doesNotMatch(renderMarkdown(httpReport(), null), /Ruler/)
})
