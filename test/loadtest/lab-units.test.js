// Unit tests of the lab's pure parts: options, statistics, parsing, report building, table, Markdown, writing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { parseOptions, DEFAULTS } from '../../loadtest/options.js'
import { percentile, median, summarize, spread } from '../../loadtest/result/stats.js'
import { parseServerTiming } from '../../loadtest/run/fire.js'
import { summarizeCalibration } from '../../loadtest/run/calibrate.js'
import { buildHttpResult, buildReport } from '../../loadtest/result/build.js'
import { ideal, roundFigures } from '../../loadtest/result/figures.js'
import { untrustedReasons } from '../../loadtest/result/trust.js'
import { defaultTable, renderText } from '../../loadtest/report/table.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { freeId, reportId, writeAtomic } from '../../loadtest/report/write.js'
import { resolveLoad, entryLoad } from '../../loadtest/run/load.js'
import { tempDir } from './lab-helpers.js'
import { createHistogram, recordMs } from '../../loadtest/result/histogram.js'

test('options: defaults, numbers parsed, servers split and expanded', () => {
  const o = parseOptions([
    '--server',
    'simple,queued-threads',
    '--connections',
    '8',
    '--amount',
    '100',
    '--timeout',
    '2.5',
    '--runs',
    '3',
    '--warmup',
    '0'
  ])
  assert.deepEqual(o.server, ['simple', 'queued-threads'])
  assert.equal(o.connections, 8)
  assert.equal(o.amount, 100)
  assert.equal(o.timeout, 2.5)
  assert.equal(o.runs, 3)
  assert.equal(o.warmup, 0)
  assert.equal(o.duration, null)
  assert.equal(o.json, false)
  const none = parseOptions([])
  for (const k of Object.keys(DEFAULTS)) assert.deepEqual(none[k], DEFAULTS[k], k)
  const all = parseOptions(['--server', 'all'])
  assert.ok(all.server.includes('simple') && all.server.includes('queued-threads'))
  assert.ok(!all.server.includes('all'))
})

test('options: every bad value is a usage error (exit 2) naming the option', () => {
  const cases = [
    [['--connections', '0'], '--connections'],
    [['--connections', '1e9'], '--connections'],
    [['--amount', 'x'], '--amount'],
    [['--duration', '0'], '--duration'],
    [['--timeout', 'abc'], '--timeout'],
    [['--runs', '0'], '--runs'],
    [['--warmup', '-1'], '--warmup'],
    [['--amount', '5', '--duration', '5'], '--amount and --duration'],
    [['--server', ''], '--server'],
    [['--server', 'simple,nope'], 'unknown server `nope`'],
    [['--experiment', 'zzz'], '--experiment'],
    [['--url', 'not a url'], '--url'],
    [['--url', 'http://127.0.0.1:1', '--server', 'simple'], '--url excludes'],
    [['--work', 'loop'], '--work'],
    [['--label', 'a\nb'], '--label'],
    [['--what'], "Unknown option '--what'"],
    [['stray'], 'Unexpected argument']
  ]
  for (const [argv, needle] of cases) {
    assert.throws(
      () => parseOptions(argv),
      (err) => {
        assert.equal(err.exitCode, 2, argv.join(' '))
        assert.equal(err.code, 'LAB_USAGE')
        assert.ok(err.message.includes(needle), `${argv.join(' ')} → ${err.message}`)
        assert.ok(!err.message.includes('\n'), 'one line')
        return true
      }
    )
  }
})

test('load settings: experiment defaults < --quick < user flags; entry values win; amount >= connections', () => {
  const exp = { defaults: { connections: 10, amount: 200, timeoutSec: 10, warmup: 20 }, quick: { amount: 40 } }
  const base = parseOptions([])
  assert.deepEqual(resolveLoad(base, exp), {
    connections: 10,
    rate: null,
    userConnections: null,
    arrival: 'constant',
    seed: 1,
    sloMs: null,
    amount: 200,
    durationSec: null,
    timeoutSec: 10,
    warmup: 20,
    runs: 1,
    recovery: true,
    recoveryTimeoutSec: null
  })
  const open = resolveLoad(parseOptions(['--rate', '50', '--timeout', '2', '--arrival', 'poisson', '--seed', '7']), exp)
  assert.deepEqual(
    [open.rate, open.arrival, open.seed, open.connections],
    [50, 'poisson', 7, 100],
    'open loop: the cap covers rate × timeout'
  )
  assert.equal(resolveLoad(parseOptions(['--rate', '50', '--connections', '3']), exp).connections, 3)
  assert.equal(resolveLoad(parseOptions(['--quick']), exp).amount, 40)
  const user = resolveLoad(parseOptions(['--duration', '3', '--connections', '2', '--timeout', '1']), exp)
  assert.equal(user.amount, null)
  assert.equal(user.durationSec, 3)
  assert.equal(user.connections, 2)
  assert.equal(user.timeoutSec, 1)
  const dur = resolveLoad(base, { defaults: { connections: 100, durationSec: 20 } })
  assert.equal(dur.durationSec, 20)
  assert.equal(dur.amount, null)
  const e = entryLoad({ server: 'simple', connections: 4, amount: 4 }, resolveLoad(base, exp))
  assert.equal(e.connections, 4)
  assert.equal(e.amount, 4)
  assert.equal(e.recoveryTimeoutSec, 10)
  assert.equal(entryLoad({ server: 'simple', recovery: false }, resolveLoad(base, exp)).recovery, false)
  assert.equal(resolveLoad(base, { defaults: { runs: 10 } }).runs, 10, 'an experiment default beats the built-in 1')
  assert.equal(resolveLoad(parseOptions(['--runs', '2']), { defaults: { runs: 10 } }).runs, 2)
  assert.throws(
    () => entryLoad({ server: 'simple', connections: 8, amount: 4 }, resolveLoad(base, exp)),
    (err) => err.exitCode === 2
  )
})

