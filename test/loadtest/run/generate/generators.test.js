// Generator threads (--generators): one plan split by request index across threads that each keep their
// own connections, merged exactly; and the options that scale the open loop out refused before anything starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fireGenerators } from '../../../../loadtest/run/generate/generators.js'
import { RATE_PER_GENERATOR, defaultGenerators } from '../../../../loadtest/settings.js'
import { createTimeline, totals } from '../../../../loadtest/run/watch/timeline.js'
import { createHistogram, decodeHistogram, summarizeHistogram } from '../../../../loadtest/result/histogram.js'
import { roundFigures } from '../../../../loadtest/result/figures.js'
import { untrustedReasons as reasonsOf } from '../../../../loadtest/result/trust.js'
import { reasonText } from '../../../../loadtest/text/reasons.js'

const untrustedReasons = (fig) => reasonsOf(fig).map(reasonText) // in words
import { bodyReference } from '../../../../loadtest/run/generate/body.js'
import { startServer } from '../../../helpers/server.js'
import { runLab } from '../../../helpers/lab.js'
import { planLab } from '../../../../loadtest/lab.js'
import { parseOptions } from '../../../../loadtest/options.js'

test('--generators 2 against a real server: a constant schedule split by index, counts, histograms and timelines merged exactly', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:100', '--telemetry', 'off'])
  t.after(() => server.stop())
  const timeline = createTimeline({ intervalMs: 100 })
  let ended = 0 // the threads' live progress reports
  const clock = { originEpochMs: performance.timeOrigin + performance.now(), intervalMs: 100 }
  const r = await fireGenerators({
    generators: 2,
    url: `${server.url}/`,
    rate: 400,
    amount: 300,
    timeoutSec: 5,
    connections: 8,
    expected: bodyReference('{"sum":4950}'),
    clock,
    absorb: (dump) => timeline.absorb(dump),
    onEnded: (d) => { ended += d.completed + d.timeouts }
  })
  assert.equal(r.sent, 300, 'every request of the plan was issued')
  assert.deepEqual([r.completed, r.ok, r.mismatches, r.errors, r.timeouts], [300, 300, 0, 0, 0])
  assert.equal(r.generators.length, 2)
  assert.deepEqual(r.generators.map((g) => g.sent), [150, 150], 'request i went to thread i mod 2')
  // Thread k has requests k, k + 2, …: due at k × 2.5 ms, the last at (298 + k) × 2.5 ms.
  assert.deepEqual(r.generators.map((g) => g.firstDueMs), [0, 2.5])
  assert.deepEqual(r.generators.map((g) => g.lastDueMs), [745, 747.5])
  assert.equal(r.connections, 8, 'the cap split between the threads: 4 each')
  assert.deepEqual(r.generators.map((g) => g.connections), [4, 4])
  // The merged latency histogram is the threads' added: every percentile and the count.
  const sum = createHistogram()
  for (const g of r.generators) sum.add(decodeHistogram(g.latency))
  assert.deepEqual(summarizeHistogram(r.latency), summarizeHistogram(sum))
  assert.equal(r.latency.totalCount, 300)
  // The threads' timelines, on the round's clock, add up to the round's counts.
  assert.deepEqual(totals(timeline.series()), { sent: 300, completed: 300, ok: 300, non2xx: 0, timeouts: 0, errors: 0 })
  assert.equal(ended, 300, 'every ended request was reported live, once')
  // Each thread's schedule is judged on its own: 200 req/s each, their slices' own due span.
  const open = roundFigures({ fire: r }).open
  assert.equal(open.scheduledRate, 400)
  assert.deepEqual(open.generators.map((g) => g.scheduledRate), [200, 200])
})

