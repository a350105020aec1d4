// Full `npm run lab -- --server X` runs on a small load: the report's counts add up, every body was
// verified, machine, ruler and method are filled, and no process of the server is left.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { execa } from 'execa'
import pWaitFor from 'p-wait-for'
import { runLab, readReport, tempDir, accounted, alive, labReport, ROOT } from '../helpers/lab.js'
import { RULER_FIGURES, rulerFault } from '../../loadtest/result/ruler.js'

// The suite's runs read no ruler (test/run.js sets LOADLAB_RULER=off); these runs are the ones that do.
const RULER_ON = { env: { LOADLAB_RULER: '' } }

const LOAD = ['--connections', '4', '--amount', '40', '--warmup', '8', '--work', 'loop:1e5']
const SERVERS = ['simple', 'cluster', 'queued-threads']

// One lab run of the three servers, read by each server's test.
let out, r
before(async () => {
  out = await tempDir()
  r = await runLab(['--server', SERVERS.join(','), ...LOAD, '--out', out.dir, '--label', 'test run'], RULER_ON)
}, { timeout: 180000 })
after(() => out?.cleanup())

for (const [i, server] of SERVERS.entries()) {
  test(`lab run on ${server}: report written, counts add up, bodies verified`, async () => {
    assert.equal(r.exitCode, 0, r.stderr)
    const { json, md, files } = await readReport(out.dir)
    assert.equal(files.length, 3, `json, md and html: ${files}`)
    assert.equal(json.schema, 1)
    assert.equal(json.kind, 'loadlab-report')
    assert.equal(json.status, 'complete')
    assert.equal(json.experiment, 'custom')
    assert.equal(json.label, 'test run')
    assert.ok(json.id && files.includes(`${json.id}.json`))

    const m = json.machine
    for (const k of [
      'hostname',
      'cpuModel',
      'cores',
      'availableParallelism',
      'memoryBytes',
      'os',
      'arch',
      'node',
      'v8',
      'loadavg'
    ]) { assert.ok(m[k] !== null && m[k] !== undefined, `machine.${k}`) }
    for (const k of ['fastify', 'piscina', 'autocannon', 'react']) assert.match(m.versions[k], /^\d+\.\d+\.\d+/)
    // the machine read before the first server started and after the last stopped (rules, not figures)
    assert.equal(rulerFault(json.ruler), null, JSON.stringify(json.ruler))
    assert.ok(json.createdAt <= json.ruler.start.at && json.ruler.start.at < json.ruler.end.at)
    assert.ok(json.ruler.end.at <= json.finishedAt)
    assert.deepEqual(json.ruler.drift.map((d) => d.figure), RULER_FIGURES)
    assert.equal(json.ruler.moved, json.ruler.drift.some((d) => d.beyond))
    assert.equal(json.ruler.start.cores.offered, m.availableParallelism)
    assert.match(md, /\*\*Ruler:\*\* \d+ cores offered, [\d.]+ given · loop/)
    assert.equal(json.method.tool, 'autocannon')
    assert.equal(json.method.connections, 4)
    assert.equal(json.method.amount, 40)
    assert.equal(json.method.durationSec, null)
    assert.deepEqual(json.method.warmup, { amount: 8 })
    assert.match(json.method.command, new RegExp(`--server ${SERVERS.join(',')}`))
    assert.equal(json.method.outsideSampling, true)

    const cal = json.calibration['loop:1e5']
    assert.ok(cal.calls >= 2 && cal.medianMs > 0 && cal.minMs <= cal.medianMs && cal.medianMs <= cal.maxMs)
    assert.equal(typeof cal.tierShift, 'boolean')

    assert.deepEqual(json.results.map((x) => x.server), SERVERS)
    const res = json.results[i]
    assert.equal(res.kind, 'http')
    assert.equal(res.server, server)
    assert.equal(res.status, 'ok', JSON.stringify(res.failure))
    assert.equal(res.key, `${server}@loop:1e5`)
    assert.equal(res.requests.sent, 40)
    assert.equal(accounted(res.requests), res.requests.sent, JSON.stringify(res.requests))
    assert.equal(res.requests.completed, 40)
    assert.equal(res.requests.unanswered, 0)
    assert.equal(res.requests.ok + res.requests.non2xx, res.requests.completed)
    assert.equal(res.requests.mismatches, 0)
    assert.equal(res.trusted, res.untrusted.length === 0)
    assert.ok(res.rps > 0 && res.durationMs > 0)
    assert.ok(
      Math.abs(res.rps / ((res.requests.completed / res.durationMs) * 1000) - 1) < 1e-4,
      'rps = completed / own-timed duration'
    )
    assert.ok(
      res.latency.min <= res.latency.p50 && res.latency.p50 <= res.latency.p99 && res.latency.p99 <= res.latency.max
    )
    assert.equal(res.serverTiming.count, 40, 'every response carried Server-Timing')
    assert.ok(res.probe.count + res.probe.abandoned >= 1, 'the /health probe ran during the round')
    assert.equal(res.recovery.status, 200)
    assert.equal(res.telemetry.strategy, server)
    assert.ok(
      res.outside.cpuSeconds >= 0 &&
        res.outside.peakRssBytes > 0 &&
        res.outside.peakProcesses >= 1 &&
        res.outside.peakThreads >= 1
    )
    if (server === 'cluster') assert.ok(res.outside.peakProcesses >= 2, 'a cluster has a primary and workers')
    assert.equal(typeof res.outside.loadGenerator.saturated, 'boolean')
    assert.ok(res.ideal.rps > 0 && res.efficiency > 0)
    assert.deepEqual(res.stop.leftovers, [])
    assert.equal(res.stop.exitCode, 0)

    assert.match(md, /## Machine/)
    assert.match(md, /\*\*Command:\*\* `node loadtest\/cli.js --server/)
    assert.match(md, new RegExp(`\\| ${server} \\| loop:1e5 \\|`))
    assert.match(r.stderr, new RegExp(`^${server} +loop:1e5`, 'm'), 'the table is printed on stderr')
    assert.equal(r.stdout, '', 'nothing on stdout without --json')
  })
}

// One CLI run for --url, --runs, --json and --no-ruler (the ruler is on in its environment).
test(
  '--url loads a server started by hand: no outside sampling, said so; --runs 2 gives runs and spread; --json prints ' +
    'the report on stdout, the same as the file; --no-ruler leaves the ruler out',
  { timeout: 180000 },
  async () => {
    const out = await tempDir()
    const server = execa(
      process.execPath,
      [join(ROOT, 'servers', 'simple', 'index.js'), '--port', '0', '--work', 'fib:15'],
      { env: { ...process.env }, ipc: true, buffer: false, reject: false, stdin: 'ignore' }
    )
    try {
      let line = ''
      server.stdout.setEncoding('utf8')
      server.stdout.on('data', (c) => {
        line += c
      })
      await pWaitFor(() => /listening on (http:\S+)/.test(line) || server.exitCode !== null, {
        interval: 20,
        timeout: 30000
      })
      const url = /listening on (http:\S+)/.exec(line)[1]
      const r = await runLab([
        '--url',
        url,
        '--work',
        'fib:15',
        '--connections',
        '2',
        '--amount',
        '20',
        '--warmup',
        '0',
        '--runs',
        '2',
        '--json',
        '--no-ruler',
        '--out',
        out.dir
      ], RULER_ON)
      assert.equal(r.exitCode, 0, r.stderr)
      const { json, md, files } = await readReport(out.dir)
      assert.deepEqual(JSON.parse(r.stdout), json)
      assert.equal(json.ruler, undefined, '--no-ruler: no ruler')
      assert.doesNotMatch(md, /Ruler/)
      assert.equal(json.method.warmup, null)
      assert.equal(files.length, 3)
      assert.equal(json.method.url, `${url}/`)
      assert.equal(json.method.outsideSampling, false)
      assert.ok(json.notes.some((n) => /outside sampling skipped: --url/.test(n)))
      const res = json.results[0]
      assert.equal(res.server, 'simple', 'named by the strategy /health reports')
      assert.equal(res.key, 'simple@fib:15')
      assert.equal(res.outside, null)
      assert.equal(res.stop, null)
      assert.equal(res.requests.mismatches, 0)
      assert.equal(res.telemetry.strategy, 'simple')
      assert.equal(res.runs.length, 2)
      for (const run of res.runs) assert.equal(run.requests.completed, 20)
      assert.ok(res.spread.rps.min <= res.spread.rps.median && res.spread.rps.median <= res.spread.rps.max)
      assert.ok(
        res.runs.some((run) => run.rps === res.rps),
        'figures are one of the rounds'
      )
      assert.equal(alive(server.pid), true, 'the lab leaves a server it did not start alone')
    } finally {
      server.kill('SIGTERM')
      await server
      await out.cleanup()
    }
  }
)

test('lab: bodies over --max-body are said in the result and its notes, still verified whole (item 4)', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  process.env.LOADLAB_FIXTURE_BODY_BYTES = '5000'
  t.after(() => delete process.env.LOADLAB_FIXTURE_BODY_BYTES)
  const { json } = await labReport([
    '--server', 'big-body', '--amount', '4', '--connections', '1', '--warmup', '0', '--max-body', '1000', '--out', dir
  ], { html: false })
  const [r] = json.results
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.requests.mismatches, 0)
  assert.deepEqual(r.bodies, { maxBytes: 1000, overCap: 4, largestBytes: 5000 })
  assert.equal(json.method.maxBody, 1000)
  assert.ok(r.notes.some((n) => n.includes('over --max-body 1000 B')), r.notes.join('; '))
})
