// The open loop: schedules, latency from the due time, a stall a closed loop hides, overload.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { performance } from 'node:perf_hooks'
import { createSchedule } from '../../../../loadtest/run/generate/schedule.js'
import { fireOpenLoop } from '../../../../loadtest/run/generate/open-loop.js'
import { fireRound } from '../../../../loadtest/run/generate/fire.js'
import { bodyReference } from '../../../../loadtest/run/generate/body.js'
import { summarizeHistogram, encodeHistogram, mergeEncoded } from '../../../../loadtest/result/histogram.js'
import { startServer } from '../../../helpers/server.js'
import { FIXTURES, runLab } from '../../../helpers/lab.js'
import { planLab } from '../../../../loadtest/lab.js'
import { parseOptions } from '../../../../loadtest/options.js'

function gaps (schedule) {
  const out = []
  let last = schedule.next()
  for (let t = schedule.next(); t !== null; t = schedule.next()) {
    out.push(t - last)
    last = t
  }
  return out
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
const cv = (xs) => {
  const m = mean(xs)
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) / m
}

test('schedule: constant gaps are 1/R; Poisson gaps have mean 1/R and a coefficient of variation near 1', () => {
  const constant = gaps(createSchedule({ rate: 250, amount: 5000 }))
  assert.equal(constant.length, 4999)
  assert.ok(Math.abs(mean(constant) - 4) / 4 < 0.05)
  assert.ok(
    constant.every((g) => Math.abs(g - 4) < 1e-9),
    'every constant gap is exactly 1/R'
  )
  const poisson = gaps(createSchedule({ rate: 250, arrival: 'poisson', seed: 42, amount: 20000 }))
  assert.ok(Math.abs(mean(poisson) - 4) / 4 < 0.05, `mean gap ${mean(poisson)} ms`)
  assert.ok(Math.abs(cv(poisson) - 1) < 0.05, `coefficient of variation ${cv(poisson)}`)
  assert.deepEqual(
    gaps(createSchedule({ rate: 100, arrival: 'poisson', seed: 7, amount: 50 })),
    gaps(createSchedule({ rate: 100, arrival: 'poisson', seed: 7, amount: 50 })),
    'the same seed gives the same schedule'
  )
  assert.notDeepEqual(
    gaps(createSchedule({ rate: 100, arrival: 'poisson', seed: 7, amount: 50 })),
    gaps(createSchedule({ rate: 100, arrival: 'poisson', seed: 8, amount: 50 }))
  )
  const timed = createSchedule({ rate: 10, durationMs: 1000 })
  let n = 0
  while (timed.next() !== null) n++
  assert.equal(n, 10, 'a 1 s round at 10/s has due times 0, 100, ... 900 ms')
  assert.throws(() => createSchedule({ rate: 0, amount: 1 }), /rate/)
})

test('a stall: the open loop sees it from the due time, a closed loop with one connection hides it', async (t) => {
  const server = await startServer('stalls', [], { entry: join(FIXTURES, 'stalls.js') })
  t.after(() => server.stop())
  const url = `${server.url}/`
  // 2.5 s rounds: the server freezes for 500 ms every 2 s, so each round holds at least one stall.
  const open = await fireOpenLoop({ url, rate: 200, durationSec: 2.5, timeoutSec: 5, expected: '{"sum":4950}' })
  const closed = await fireRound({ url, connections: 1, durationSec: 2.5, timeoutSec: 5, expected: bodyReference('{"sum":4950}') })
  const o = summarizeHistogram(open.latency)
  const c = summarizeHistogram(closed.latency)
  assert.equal(open.sent, 500, 'every due request was sent')
  assert.equal(open.completed, 500)
  assert.equal(open.mismatches + closed.mismatches, 0)
  assert.ok(o.p99 >= 300, `open loop p99 from due time ${o.p99} ms shows the 500 ms stall`)
  // (its stalled requests, one a stall, are under 1 % of what it completes in 2.5 s, so its p99 leaves them out)
  assert.ok(c.p99 < 300, `closed loop p99 ${c.p99} ms of ${closed.completed}: its one connection waits out the stall once`)
  assert.ok(c.max >= 300, `the closed loop did meet the stall (max ${c.max} ms), it just counted it once`)
  const merged = summarizeHistogram(mergeEncoded([encodeHistogram(open.latency), encodeHistogram(open.latency)]))
  assert.equal(merged.count, 2 * o.count, 'encoded histograms merge exactly: counts add')
  assert.equal(merged.p99, o.p99)
})

