// compare's verdicts and --fail-on, on reports built from REAL runs: one lab run of loop:1e5 with 8
// rounds split into two reports (even and odd rounds: the same code, interleaved in time, so drift of the
// shared machine hits both), and a lab run of sleep:300 (each request held 300 ms instead of about 0.1 ms of
// work: a real difference, and one that no CPU contention on a busy machine can shrink or blur) whose run is
// relabelled loop:1e5 so that compare lines it up as "the same run, after a change"; and the same with one
// round each, which gets a verdict all the same. Also --fail-on refusals.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { CompareError, parseFailOn } from '../../../loadtest/compare/compare.js'
import { spread } from '../../../loadtest/result/stats.js'
import { ROOT, labRun } from '../../helpers/lab.js'
import { assertRatio } from '../../helpers/reports-real.js'

describe('the --fail-on grammar (pure)', () => {
  test('parseFailOn: the sign is the regression\'s direction; malformed bounds name themselves and the grammar', () => {
    assert.deepEqual(parseFailOn('p99:+10%'), { spec: 'p99:+10%', metric: 'p99', sign: '+', bound: 0.1 })
    assert.deepEqual(parseFailOn('rps:-5%'), { spec: 'rps:-5%', metric: 'rps', sign: '-', bound: 0.05 })
    assert.equal(parseFailOn('p99.9: +2.5 %').bound, 0.025)
    assert.equal(parseFailOn('efficiency:-10%').metric, 'efficiency')
    const bad = [
      ['p99:10%', /needs a sign .*p99:\+10% or p99:-10%/],
      ['rps:+5%', /for rps a regression is a fall: write rps:-5%/],
      ['p99:-10%', /for p99 a regression is a rise: write p99:\+10%/],
      ['errors:+1%', /errors is a count: bound it with the lab's --threshold 'errors==0'/],
      ['p99:+10', /cannot read it/],
      ['p98:+10%', /unknown metric "p98"/],
      ['', /cannot read it/]
    ]
    for (const [spec, why] of bad) {
      assert.throws(() => parseFailOn(spec), (err) => {
        assert.ok(err instanceof CompareError)
        assert.equal(err.code, 'LAB_COMPARE_FAIL_ON')
        assert.match(err.message, why)
        assert.match(err.message, /; expected METRIC:\+N% /)
        assert.ok(err.message.startsWith(`--fail-on ${JSON.stringify(spec)}: `), err.message)
        return true
      }, spec)
    }
  })
})

// A report holding only the rounds `pick` keeps, its figures those of the median round as the lab picks it.
function fromRounds (report, pick) {
  const out = structuredClone(report)
  for (const r of out.results) {
    const rounds = r.runs.filter((_, i) => pick(i))
    const order = rounds.map((x, i) => [x.rps, i]).sort((a, b) => a[0] - b[0])
    const mid = rounds[order[(order.length - 1) >> 1][1]]
    r.runs = rounds
    r.rps = mid.rps
    r.requests = mid.requests
    // the median round's figures with that round's own histogram and timeline: a run agrees with its histogram
    r.latency = { ...r.latency, ...mid.latency }
    r.latency.percentiles = { ...r.latency.percentiles, 50: mid.latency.p50, 99: mid.latency.p99 }
    r.histograms = { ...r.histograms, latency: mid.histograms.latency }
    r.timeline = mid.timeline
    r.spread = { rps: spread(rounds.map((x) => x.rps)), p99: spread(rounds.map((x) => x.latency.p99)) }
    r.efficiency = r.ideal?.rps ? r.rps / r.ideal.rps : null
  }
  return out
}

// The same report with one round: no `runs`, no `spread` (what the lab writes without --runs).
function oneRound (report) {
  const out = structuredClone(report)
  for (const r of out.results) { delete r.runs; delete r.spread }
  return out
}

describe('compare on reports built from real rounds', () => {
  let dir
  const files = {}
  const reports = {}
  const KEY = 'simple@loop:1e5'
  const cli = (args) => execa(process.execPath, ['loadtest/compare/cli.js', ...args], { cwd: ROOT, reject: false, stdin: 'ignore' })

  async function lab (work, runs, { amount = 40, extra = [] } = {}) {
    const out = join(dir, `lab-${work.replace(':', '-')}`)
    await mkdir(out)
    // in this process (the lab's CLI has its own tests; compare's CLI is the one under test here)
    const args = ['--server', 'simple', '--work', work, '--connections', '2', '--amount', String(amount),
      '--runs', String(runs)]
    await labRun([...args, ...extra, '--out', out], { html: false })
    const json = (await readdir(out)).find((f) => f.endsWith('.json'))
    return JSON.parse(await readFile(join(out, json), 'utf8'))
  }

  async function save (name, report) {
    reports[name] = report
    files[name] = join(dir, `${name}.json`)
    await writeFile(files[name], JSON.stringify(report))
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loadlab-gates-'))
    // 4 rounds a report: the ranges of two reports of 4 exchangeable rounds lie apart one way 1 time in 70
    // (3 rounds: 1 in 20), and a call needs the floor past that
    const same = await lab('loop:1e5', 8)
    assert.equal(same.results[0].runs.length, 8)
    await save('even', fromRounds(same, (i) => i % 2 === 0))
    await save('odd', fromRounds(same, (i) => i % 2 === 1))
    // 20 requests of 300 ms on 2 connections: 3 s a round; a warm-up of 2 (a sleep has no JIT to warm)
    const slower = await lab('sleep:300', 3, { amount: 20, extra: ['--warmup', '2'] })
    // The slower run, lined up as the same run after a change that made each request wait 300 ms (about 6
    // req/s on 2 connections against the hundreds of loop:1e5: a difference past what a disturbance explains,
    // × 2.86 by the rule book's floorDisturbed, which a run of the busy suite often is).
    for (const r of slower.results) { r.key = KEY; r.work = 'loop:1e5' }
    await save('slower', slower)
    await save('even1', oneRound(reports.even))
    await save('slower1', oneRound(slower))
  })
  after(async () => { if (dir) await rm(dir, { recursive: true, force: true }) })

  function cells (md, key = KEY) {
    const lines = md.split('\n')
    const split = (l) => l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
    const head = split(lines.find((l) => l.startsWith('| run |')))
    return Object.fromEntries(split(lines.find((l) => l.startsWith(`| \`${key}\` |`))).map((v, i) => [head[i], v]))
  }
  const rpsOf = (name) => reports[name].results[0].rps
  const fmt = (v) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })

  test('the same code, rounds interleaved: within noise, and tight --fail-on bounds do not fail', async () => {
    const res = await cli([files.even, files.odd, '--fail-on', 'rps:-1%', '--fail-on', 'p99:+1%'])
    assert.equal(res.exitCode, 0, res.stderr + res.stdout)
    const c = cells(res.stdout)
    // whatever the ratio (40-request rounds of a busy suite moved 12×), the same code is not called a
    // change: req/s within noise, or put down to a disturbance the lab marked (a busy suite's often is);
    // p99 within noise by the rule, as 40 requests cannot bound a p99 from above
    assert.match(c['B req/s ×A'], /^[\d,]+\.\d\d× (within noise|disturbed)$/)
    assert.match(c['B p99 ×A'], /^[\d,]+\.\d\d× within noise$/)
    assert.match(res.stdout, /Verdicts: Each figure has a 95 % interval from its own run/)
    assert.match(res.stdout, /- A \(.*\) carries no ruler: the machine cannot be told apart for it/)
    assert.match(res.stdout, /## Gates \(--fail-on\)/)
    assert.doesNotMatch(res.stdout, /no noise estimate/)
    assert.doesNotMatch(res.stdout + res.stderr, /✗ regressed/)
  })

  test('a real difference (300 ms a request): worse, --fail-on exits 99 naming the run and the figures', async () => {
    const res = await cli([files.even, files.slower, '--fail-on', 'rps:-5%', '--fail-on', 'p99:+10000%'])
    assert.equal(res.exitCode, 99, res.stderr)
    const c = cells(res.stdout)
    assertRatio(c['B req/s ×A'], rpsOf('slower') / rpsOf('even'), 'worse')
    assert.ok(rpsOf('slower') < rpsOf('even') * 0.95)
    const line = `✗ regressed: B \`${KEY}\` rps ${fmt(rpsOf('even'))} req/s → ${fmt(rpsOf('slower'))} req/s ` +
      `(${((rpsOf('slower') / rpsOf('even') - 1) * 100).toFixed(1)}%, bound -5%; verdict: worse)`
    assert.deepEqual(res.stderr.split('\n'), [`compare: --fail-on: ${line}`, 'compare: 1 regression(s) past a --fail-on bound: exit 99'])
    assert.ok(res.stdout.includes(`  - ${line}`), res.stdout)
    // the p99 bound (+10000 %) is not crossed
    assert.match(res.stdout, /- `p99:\+10000%`\n {2}- (✓ within bound|≈ past the bound, within noise): B /)
  })

  test('the other direction (the change undone): better, and --fail-on exits 0', async () => {
    const res = await cli([files.slower, files.even, '--fail-on', 'rps:-5%', '--fail-on', 'p99:+10%'])
    assert.equal(res.exitCode, 0, res.stderr)
    assertRatio(cells(res.stdout)['B req/s ×A'], rpsOf('even') / rpsOf('slower'), 'better')
    assert.match(res.stdout, /✓ within bound: B `simple@loop:1e5` rps .* \(\+\d+\.\d%, bound -5%; verdict: better\)/)
  })

  test('one round per run: a verdict all the same, from each run\'s own intervals; --fail-on judges it', async () => {
    // with the page, which colours the verdict, with one round as with several
    const html1 = join(dir, 'one.html')
    const worse = await cli([files.even1, files.slower1, '--html', html1, '--fail-on', 'rps:-5%'])
    assert.equal(worse.exitCode, 99, worse.stderr)
    assertRatio(cells(worse.stdout)['B req/s ×A'], rpsOf('slower1') / rpsOf('even1'), 'worse')
    assert.match(worse.stderr, /^compare: --fail-on: ✗ regressed: B `simple@loop:1e5` rps .*; verdict: worse\)$/m)
    const better = await cli([files.slower1, files.even1, '--fail-on', 'rps:-5%'])
    assert.equal(better.exitCode, 0, better.stderr)
    assertRatio(cells(better.stdout)['B req/s ×A'], rpsOf('even1') / rpsOf('slower1'), 'better')
    const one = await readFile(html1, 'utf8')
    assert.match(one, /<span class="ratio-down" data-verdict="worse" title="worse">0\.\d\d× worse<\/span>/)
    assert.match(one, /data-flag="gates".*<li data-gate="regressed">✗ regressed: B/s)
  })

  test('malformed --fail-on: one line, exit 2, before any report is read', async () => {
    // the first and the last of parseFailOn's refusals (each one's message: the pure test above); the others
    // take the same path through the CLI
    for (const spec of ['p99:10%', 'nope:+1%']) {
      const res = await cli([join(dir, 'missing.json'), files.even, '--fail-on', spec])
      assert.equal(res.exitCode, 2, res.stderr)
      assert.equal(res.stdout, '')
      const lines = res.stderr.trim().split('\n')
      assert.equal(lines.length, 1, res.stderr)
      assert.ok(lines[0].startsWith(`compare: --fail-on ${JSON.stringify(spec)}: `), lines[0])
    }
  })
})