test('stats: nearest-rank percentile, median, summary, spread', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1)
  assert.equal(percentile(xs, 50), 50)
  assert.equal(percentile(xs, 99), 99)
  assert.equal(percentile(xs, 100), 100)
  assert.equal(percentile(xs, 0.001), 1)
  assert.equal(percentile([], 50), null)
  assert.equal(median([3, 1, 2]), 2)
  assert.equal(median([4, 1, 2, 3]), 2.5)
  assert.equal(median([]), null)
  const s = summarize([5, 1, 3])
  assert.equal(s.min, 1)
  assert.equal(s.max, 5)
  assert.equal(s.mean, 3)
  assert.equal(s.p50, 3)
  assert.equal(Object.keys(s.percentiles).length, 15)
  assert.equal(s.percentiles['97.5'], s.p97_5)
  const empty = summarize([])
  assert.equal(empty.p50, null)
  assert.equal(empty.mean, null)
  assert.deepEqual(spread([3, null, 1, 2]), { min: 1, median: 2, max: 3 })
})

test('parsing: Server-Timing', () => {
  assert.deepEqual(parseServerTiming('work;dur=12.5, queue;dur=3'), { work: 12.5, queue: 3 })
  assert.deepEqual(parseServerTiming('work;desc="x";dur=1'), { work: 1, queue: null })
  assert.deepEqual(parseServerTiming(undefined), { work: null, queue: null })
})

test('calibration: median, spread, tier shift noticed', () => {
  const flat = summarizeCalibration('loop:1e8', [110, 112, 108, 111])
  assert.equal(flat.calls, 4)
  assert.equal(flat.medianMs, 111, 'the median of the calls after the cold first one')
  assert.equal(flat.firstMs, 110)
  assert.equal(summarizeCalibration('fib:30', [9, 7]).medianMs, 8, 'with two calls, the median of both')
  assert.equal(flat.tierShift, false)
  const shifted = summarizeCalibration('loop:1e8', [110, 385, 380, 390])
  assert.equal(shifted.tierShift, true)
  assert.equal(shifted.maxMs, 390)
  assert.equal(shifted.medianMs, 385, 'the service time is what the later calls take, not an average with the first')
})

// An HDR histogram holding these millisecond values, as the load engines record them.
function hist (values) {
  const h = createHistogram()
  for (const v of values) recordMs(h, v)
  return h
}