test('twice the capacity: the backlog is in the latencies, nothing skipped, the counts add up', async (t) => {
  // sleep-sync:10 inline blocks the one event loop 10 ms per request: capacity 100 req/s.
  const server = await startServer('simple', ['--work', 'sleep-sync:10'])
  t.after(() => server.stop())
  const events = []
  const r = await fireOpenLoop({
    url: `${server.url}/`,
    rate: 200,
    amount: 300,
    timeoutSec: 10,
    onResponse: (e) => events.push(e)
  })
  assert.equal(r.sent, 300, 'the schedule is never thinned')
  assert.equal(r.completed + r.timeouts + r.errors, r.sent)
  assert.equal(r.ok, 300)
  assert.equal(r.mismatches, 0)
  assert.equal(events.length, 300)
  // Which requests wait is the server's choice (Node serves its ready connections in no set order: the first
  // third of the round waited longest once, on Node 24). What every order gives: the k-th answer comes no
  // sooner than k × 10 ms (a request holds the loop 10 ms, 1 % spared for the wait's clock), and request i
  // is due at i × 5 ms, so the latencies add up to at least Σ 9.9 k − Σ 5 i; a server keeping up gives ~10 ms.
  const floorMs = (9.9 * (300 * 301) / 2 - 5 * (299 * 300) / 2) / 300
  const all = mean(events.map((e) => e.latencyMs))
  assert.ok(all >= floorMs, `mean latency ${all} ms, at least ${floorMs} ms in any order of service`)
  // Arrivals 5 ms apart, service 10 ms: the server needs 300 × 10 ms, twice the 1.5 s of arrivals, so
  // the round lasts about 3 s and somebody waits about 1.5 s (which request does is the server's choice:
  // Node serves its ready connections in no particular order).
  assert.ok(r.durationMs >= 2900, `the round lasted ${r.durationMs} ms`)
  assert.ok(Math.max(...events.map((e) => e.latencyMs)) > 1200, 'the backlog is in the latencies')
  assert.ok(Math.abs(r.lastDueMs - 299 * 5) < 1e-6, 'due times follow the schedule, not the answers')
})

test('bad --rate, --arrival, --slo and --seed without --rate: exit 2, one line, nothing started', async () => {
  const bad = [
    ['--rate', '0'],
    ['--rate', 'fast'],
    ['--rate', '10', '--arrival', 'bursty'],
    ['--slo', '-5'],
    ['--seed', '3']
  ]
  // the first through the CLI; the others where the CLI meets them (planLab), as the usage errors it prints
  const r = await runLab(['--server', 'simple', ...bad[0]])
  assert.equal(r.exitCode, 2, bad[0].join(' '))
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr, /--rate/)
  for (const args of bad.slice(1)) {
    await assert.rejects(async () => planLab(parseOptions(['--server', 'simple', ...args])), (err) => {
      assert.equal(err.exitCode, 2, `${args.join(' ')}: ${err.message}`)
      assert.equal(err.message.split('\n').length, 1, err.message)
      assert.match(err.message, /--(rate|arrival|slo|seed)/)
      return true
    })
  }
})

// Every due time of a constant schedule at `rate`, in order, for `amount` requests.
const plan = (rate, amount) => Array.from({ length: amount }, (_, i) => (i * 1000) / rate)

