// lab --threshold: the grammar (pure), the evaluation on fixtures, then the CLI on real small runs:
// every form passing and crossing in one run (exit 99) with the marks in the table, JSON, Markdown and
// HTML, and malformed thresholds refused with exit 2 before any server starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LabError, ThresholdError } from '../../../loadtest/errors.js'
import {
  METRICS, THRESHOLD_EXIT, anyCrossed, evaluateThresholds, parseThreshold, thresholdRows, thresholdSummary
} from '../../../loadtest/report/thresholds.js'
import { httpReport } from '../../fixtures/reports.js'
import { FIXTURES, readReport, runLab, tempDir } from '../../helpers/lab.js'
import { parseOptions } from '../../../loadtest/options.js'

test('parseThreshold: every form, with units converted to the metric\'s own', () => {
  const p = (s) => { const t = parseThreshold(s); return [t.server, t.metric, t.op, t.value, t.unit] }
  assert.deepEqual(p('p99<500'), [null, 'p99', '<', 500, 'ms'])
  assert.deepEqual(p('p99.9 <= 0.5s'), [null, 'p99.9', '<=', 500, 'ms'])
  assert.deepEqual(p('p50<20ms'), [null, 'p50', '<', 20, 'ms'])
  assert.deepEqual(p('P97.5>=1'), [null, 'p97.5', '>=', 1, 'ms'])
  assert.deepEqual(p('max<1e4'), [null, 'max', '<', 10000, 'ms'])
  assert.deepEqual(p('rps>100'), [null, 'rps', '>', 100, 'req/s'])
  assert.deepEqual(p('rps>100req/s'), [null, 'rps', '>', 100, 'req/s'])
  assert.deepEqual(p('errors==0'), [null, 'errors', '==', 0, ''])
  assert.deepEqual(p('timeouts!=0'), [null, 'timeouts', '!=', 0, ''])
  assert.deepEqual(p('efficiency>=80%'), [null, 'efficiency', '>=', 0.8, ''])
  assert.deepEqual(p('efficiency>0.5'), [null, 'efficiency', '>', 0.5, ''])
  assert.deepEqual(p('capacity>200'), [null, 'capacity', '>', 200, 'req/s'])
  assert.deepEqual(p('queued-threads:p99<200'), ['queued-threads', 'p99', '<', 200, 'ms'])
  assert.deepEqual(p('sleep-variants/async-sleep:p50<150'), ['sleep-variants/async-sleep', 'p50', '<', 150, 'ms'])
  assert.deepEqual(p('127.0.0.1:3000:rps>1'), ['127.0.0.1:3000', 'rps', '>', 1, 'req/s'])
  assert.equal(parseThreshold('queued-threads:p99<0.2s').text, 'queued-threads: p99 < 200 ms')
  assert.equal(parseThreshold('efficiency>=80%').text, 'efficiency >= 80%')
  assert.deepEqual(Object.keys(METRICS).filter((m) => m.startsWith('p')), ['p50', 'p75', 'p90', 'p97.5', 'p99', 'p99.9', 'p99.99'])
})

const MALFORMED = [
  ['', /empty/],
  ['p99', /cannot read it/],
  ['p99<<500', /cannot read it/],
  ['p99=500', /cannot read it/],
  ['p99<-1', /cannot read it/],
  ['p98<500', /unknown metric "p98"/],
  ['latency<500', /unknown metric "latency"/],
  ['p99<500kg', /p99 takes no unit or ms, s, got "kg"/],
  ['rps>100ms', /rps takes no unit or rps, req\/s, \/s, got "ms"/],
  ['errors<0.5', /errors is a count: expected a whole number/],
  ['timeouts==0%', /timeouts takes no unit, got "%"/],
  [':p99<5', /empty server name/],
  ['a b:p99<5', /bad server name/]
]

test('parseThreshold: a malformed threshold names itself and the grammar', () => {
  for (const [spec, why] of MALFORMED) {
    assert.throws(() => parseThreshold(spec), (err) => {
      assert.ok(err instanceof ThresholdError && err instanceof LabError, spec)
      assert.match(err.message, why, spec)
      assert.ok(err.message.startsWith(`--threshold ${JSON.stringify(spec)}: `), err.message)
      assert.match(err.message, /expected \[SERVER\[\/VARIANT\]:\]METRIC\[\{class=NAME\}\] OP VALUE\[UNIT\]/)
      return true
    })
  }
})

