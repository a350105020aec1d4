// The engine-independent timeline (loadtest/run/watch/timeline.js): interval choice, bucketing, bounded
// memory (buckets merge, counts and histograms add), marks, and the page's spec rows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chooseInterval, createTimeline, MAX_BUCKETS, totals } from '../../../../loadtest/run/watch/timeline.js'
import { timelineRows, timelineSpec, timelineMarks } from '../../../../loadtest/report/timeline-chart.js'
import { formatRoundProgress } from '../../../../loadtest/progress.js'

test('the interval gives a round of known length 20 to 400 points', () => {
  for (const sec of [2, 5, 20, 60, 300, 3600]) {
    const i = chooseInterval(sec * 1000)
    const points = (sec * 1000) / i
    assert.ok(points <= 400 && (points >= 20 || i === 100), `${sec} s → ${i} ms, ${points} points`)
  }
  assert.equal(chooseInterval(null), 100)
})

test('requests land in the interval of their time, and the counts add up', () => {
  const tl = createTimeline({ intervalMs: 100 })
  tl.sent(0)
  tl.sent(50)
  tl.sent(150)
  tl.sent(250)
  tl.record(40, { latencyMs: 40, status: 200 })
  tl.record(120, { latencyMs: 70, status: 500 })
  tl.record(260, { latencyMs: 1000, timeout: true })
  tl.record(299, { error: true })
  tl.end(200) // an interval is in the recovery period when it starts at or after the end
  const s = tl.series()
  assert.equal(s.points.length, 3)
  assert.deepEqual(
    s.points.map((p) => [p.sent, p.completed, p.ok, p.non2xx, p.timeouts, p.errors]),
    [
      [2, 1, 1, 0, 0, 0],
      [1, 1, 0, 1, 0, 0],
      [1, 0, 0, 0, 1, 1]
    ]
  )
  assert.equal(s.points[0].rps, 10)
  assert.ok(Math.abs(s.points[1].latency.max - 70) < 1)
  assert.ok(s.points[2].latency.p99 >= 990, 'a timeout enters the latencies at the timeout')
  assert.equal(s.points[2].phase, 'recovery')
  assert.deepEqual(totals(s), { sent: 4, completed: 2, ok: 1, non2xx: 1, timeouts: 1, errors: 1 })
})

test('a long round stays within MAX_BUCKETS: buckets merge, counts and latencies add exactly', () => {
  const tl = createTimeline({ intervalMs: 100 })
  const hourMs = 3600 * 1000
  let n = 0
  for (let t = 0; t < hourMs; t += 250) {
    tl.sent(t)
    tl.record(t + 5, { latencyMs: t === 1_800_000 ? 9000 : 5, status: 200 })
    n++
  }
  tl.gauge(10, 'server', { inFlight: 3, elu: 0.5 })
  tl.gauge(110, 'server', { inFlight: 1, elu: 0.25 })
  const s = tl.series()
  assert.ok(s.points.length <= MAX_BUCKETS && s.points.length > MAX_BUCKETS / 2, `${s.points.length} points`)
  assert.ok(s.intervalMs > 100 && s.intervalMs % 100 === 0)
  assert.deepEqual(totals(s), { sent: n, completed: n, ok: n, non2xx: 0, timeouts: 0, errors: 0 })
  const slow = s.points.find((p) => p.latency?.max > 8000)
  assert.equal(slow.t, Math.floor(1_800_005 / s.intervalMs) * s.intervalMs, 'the slow answer is in its interval')
  assert.equal(s.points[0].server.inFlight, 3, 'in flight: the max of the merged samples')
  assert.equal(s.points[0].server.elu, 0.25, 'utilisation: the last sample')
})

test('timeline rows and spec: panels on one axis, the end of the round and the recovery marked', () => {
  const tl = createTimeline({ intervalMs: 100 })
  for (let t = 0; t < 1000; t += 10) {
    tl.sent(t)
    tl.record(t + 3, { latencyMs: 3, status: 200 })
  }
  tl.gauge(500, 'outside', { cpuPercent: 90, rssBytes: 50e6, processes: 1, threads: 7 })
  tl.gauge(500, 'server', { inFlight: 2, queueLength: 1, eventLoopMaxMs: 4, elu: 0.9 })
  tl.end(1000)
  tl.recovered(1500)
  const s = tl.series()
  const rows = timelineRows(s)
  assert.deepEqual(
    [...new Set(rows.map((r) => r.panel))],
    ['throughput', 'latency', 'queue', 'loop', 'cpu', 'rss', 'tree']
  )
  const spec = timelineSpec(rows, [timelineMarks(s)])
  assert.equal(spec.vconcat.length, 7)
  const top = JSON.stringify(spec.vconcat[0])
  assert.match(top, /end of round/)
  assert.match(top, /recovery/)
  assert.deepEqual(timelineMarks(s), { series: 'this run', endS: 1, recoveryEndS: 1.5 })
})

test('the live progress line', () => {
  const line = formatRoundProgress({
    type: 'round',
    elapsedMs: 1500,
    plannedMs: 20000,
    amount: null,
    completed: 42,
    rps: 28,
    p99: 1234,
    timeouts: 1
  })
  assert.equal(line, '1.5s/20.0s · 42 done · 28 req/s · p99 1.23 s · 1 timeouts')
  assert.match(
    formatRoundProgress({ elapsedMs: 100, plannedMs: null, amount: 50, completed: 3, rps: 30, p99: null, timeouts: 0 }),
    /3\/50 done .* p99 -/
  )
})