function rawRound (over = {}) {
  return {
    fire: {
      sent: 10,
      completed: 10,
      ok: 10,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      mismatches: 0,
      statusCodes: { 200: 10 },
      latency: hist([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      workMs: hist([1, 1]),
      queueMs: hist([0, 2, 2]),
      durationMs: 100,
      mismatchSample: null,
      errorSample: null,
      autocannon: null,
      stopped: false,
      ...over
    },
    probe: { latencies: [1, 2], failed: 0, abandoned: 0 },
    outside: {
      cpuSeconds: 0.2,
      peakRssBytes: 1e8,
      peakProcesses: 1,
      peakThreads: 10,
      samples: [],
      loadGenerator: { cpuSeconds: 0.05, wallSeconds: 1, utilisation: 0.05 }
    },
    recovery: { ms: 3, status: 200 },
    telemetry: { strategy: 'simple', eventLoop: { p50: 1, p99: 9, max: 10 } }
  }
}

const entry = {
  server: 'simple',
  variant: null,
  work: 'loop:1e7',
  args: ['--work', 'loop:1e7'],
  connections: 4,
  amount: 10,
  durationSec: null,
  timeoutSec: 10
}

test('report: one result from a raw run; ideal and efficiency from calibration', () => {
  const r = buildHttpResult(
    { entry, rounds: [rawRound()], failure: null, interrupted: false },
    { calibration: { 'loop:1e7': { medianMs: 10 } }, cores: 2 }
  )
  assert.equal(r.key, 'simple@loop:1e7')
  assert.equal(r.rps, 100)
  assert.equal(r.requests.unanswered, 0)
  assert.deepEqual(r.ideal, { serviceMs: 10, cores: 2, concurrency: 2, rps: 200 })
  assert.equal(r.efficiency, 0.5)
  assert.equal(r.outside.cpuMsPerRequest, 20)
  assert.equal(r.serverTiming.workMs.mean, 1)
  assert.equal(r.serverTiming.queueMs.median, 2)
  assert.equal(r.trusted, true)
  assert.ok(Math.abs(r.latency.p50 - 5) <= 0.005, 'HDR histograms keep 3 significant digits')
  assert.equal(ideal('sleep:100', 10, 2, { 'sleep:100': { medianMs: 100, method: 'declared' } }).concurrency, 10, 'waiting uses no core')
  assert.equal(buildHttpResult({ entry, rounds: [rawRound()] }, { calibration: {} }).efficiency, null)
})

test('report: untrusted reasons, not hidden', () => {
  const bad = roundFigures(rawRound({ completed: 7, ok: 6, non2xx: 1, timeouts: 2, errors: 1, mismatches: 1 }))
  const reasons = untrustedReasons(bad)
  for (const needle of ['1 connection errors', '2 timeouts', '1 non-2xx', '1 body mismatches']) {
    assert.ok(
      reasons.some((x) => x.includes(needle)),
      needle
    )
  }
  const sat = rawRound()
  sat.outside.loadGenerator.utilisation = 0.97
  assert.ok(untrustedReasons(roundFigures(sat)).some((x) => /load generator saturated \(97% CPU\)/.test(x)))
  const probe = rawRound()
  probe.probe.failed = 2
  assert.ok(untrustedReasons(roundFigures(probe)).some((x) => /2 failed \/health probes/.test(x)))
  const r = buildHttpResult({ entry, rounds: [sat] })
  assert.equal(r.trusted, false)
  assert.ok(r.rps > 0, 'figures are still there')
})

test('report: --runs takes the median round by rps and gives the spread', () => {
  const rounds = [rawRound({ durationMs: 200 }), rawRound({ durationMs: 100 }), rawRound({ durationMs: 50 })]
  const r = buildHttpResult({ entry, rounds })
  assert.equal(r.rps, 100)
  assert.equal(r.runs.length, 3)
  assert.deepEqual(r.spread.rps, { min: 50, median: 100, max: 200 })
})

test('report: status complete / failed / partial', () => {
  const ok = buildHttpResult({ entry, rounds: [rawRound()] }, { cores: 2 })
  const failed = buildHttpResult({
    entry,
    rounds: [],
    failure: { reason: 'exited', exitCode: 1, signal: null, stderrTail: ['boom'] }
  }, { cores: 2 })
  assert.equal(failed.status, 'failed')
  assert.equal(failed.trusted, false)
  assert.equal(failed.requests, null)
  const base = { id: 'x', createdAt: 'a', experiment: 'custom', machine: {}, method: {}, calibration: {} }
  assert.equal(buildReport({ ...base, results: [ok] }).status, 'complete')
  assert.equal(buildReport({ ...base, results: [ok, failed] }).status, 'failed')
  assert.equal(buildReport({ ...base, results: [ok], interrupted: true }).status, 'partial')
})

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
  assert.equal(t.rows[0][17], '✓')
  assert.equal(t.rows[1][3], 'FAILED')
  const text = renderText(t)
  assert.equal(text.trim().split('\n').length, 4)
  const md = renderMarkdown(report)
  assert.match(md, /Test CPU, 2 cores \(availableParallelism 2\), 8\.0 GB RAM/)
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

test('write: ids sort by time, files are written atomically and never overwritten', async () => {
  const id = reportId(new Date('2026-11-22T04:31:07.123Z'), 'My Host', 'heavy-cpu')
  assert.equal(id, '2026-11-22T04-31-07Z-my-host-heavy-cpu')
  const out = await tempDir()
  try {
    const first = await freeId(out.dir, id)
    assert.equal(first, id)
    await writeAtomic(join(out.dir, `${first}.json`), '{"a":1}')
    await assert.rejects(writeAtomic(join(out.dir, `${first}.json`), '{"a":2}'), { code: 'EEXIST' })
    assert.equal(await readFile(join(out.dir, `${first}.json`), 'utf8'), '{"a":1}')
    assert.equal(await freeId(out.dir, id), `${id}-2`)
    assert.deepEqual(await readdir(out.dir), [`${id}.json`], 'no temporary file left')
  } finally {
    await out.cleanup()
  }
})

test('report: requests in flight when a --duration round stops are not a fault; beyond one per connection they are', () => {
  const dur = (unanswered) => roundFigures(rawRound({ mode: 'duration', connections: 4, sent: 10 + unanswered }))
  assert.equal(dur(4).requests.unanswered, 4)
  assert.deepEqual(untrustedReasons(dur(4)), [])
  assert.ok(untrustedReasons(dur(5)).some((x) => /5 requests unanswered/.test(x)))
  const amount = roundFigures(rawRound({ sent: 11 }))
  assert.ok(untrustedReasons(amount).some((x) => /1 requests unanswered/.test(x)))
})