test('evaluateThresholds: per threshold and run, passed / crossed / not applicable with the figure', () => {
  const report = httpReport()
  const [simple, queued, cluster, child] = report.results
  const ev = evaluateThresholds(['p99<20', 'queued-threads:rps>1000', 'timeouts==0', 'capacity>10', 'cluster:p50<1'].map(parseThreshold), report.results)
  assert.deepEqual(ev.map((t) => t.status), ['crossed', 'crossed', 'crossed', 'not-applicable', 'crossed'])
  // p99 < 20: the figures decide per run (the failed run has figures too)
  const p99 = ev[0].runs
  assert.ok(p99.some((r) => r.status === 'passed') && p99.some((r) => r.status === 'crossed'), JSON.stringify(p99))
  assert.deepEqual(p99.map((r) => r.run), ['simple', 'queued-threads', 'cluster', 'child-process'])
  assert.deepEqual(p99.map((r) => r.figure), [simple, queued, cluster].map((r) => r.latency.percentiles['99']).concat(null))
  assert.deepEqual(p99.map((r) => r.status), ['crossed', 'passed', 'crossed', 'not-applicable'])
  assert.equal(p99[3].reason, 'run failed')
  assert.equal(child.status, 'failed')
  // qualified: only that server's run
  assert.deepEqual(ev[1].runs.map((r) => [r.run, r.figure, r.status]), [['queued-threads', queued.rps, 'crossed']])
  // timeouts == 0: the cluster run had 12
  assert.deepEqual(ev[2].runs.map((r) => r.status), ['passed', 'passed', 'crossed', 'passed'])
  // capacity: not measured by an ordinary run
  assert.deepEqual(ev[3].runs.map((r) => [r.status, r.reason]), [...Array(3).fill(['not-applicable', 'not measured']), ['not-applicable', 'run failed']])
  // a capacity sweep's result (the capacity experiment's `capacity.capacity.rps`) is measured
  const swept = (rps) => ({ sloMs: 100, steps: [], capacity: { sloMs: 100, rps, bound: 'refined' } })
  const cap = evaluateThresholds([parseThreshold('capacity>=250')], [{ ...simple, capacity: swept(300) }, { ...queued, capacity: swept(200) }])
  assert.deepEqual(cap[0].runs.map((r) => [r.figure, r.status]), [[300, 'passed'], [200, 'crossed']])
  assert.equal(anyCrossed(ev), true)
  assert.equal(anyCrossed(evaluateThresholds([parseThreshold('rps>0')], [simple])), false)
  // a qualifier matching no run: one row saying so
  const none = thresholdRows(evaluateThresholds([parseThreshold('cluster-threads:p99<5')], report.results))
  assert.deepEqual(none.rows, [['cluster-threads: p99 < 5 ms', 'no run of cluster-threads', '-', '- not applicable']])
})

test('malformed thresholds exit 2 with one line naming the threshold, before any server starts', { timeout: 120000 }, async () => {
  const out = await tempDir()
  const starts = join(out.dir, 'starts.txt')
  try {
    const cases = [...MALFORMED.filter(([s]) => s !== ''), ['nope:p99<5', /unknown server `nope`; allowed: simple, /]]
    // Every case through the lab's own option parser (the CLI's usage error, exit 2)…
    process.env.LOADLAB_EXTRA_SERVERS ??= FIXTURES
    for (const [spec, why] of cases) {
      const args = ['--server', 'records-start', '--threshold', 'rps>0', '--threshold', spec, '--out', join(out.dir, 'reports')]
      assert.throws(() => parseOptions(args), (err) => {
        assert.equal(err.exitCode, 2, spec)
        assert.ok(err.message.startsWith(`--threshold ${JSON.stringify(spec)}: `), err.message)
        assert.match(err.message, why)
        return true
      })
    }
    // …and two of them through the real CLI: one line, exit 2, no server, no report.
    for (const [spec, why] of [cases[0], cases.at(-1)]) {
      const r = await runLab(['--server', 'records-start', '--threshold', 'rps>0', '--threshold', spec, '--out', join(out.dir, 'reports')], { env: { LOADLAB_FIXTURE_STARTS: starts } })
      assert.equal(r.exitCode, 2, `${spec}: ${r.stderr}`)
      const lines = r.stderr.trim().split('\n')
      assert.equal(lines.length, 1, r.stderr)
      assert.ok(lines[0].startsWith(`loadlab lab: --threshold ${JSON.stringify(spec)}: `), lines[0])
      assert.match(lines[0], why)
      assert.equal(r.stdout, '')
    }
    assert.equal(existsSync(starts), false, 'no server was started')
    assert.deepEqual(await readdir(out.dir), [], 'no report written')
  } finally {
    await out.cleanup()
  }
})

const LOAD = ['--server', 'simple,queued-threads', '--work', 'loop:1e5', '--connections', '2', '--amount', '40']

