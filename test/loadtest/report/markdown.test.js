// report/table.js and report/markdown.js: the terminal table and the Markdown page of a report.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildHttpResult, buildReport } from '../../../loadtest/result/build.js'
import { summarizeCalibration } from '../../../loadtest/run/watch/calibrate.js'
import { defaultTable, renderText } from '../../../loadtest/report/table.js'
import { renderMarkdown } from '../../../loadtest/report/markdown.js'
import { entry, rawRound } from '../../helpers/raw-round.js'

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