test('the response path sends too: at 2000 req/s (gaps of 0.5 ms, under the timer\'s 1 ms) the schedule is kept exactly', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1', '--telemetry', 'off'])
  t.after(() => server.stop())
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-trace-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const round = async (sendOnAnswer) => {
    const events = []
    const trace = join(dir, `trace-${sendOnAnswer}.json`)
    const r = await fireOpenLoop({
      url: `${server.url}/`, rate: 2000, amount: 400, timeoutSec: 5, sendOnAnswer, trace, onResponse: (e) => events.push(e)
    })
    return { r, events, trace: JSON.parse(readFileSync(trace, 'utf8')) }
  }
  const timer = await round(false)
  const both = await round(true)
  // The timer alone wakes at most once a millisecond: it must send some due times two or more at a time.
  assert.equal(timer.r.sentByAnswer, 0)
  assert.ok(timer.trace.summary.largestBatch >= 2, `timer alone: largest batch ${timer.trace.summary.largestBatch}`)
  assert.ok(timer.trace.batches.every((b) => b[2] === 'timer'))
  // An answer that ended with a request due and unsent sends it at once. Whether one did is the machine's (a
  // starved generator whose timer fires first, in each of its slices of CPU, sends all before any answer is
  // read): where one did, the answer path must have sent.
  const found = both.events.filter((a) => both.events.some((x) => x.dueMs <= a.doneMs && x.sentMs > a.doneMs)).length
  if (found > 0) assert.ok(both.r.sentByAnswer > 0, `${found} answers found a request due: the answer path sent it`)
  else t.diagnostic('no answer came with a request due and unsent: the timer sent each first')
  assert.equal(both.trace.summary.sentByAnswer, both.r.sentByAnswer)
  assert.equal(both.trace.summary.sentByAnswer + both.trace.summary.sentByTimer, 400, 'every send is in one batch or the other')
  for (const { r, events } of [timer, both]) {
    assert.deepEqual([r.sent, r.written, r.completed, r.ok, r.mismatches], [400, 400, 400, 400, 0])
    assert.deepEqual(events.map((e) => e.dueMs).sort((a, b) => a - b), plan(2000, 400), 'each due time once, i / rate exactly')
    assert.ok(events.every((e) => e.sentMs >= e.dueMs), 'nothing leaves before it is due')
    assert.equal(summarizeHistogram(r.lag).count, 400)
  }
})

test('connections open before time zero: the server sees them all before the first request arrives', async (t) => {
  const seen = { connections: [], firstRequest: null }
  const server = createServer((req, res) => {
    seen.firstRequest ??= performance.now()
    res.end('ok')
  })
  server.on('connection', () => seen.connections.push(performance.now()))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => new Promise((resolve) => server.close(resolve)))
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-trace-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const trace = join(dir, 'trace.json')
  // 1000 req/s: PREOPEN_MS (50 ms) of the schedule is 50 connections, under the cap of 64.
  const r = await fireOpenLoop({
    url: `http://127.0.0.1:${server.address().port}/`, rate: 1000, amount: 200, connections: 64, timeoutSec: 5, trace
  })
  server.closeAllConnections()
  assert.equal(r.ok, 200)
  assert.equal(r.preopened, 50)
  const { opens, connected, summary } = JSON.parse(readFileSync(trace, 'utf8'))
  assert.equal(connected.length, 50)
  assert.ok(connected.every((at) => at !== null && at < 0), 'all 50 had connected (the handshake done) before due time 0')
  assert.equal(summary.connectedBeforeZero, 50)
  assert.ok(opens.slice(0, 50).every((at) => at < 0), 'and were opened before it')
  assert.ok(opens.length <= 64 && seen.connections.length === opens.length, 'the server saw each connection the client opened')
  assert.ok(seen.firstRequest > r.startedAt, 'no request before due time 0')
})