test('the trust rules judge every generator thread: one that did not keep its offered load is enough', () => {
  const lag = { p50: 0.1, p99: 0.5, max: 1 }
  const windows = [{ t: 500, due: 200, sent: 200 }, { t: 1500, due: 200, sent: 200 }]
  const ok = { scheduledRate: 200, sendRate: 200, sendRateError: 0, lag, windows, peakBacklog: 1 }
  const fig = {
    requests: { sent: 2, completed: 2, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
    loop: 'open',
    open: {
      ...ok,
      scheduledRate: 400,
      sendRate: 400,
      windows: windows.map((w) => ({ ...w, due: 400, sent: 400 })),
      generators: [ok, { ...ok, lag: { ...lag, p99: 9 } }]
    }
  }
  assert.deepEqual(untrustedReasons(fig), [], 'a lag alone does not untrust a lab round (it is judged by what it could flip)')
  fig.open.generators[1] = { ...ok, windows: [windows[0], { t: 1500, due: 200, sent: 150 }] }
  assert.match(untrustedReasons(fig).join(), /thread 2\/2 did not keep the offered load: issue rate off the schedule in 1 of 2 1 s windows/)
  // a backlog caught up within its window is the generator's lag: shown, and judged by what it could flip
  fig.open.generators[1] = { ...ok, peakBacklog: 40 }
  assert.deepEqual(untrustedReasons(fig), [])
  // a window short by 8 of 200: beyond 2 % and the 1 request its 0.5 ms lag p99 moves, within the 4 of a 20 ms lag
  const short = [windows[0], { t: 1500, due: 200, sent: 192 }]
  fig.open.generators[1] = { ...ok, windows: short }
  assert.match(untrustedReasons(fig).join(), /thread 2\/2 did not keep the offered load: issue rate off the schedule in 1 of 2/)
  fig.open.generators[1] = { ...ok, windows: short, lag: { ...lag, p99: 20 } }
  assert.deepEqual(untrustedReasons(fig), [], 'a shortfall its lag p99 explains is left to the latency rule')
})

test('bad --generators, --shard and --start-at: exit 2, one line, nothing started', async () => {
  const soon = new Date(Date.now() + 60_000).toISOString()
  const url = ['--url', 'http://127.0.0.1:9/', '--rate', '10']
  for (const [i, [args, what]] of [
    [['--server', 'simple', '--generators', '2'], /--generators goes with --rate/],
    [['--server', 'simple', '--rate', '10', '--generators', '0'], /--generators: expected an integer from 1 to 64/],
    [['--server', 'simple', '--rate', '10', '--generators', 'many'], /--generators/],
    [[...url, '--shard', '3/2', '--start-at', soon], /--shard: expected I\/N/],
    [[...url, '--shard', '0/2', '--start-at', soon], /--shard: expected I\/N/],
    [[...url, '--shard', 'half', '--start-at', soon], /--shard: expected I\/N/],
    [['--server', 'simple', '--rate', '10', '--shard', '1/2', '--start-at', soon], /--shard needs --url/],
    [[...url, '--shard', '1/2'], /--shard needs --start-at/],
    [[...url, '--shard', '1/2', '--start-at', soon, '--runs', '2'], /--shard excludes --runs/],
    [[...url, '--shard', '1/2', '--start-at', 'tomorrow'], /--start-at: expected an ISO time/],
    [[...url, '--shard', '1/2', '--start-at', '2020-01-01T00:00:00Z'], /--start-at: .* in the past/],
    [[...url, '--shard', '1/2', '--start-at', new Date(Date.now() + 2 * 3600_000).toISOString()], /more than 60 minutes ahead/],
    [[...url, '--start-at', soon], /--start-at goes with --shard/]
  ].entries()) {
    // the first through the CLI (exit 2, one line); the others where the CLI meets them (planLab), as the
    // usage errors it prints
    if (i > 0) {
      await assert.rejects(async () => planLab(parseOptions(args)), (err) => {
        assert.equal(err.exitCode, 2, `${args.join(' ')}: ${err.message}`)
        assert.equal(err.message.split('\n').length, 1, err.message)
        assert.match(err.message, what)
        return true
      })
      continue
    }
    const r = await runLab(args)
    assert.equal(r.exitCode, 2, args.join(' '))
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, what)
  }
})

test('the default thread count: one per RATE_PER_GENERATOR requests/s, a core left over, at least one', () => {
  assert.equal(defaultGenerators(100, 2), 1)
  assert.equal(defaultGenerators(RATE_PER_GENERATOR * 3, 2), 1, 'two cores: the server and the lab need one')
  assert.equal(defaultGenerators(RATE_PER_GENERATOR * 3, 8), 3)
  assert.equal(defaultGenerators(RATE_PER_GENERATOR * 20, 8), 7)
  assert.equal(defaultGenerators(RATE_PER_GENERATOR, 1), 1)
})
