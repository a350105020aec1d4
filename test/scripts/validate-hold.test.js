// scripts/validate-hold.js: a stated capacity run again. The rule on built histograms (each round's percentile
// from its own histogram, their median against each target stated at that rate, a round without one leaves the
// target unjudged); the flags that give the rounds the report's own work; the CLI's refusals; and a real run
// from a capacity report whose stated rate is set low: the rounds it asked for, at that rate, judged by the rule.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { execa } from 'execa'
import { ROOT } from '../../loadtest/catalog.js'
import { createHistogram, encodeHistogram, recordMs } from '../../loadtest/result/histogram.js'
import { amountFor, holdOf, ratesOf, roundPercentile, workFlags } from '../../scripts/validate-hold.js'
import { readBounded } from '../../loadtest/report/read.js'
import { tempDir } from '../helpers/lab.js'

const SCRIPT = join(ROOT, 'scripts', 'validate-hold.js')

// A round whose latencies are `ms` (a histogram as the report keeps it).
function round (ms) {
  const h = createHistogram()
  for (const x of ms) recordMs(h, x)
  return { histograms: { latency: encodeHistogram(h) } }
}
const many = (n, ms) => Array.from({ length: n }, () => ms)

test('each round\'s percentile from its histogram; their median against every target stated at the rate', () => {
  assert.equal(amountFor(99), 1000)
  assert.equal(amountFor(95), 600)
  const result = {
    capacity: {
      targets: [{ sloMs: 1, rps: 50, bound: 'refined' }, { sloMs: 2, rps: 50, bound: 'refined' },
        { sloMs: 50, rps: 80, bound: 'lower' }, { sloMs: 100, rps: null, bound: 'cannot-meet' }]
    }
  }
  assert.deepEqual(ratesOf(result), [
    { rps: 50, targets: [{ sloMs: 1, bound: 'refined' }, { sloMs: 2, bound: 'refined' }] },
    { rps: 80, targets: [{ sloMs: 50, bound: 'lower' }] }
  ])
  // 2 of 100 requests at 1.9 ms: p95 is 0.5, p99 is 1.9 (under 2.048 ms a histogram's bucket is 1 µs: exact)
  const slow = round([...many(98, 0.5), 1.9, 1.9])
  assert.equal(roundPercentile(slow, 95), 0.5)
  assert.equal(roundPercentile(slow, 99), 1.9)
  const at = ratesOf(result)[0]
  // two rounds of three over 1 ms and under 2: the median is the middle one
  const held = holdOf(at, [round(many(100, 0.4)), round(many(100, 1.5)), round(many(100, 1.2))], 99)
  assert.deepEqual(held.rounds, [0.4, 1.5, 1.2])
  assert.equal(held.median, 1.2)
  assert.deepEqual(held.targets.map((t) => t.holds), [false, true])
  // a round that kept no histogram: no median, no verdict
  const blind = holdOf(at, [round(many(100, 0.4)), {}, round(many(100, 0.4))], 99)
  assert.equal(blind.median, null)
  assert.deepEqual(blind.targets.map((t) => t.holds), [null, null])
})

test('the rounds run the report\'s own work: its task with the input it was given, else its work', () => {
  const task = (t) => workFlags({ method: { task: { path: '/x/t.js', export: 'default', ...t } } }, {})
  assert.deepEqual(task({ inputFrom: 'module input export', input: null }), ['--task', '/x/t.js'])
  assert.deepEqual(task({ inputFrom: 'p.json', input: null }), ['--task', '/x/t.js', '--input', '@p.json'])
  assert.deepEqual(task({ inputFrom: 'command line', input: { n: 3 } }), ['--task', '/x/t.js', '--input', '{"n":3}'])
  assert.deepEqual(task({ export: 'render', inputFrom: 'module input export' }), ['--task', '/x/t.js#render'])
  assert.throws(() => task({ inputFrom: 'command line', input: null }), /not kept/)
  assert.deepEqual(workFlags({ method: { task: null } }, { args: ['--work', 'loop:1e5'] }), ['--work', 'loop:1e5'])
})

test('the CLI refuses what it cannot run, in one line with exit 2', async () => {
  for (const [args, why] of [
    [['--task', 'x.js'], /--out DIR is required/],
    [['--out', '/tmp/x'], /give --task FILE or --from REPORT\.json/],
    [['--from', 'a.json', '--quick', '--out', '/tmp/x'], /--server and --quick go with --task/],
    [['--task', 'x.js', '--rounds', '0', '--out', '/tmp/x'], /--rounds: expected a whole number >= 1/]
  ]) {
    const run = await execa(process.execPath, [SCRIPT, ...args], { reject: false })
    assert.equal(run.exitCode, 2, args.join(' '))
    assert.match(run.stderr, why)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  }
})

test('a real run from a capacity report: the rounds asked for, at the stated rate, judged by the rule', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir('loadlab-hold-')
  t.after(() => dir.cleanup())
  const report = JSON.parse(readBounded(join(ROOT, 'reports/reference/2026-11-26T21-15-03Z-vm-capacity.json.gz')))
  const [simple] = report.results
  // one strategy, its work made light and its stated rate low, so that two rounds of 20 take seconds
  simple.args = ['--work', 'loop:1e5']
  simple.capacity.targets = simple.capacity.targets.map((x) => ({ ...x, rps: 10 }))
  report.results = [simple]
  const from = join(dir.dir, 'capacity.json')
  await writeFile(from, JSON.stringify(report))
  const out = join(dir.dir, 'out')
  const run = await execa(process.execPath, [SCRIPT, '--from', from, '--rounds', '2', '--amount', '20', '--out', out],
    { reject: false, env: { ...process.env, LOADLAB_RULER: 'off' } })
  assert.equal(run.exitCode, 0, run.stderr)
  const hold = JSON.parse(await readFile(join(out, 'hold.json'), 'utf8'))
  assert.equal(hold.kind, 'loadlab-hold')
  assert.equal(hold.rows.length, 1)
  const [row] = hold.rows
  assert.equal(row.rps, 10)
  assert.equal(row.percentile, simple.capacity.percentile)
  assert.equal(row.rounds.length, 2)
  assert.equal(row.median, Math.round(((row.rounds[0] + row.rounds[1]) / 2) * 1000) / 1000)
  assert.deepEqual(row.targets.map((x) => x.holds), simple.capacity.targets.map((x) => row.median <= x.sloMs))
  assert.equal(hold.judged, 3)
  assert.equal(hold.held, row.targets.filter((x) => x.holds).length)
  // the rounds' own report: the rate and the amount asked for, two rounds
  const roundsDir = join(out, 'rounds', 'simple-10')
  const file = (await readdir(roundsDir)).find((f) => f.endsWith('.json'))
  const rounds = JSON.parse(await readFile(join(roundsDir, file), 'utf8'))
  const [r] = rounds.results
  assert.equal(r.rate, 10)
  assert.equal(r.runs.length, 2)
  for (const x of r.runs) assert.equal(x.requests.sent, 20)
  assert.match(await readFile(join(out, 'hold.md'), 'utf8'), /^# Does the stated capacity hold\? \d of 3 targets/)
})