// Every form, written so that it passes on any healthy small run, and its crossing twin.
const PASSING = ['p99<60s', 'p50<=60000ms', 'p99.9<60000', 'max<60000', 'rps>1', 'errors==0', 'timeouts==0', 'efficiency>0%', 'queued-threads:p99<60000']
const CROSSING = ['p99<0.0001', 'p50<=0ms', 'p99.9<0.0001s', 'max<0', 'rps>1e9', 'errors>0', 'timeouts!=0', 'efficiency>=100000%', 'queued-threads:p99<0.0001']

async function labWith (thresholds) {
  const out = await tempDir()
  const args = [...LOAD, '--out', out.dir, ...thresholds.flatMap((t) => ['--threshold', t])]
  const r = await runLab(args, { timeout: 120000 })
  const report = await readReport(out.dir)
  const html = await readFile(join(out.dir, report.files.find((f) => f.endsWith('.html'))), 'utf8')
  await out.cleanup()
  return { ...r, ...report, html }
}

// One real run carries both sets: each threshold is judged on its own (evaluateThresholds, above), so a
// passing one beside crossing ones shows its pass as it would alone; that all-passed exits 0 is anyCrossed's
// rule (above) and the CLI's one line (loadtest/cli.js). A second lab run would check nothing more.
test('every threshold form passes and crosses on a real small run: exit 99 after the report is written, marked in ' +
  'the table, JSON, Markdown and HTML', { timeout: 180000 }, async () => {
  const r = await labWith([...PASSING, ...CROSSING])
  assert.equal(r.exitCode, THRESHOLD_EXIT, r.stderr)
  assert.equal(r.json.status, 'complete', 'the run itself is fine; only the thresholds crossed')
  const ev = r.json.thresholds
  assert.deepEqual(ev.map((t) => t.threshold), [...PASSING, ...CROSSING])
  const passing = ev.slice(0, PASSING.length)
  const crossing = ev.slice(PASSING.length)
  for (const t of passing) {
    assert.equal(t.status, 'passed', t.threshold)
    const expected = t.server ? ['queued-threads'] : ['simple', 'queued-threads']
    assert.deepEqual(t.runs.map((x) => x.run), expected, t.threshold)
    assert.ok(t.runs.every((x) => x.status === 'passed' && typeof x.figure === 'number'), t.threshold)
  }
  assert.equal(anyCrossed(passing), false, 'the passing ones alone: exit 0')
  assert.equal(thresholdSummary(passing), `thresholds: ${PASSING.length} passed, 0 crossed`)
  for (const t of crossing) {
    assert.equal(t.status, 'crossed', t.threshold)
    assert.ok(t.runs.every((x) => x.status === 'crossed' && typeof x.figure === 'number'), t.threshold)
  }
  assert.deepEqual(crossing.at(-1).runs.map((x) => x.run), ['queued-threads'])
  // the figures are the report's own
  const simple = r.json.results.find((x) => x.server === 'simple')
  assert.equal(passing.find((t) => t.metric === 'rps').runs[0].figure, simple.rps)
  assert.equal(passing.find((t) => t.metric === 'p99.9').runs[0].figure, simple.latency.percentiles['99.9'])
  assert.equal(passing.find((t) => t.metric === 'efficiency').runs[0].figure, simple.efficiency)
  // one row per threshold and run: every form on both runs but the one on queued-threads
  const rows = PASSING.length * 2 - 1
  assert.equal(CROSSING.length * 2 - 1, rows)
  assert.equal((r.stderr.match(/✓ passed/g) ?? []).length, rows, r.stderr)
  assert.equal((r.stderr.match(/✗ crossed/g) ?? []).length, rows, r.stderr)
  const summary = r.stderr.split('\n').find((l) => l.startsWith('thresholds: '))
  assert.match(summary, new RegExp(`^thresholds: ${PASSING.length} passed, ${CROSSING.length} crossed — crossed: ` +
    'p99 < 0\\.0001 ms on simple: .* \\(exit 99\\)$'))
  // the report was written before the exit: its files exist and carry the marks
  assert.equal(r.files.filter((f) => /\.(json|md|html)$/.test(f)).length, 3)
  assert.match(r.md, /## Thresholds\n\n\| threshold \| run \| figure \| verdict \|/)
  assert.equal((r.md.match(/\| ✓ passed \|/g) ?? []).length, rows)
  assert.equal((r.md.match(/\| ✗ crossed \|/g) ?? []).length, rows)
  assert.equal((r.html.match(/data-threshold="passed"/g) ?? []).length, rows)
  assert.equal((r.html.match(/data-threshold="crossed"/g) ?? []).length, rows)
  assert.match(r.html, /<tr class="failed"><td>rps &gt; 1000000000 req\/s<\/td><td>simple<\/td>/)
})
