// Servers that fail: one exits at start, one never becomes healthy, one crashes mid-run. Each is
// reported failed with its exit code and stderr tail, the lab goes on and exits non-zero. Bad
// options exit 2 before any server starts. Timeouts make a result untrusted, not hidden.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { runLab, readReport, tempDir, accounted } from '../helpers/lab.js'
import { planLab } from '../../loadtest/lab.js'
import { parseOptions } from '../../loadtest/options.js'

// The small load each run here puts on its servers: 40 requests of a trivial work on 2 connections.
const LOAD = ['--connections', '2', '--amount', '40', '--warmup', '0', '--work', 'loop:1e2']

test(
  'failed servers are recorded with exit code and stderr tail; the lab goes on and exits 1',
  { timeout: 120000 },
  async () => {
    const out = await tempDir()
    try {
      const r = await runLab(
        ['--server', 'exits-at-start,crash-mid-run,simple', ...LOAD, '--out', out.dir],
        { env: { LOADLAB_FIXTURE_CRASH_AFTER: '15' } }
      )
      assert.equal(r.exitCode, 1, r.stderr)
      const { json, md, files } = await readReport(out.dir)
      assert.equal(files.length, 3, `json, md and html: ${files}`)
      assert.equal(json.status, 'failed')
      assert.deepEqual(
        json.results.map((x) => x.server),
        ['exits-at-start', 'crash-mid-run', 'simple']
      )
      const [atStart, crashed, simple] = json.results

      assert.equal(atStart.status, 'failed')
      assert.equal(atStart.failure.exitCode, 3)
      assert.match(atStart.failure.reason, /exited before it was ready/)
      assert.ok(
        atStart.failure.stderrTail.some((l) => l.includes('configuration is broken on purpose')),
        atStart.failure.stderrTail.join('\n')
      )
      assert.equal(atStart.trusted, false)

      assert.equal(crashed.status, 'failed')
      assert.match(crashed.failure.reason, /exited during the run/)
      assert.equal(crashed.failure.exitCode, 7)
      assert.ok(crashed.failure.stderrTail.some((l) => l.includes('crashing on purpose')))
      assert.equal(crashed.trusted, false)
      assert.ok(crashed.requests.completed >= 15 && crashed.requests.completed < 40, JSON.stringify(crashed.requests))
      assert.equal(accounted(crashed.requests), crashed.requests.sent)

      assert.equal(simple.status, 'ok', JSON.stringify(simple.failure))
      assert.equal(simple.requests.completed, 40)
      assert.equal(simple.requests.mismatches, 0)

      assert.match(md, /### Failure: `crash-mid-run@loop:1e2`/)
      assert.match(md, /crashing on purpose/)
      assert.match(r.stderr, /FAILED|✗/)
      assert.doesNotMatch(r.stderr, /HTML report not written/)
    } finally {
      await out.cleanup()
    }
  }
)

// One run read by two tests: a server that never becomes healthy, then wrong-body (every body verified).
let neverHealthyRun = null
let neverHealthyOut = null
after(() => neverHealthyOut?.cleanup())
function neverHealthyThenWrongBody () {
  neverHealthyRun ??= (async () => {
    const out = neverHealthyOut = await tempDir()
    const r = await runLab(
      ['--server', 'never-healthy,wrong-body', ...LOAD, '--out', out.dir],
      { env: { LOADLAB_BOOT_TIMEOUT_MS: '2000' } }
    )
    return { r, ...(await readReport(out.dir)) }
  })()
  return neverHealthyRun
}

test(
  'a server that never becomes healthy fails after the boot timeout; the next server still runs',
  { timeout: 120000 },
  async () => {
    const { r, json } = await neverHealthyThenWrongBody()
    assert.equal(r.exitCode, 1, r.stderr)
    const [unhealthy, next] = json.results
    assert.equal(unhealthy.status, 'failed')
    assert.match(unhealthy.failure.reason, /\/health did not answer 200 within 2000 ms/)
    assert.ok(unhealthy.failure.stderrTail.some((l) => l.includes('still warming up')))
    assert.ok(unhealthy.failure.exitCode !== null || unhealthy.failure.signal !== null, 'how it ended is recorded')
    assert.equal(next.server, 'wrong-body')
    assert.equal(next.status, 'ok')
    assert.equal(next.requests.completed, 40)
  }
)

// CLI: through the CLI (exit 2, one line on stderr, nothing on stdout, no server started, no report), one of
// each kind: a value out of range, a name not in the catalog, an option parseArgs does not know; the others
// where the CLI meets them, as the usage errors (exit 2) it prints.
const CLI = 'cli'
const BAD = [
  [['--connections', '0'], /--connections: expected an integer from 1 to 10000, got `0`/, CLI],
  [['--connections', 'many'], /--connections/],
  [['--amount', '10', '--duration', '5'], /--amount and --duration exclude each other/],
  [['--server', 'nope'], /--server: unknown server `nope`; allowed: all, simple/, CLI],
  [['--experiment', 'nope'], /--experiment: unknown experiment `nope`; allowed: .*tour/],
  [['--timeout', '-1'], /--timeout/],
  [['--runs', '1.5'], /--runs/],
  [['--work', 'nope:1'], /--work: bad work spec/],
  [['--work', 'loop:1e99'], /--work: bad work spec/],
  [['--url', 'ftp://x'], /--url/],
  [['--bogus'], /Unknown option '--bogus'/, CLI],
  [['--connections', '8', '--amount', '4'], /--amount: must be at least --connections/],
  [['--json', 'yes'], /Unexpected argument|positional/i]
]

test('bad options exit 2 with one line naming the option, before any server starts', { timeout: 120000 }, async () => {
  const out = await tempDir()
  const starts = join(out.dir, 'starts.txt')
  try {
    for (const [args, message, via] of BAD) {
      const server = args.includes('--server') ? [] : ['--server', 'records-start'] // an option is given once
      if (via !== CLI) {
        // planLab starts nothing: a catalog server stands in for the fixture
        const named = server.map((s) => (s === 'records-start' ? 'simple' : s))
        const opts = () => parseOptions([...named, '--out', join(out.dir, 'reports'), ...args])
        await assert.rejects(async () => planLab(opts()), (err) => {
          assert.equal(err.exitCode, 2, `${args.join(' ')}: ${err.message}`)
          assert.match(err.message, message)
          assert.equal(err.message.split('\n').length, 1, `one line: ${err.message}`)
          return true
        })
        continue
      }
      const r = await runLab([...server, '--out', join(out.dir, 'reports'), ...args], {
        env: { LOADLAB_FIXTURE_STARTS: starts }
      })
      assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, message)
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`)
      assert.equal(r.stdout, '')
    }
    assert.equal(existsSync(starts), false, 'no server was started')
    assert.deepEqual(await readdir(out.dir), [], 'no report written')
  } finally {
    await out.cleanup()
  }
})

test('--help and --list exit 0 without starting anything', { timeout: 30000 }, async () => {
  const help = await runLab(['--help'])
  assert.equal(help.exitCode, 0)
  for (const opt of [
    '--server',
    '--experiment',
    '--connections',
    '--amount',
    '--duration',
    '--timeout',
    '--work',
    '--runs',
    '--warmup',
    '--url',
    '--out',
    '--label',
    '--json',
    '--list',
    '--quick'
  ]) {
    assert.ok(help.stdout.includes(opt), opt)
  }
  const list = await runLab(['--list'])
  assert.equal(list.exitCode, 0)
  assert.match(list.stdout, /simple/)
  assert.match(list.stdout, /queued-threads/)
  assert.match(list.stdout, /tour/)
})

test('timeouts make a result untrusted, not hidden', { timeout: 60000 }, async (t) => {
  const out = await tempDir()
  t.after(() => out.cleanup())
  const r = await runLab([
    '--server',
    'simple',
    '--work',
    'sleep:1500',
    '--timeout',
    '1',
    '--connections',
    '2',
    '--amount',
    '4',
    '--warmup',
    '0',
    '--out',
    out.dir
  ])
  assert.equal(r.exitCode, 0, 'untrusted is not failed')
  const { json, md } = await readReport(out.dir)
  const res = json.results[0]
  assert.equal(res.status, 'ok')
  assert.equal(res.trusted, false)
  assert.ok(res.requests.timeouts >= 1)
  assert.ok(
    res.untrusted.some((u) => /timeouts/.test(u)),
    res.untrusted.join('; ')
  )
  assert.equal(res.latency.censored, res.requests.timeouts, 'timed-out requests are in the latencies')
  assert.ok(
    res.latency.max >= 1000,
    'at least the 1 s timeout: a timed-out request is not left out of the percentiles'
  )
  assert.equal(accounted(res.requests), res.requests.sent)
  assert.match(md, /Not to be taken at face value/)
  assert.match(r.stderr, /simple .* !$/m)
})

test(
  'every body is verified: wrong bodies are counted as mismatches and the run is untrusted',
  { timeout: 120000 },
  async () => {
    const res = (await neverHealthyThenWrongBody()).json.results[1]
    assert.equal(res.server, 'wrong-body')
    assert.equal(res.requests.completed, 40)
    assert.equal(res.requests.ok, 40)
    assert.equal(res.requests.mismatches, 10, 'one in four bodies was wrong')
    assert.equal(res.trusted, false)
    assert.ok(res.untrusted.includes('10 body mismatches'), res.untrusted.join('; '))
    assert.equal(res.telemetry, null, 'no /__lab/stats on this server')
    assert.ok(
      res.notes.some((n) => /no telemetry: POST \/__lab\/stats\/reset answered 404/.test(n)),
      res.notes.join('; ')
    )
  }
)
