// The open loop's own issue windows (result/figures.js generatorWindows) judged by trust.js's
// offered-load rule, on synthetic timelines; and latency accuracy (the lag's share of each percentile).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generatorWindows, lagShare } from '../../../loadtest/result/figures.js'
import { offeredLoadKept } from '../../../loadtest/result/trust.js'
import { reasonText } from '../../../loadtest/text/reasons.js'

// The windows the generator counts (run/generate/open-loop.js): due and issue times in 1 s windows from `startMs`.
function counted (dues, issues, startMs = 0) {
  const count = (times) => {
    const out = []
    for (const t of times) {
      if (t < startMs) continue
      const k = Math.floor((t - startMs) / 1000)
      while (out.length <= k) out.push(0)
      out[k]++
    }
    return out
  }
  return { startMs, ms: 1000, due: count(dues), issued: count(issues) }
}

// A constant schedule of `rate` for `sec`, issued at due + lag(due).
function timeline (rate, sec, lag = () => 0.2) {
  const dues = Array.from({ length: rate * sec }, (_, i) => (i * 1000) / rate)
  return { dues, issues: dues.map((d) => d + lag(d)) }
}

const judge = (rate, { dues, issues }, figures = {}) =>
  offeredLoadKept(generatorWindows(counted(dues, issues)), figures).map(reasonText) // in words, as a report says it

test('generator windows: a steady timeline is kept; the last requests, late past the last window, count in it', () => {
  const t = timeline(10_000, 3)
  const w = generatorWindows(counted(t.dues, t.issues))
  assert.deepEqual(w.map((x) => x.t), [0, 1000, 2000], 'no fourth window for the two requests issued at 3000.1 ms')
  assert.deepEqual(w.map((x) => x.due), [10_000, 10_000, 10_000])
  assert.deepEqual(w.map((x) => x.sent), [9998, 10_000, 10_002], 'each window gives its last 0.2 ms to the next; the last keeps them')
  assert.deepEqual(judge(10_000, t), [])
  assert.deepEqual(generatorWindows(counted(t.dues, t.issues, 500)).map((x) => x.t), [500, 1500, 2500], 'from the warm-up\'s end')
})

test('generator windows: a 50 ms stall across a window edge moves 4 % of a window and fails; inside one, only its backlog counts', () => {
  const across = timeline(10_000, 3, (d) => (d >= 960 && d < 1010 ? 1010 - d : 0.2))
  const why = judge(10_000, across)
  assert.equal(why.length, 2, why.join('; '))
  assert.match(why[0], /issue rate off the schedule in 2 of 3 1 s windows \(worst 9600 sent for 10000 due at 0 s\)/)
  assert.match(why[1], /unsent backlog reached 400 requests \(bound 200\)/)
  const inside = timeline(10_000, 3, (d) => (d >= 400 && d < 450 ? 450 - d : 0.2))
  assert.deepEqual(judge(10_000, inside), [], 'window counts and window-end backlogs are all kept')
  assert.deepEqual(judge(10_000, inside, { peakBacklog: 501 }), ['unsent backlog reached 500 requests at one wake-up (bound 200)'],
    'the generator\'s own count of its backlog at a wake-up sees the stall')
  assert.deepEqual(judge(10_000, inside, { peakBacklog: 150 }), [], 'a 15 ms backlog is within 2 % of a window')
})

test('generator windows: 3 % slow throughout fails; 0.5 % slow passes; at 10 req/s one request past an edge is within the slack', () => {
  const slow = (f) => {
    const t = timeline(5000, 3)
    return { dues: t.dues, issues: t.dues.map((d) => d * f) }
  }
  assert.equal(judge(5000, slow(1.03)).length >= 1, true)
  assert.deepEqual(judge(5000, slow(1.005)), [])
  const low = timeline(10, 3, () => 0.3)
  low.issues[9] = 1000.5
  low.issues[19] = 2000.5
  assert.deepEqual(judge(10, low), [])
})

test('latency accuracy: the lag beside each percentile and its share, capped at the whole', () => {
  const share = lagShare({ p50: 1, p99: 10, p99_9: 20 }, { p50: 0.1, p99: 5, p99_9: 40 })
  assert.deepEqual(share.p50, { latencyMs: 1, lagMs: 0.1, share: 0.1 })
  assert.equal(share.p99.share, 0.5)
  assert.equal(share.p99_9.share, 1)
  assert.deepEqual(Object.keys(lagShare({ p50: 1 }, { p50: 1 })), ['p50'], 'absent percentiles are left out')
})
