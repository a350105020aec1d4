// result/offered.js: the open loop's two-part verdict, on synthetic timelines.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OFFERED_RULE, lagShare, offeredLoad, previousRule, windowErrors } from '../../../loadtest/result/offered.js'

// Windows of `ms` from `startMs` counting due and issue times, as the open loop counts them.
function windowsOf (dues, issues, { startMs = 0, ms = 1000 } = {}) {
  const count = (times) => {
    const out = []
    for (const t of times) {
      if (t < startMs) continue
      const k = Math.floor((t - startMs) / ms)
      while (out.length <= k) out.push(0)
      out[k]++
    }
    return out
  }
  return { due: count(dues), issued: count(issues) }
}

// A constant schedule of `rate` for `sec`, and issue times = due + lag(due).
function timeline (rate, sec, lag = () => 0.2) {
  const dues = Array.from({ length: rate * sec }, (_, i) => (i * 1000) / rate)
  return { dues, issues: dues.map((d) => d + lag(d)) }
}

const judged = (rate, { dues, issues }, extra = {}) => offeredLoad({
  windows: windowsOf(dues, issues),
  rate,
  peakBacklog: 1,
  lagJudged: { p99: 0.5 },
  ...extra
})

test('offered load: a steady timeline is kept, every window within 2 %', () => {
  const v = judged(10_000, timeline(10_000, 3))
  assert.equal(v.kept, true, v.reasons.join('; '))
  assert.equal(windowErrors(windowsOf(...Object.values(timeline(10_000, 3)))).length, 3)
  assert.ok(Math.abs(v.worstWindow.error) < 0.001)
})

test('offered load: a 50 ms stall across a window boundary moves 5 % of a window and fails; inside one, it does not', () => {
  // requests due in [960, 1010) ms all go out at 1010 ms: 40 ms of window 1 land in window 2
  const across = timeline(10_000, 3, (d) => (d >= 960 && d < 1010 ? 1010 - d : 0.2))
  const v = judged(10_000, across, { peakBacklog: 500 })
  assert.equal(v.kept, false)
  assert.match(v.reasons.join('; '), /window 1: issued 9600 of 10000 due \(-4\.0 %\)/)
  assert.match(v.reasons.join('; '), /window 2: issued 1039\d of 10000 due \(4\.0 %\)/)
  assert.match(v.reasons.join('; '), /unsent backlog 500 requests \(49\.9 ms of the schedule\) > 20 ms/)
  // The same stall inside a window keeps every window's count; its backlog (50 ms) still fails it.
  const inside = timeline(10_000, 3, (d) => (d >= 400 && d < 450 ? 450 - d : 0.2))
  const w = judged(10_000, inside, { peakBacklog: 500 })
  assert.deepEqual(w.reasons.filter((r) => r.startsWith('window')), [])
  assert.equal(w.kept, false)
  assert.equal(judged(10_000, inside, { peakBacklog: 150 }).kept, true, 'a 15 ms backlog is within 20 ms')
})

test('offered load: a generator 3 % slow throughout fails every window; 1 % slow passes', () => {
  const slow = (f) => {
    const t = timeline(5000, 3)
    return { dues: t.dues, issues: t.dues.map((d) => d * f) }
  }
  const v = judged(5000, slow(1.03))
  assert.equal(v.kept, false)
  assert.ok(v.reasons.length >= 2, v.reasons.join('; '))
  assert.equal(judged(5000, slow(1.005)).kept, true)
})

test('offered load: at low rates one request across a boundary is within the slack; the lag limit holds after the warm-up', () => {
  const t = timeline(10, 3, () => 0.3)
  t.issues[9] = 1000.5 // due 900 ms, issued just past the boundary
  t.issues[19] = 2000.5
  const v = judged(10, t)
  assert.equal(v.kept, true, v.reasons.join('; '))
  const lagged = judged(10_000, timeline(10_000, 2), { lagJudged: { p99: 7.2 } })
  assert.deepEqual(lagged.reasons, [`scheduler lag p99 7.2 ms after the warm-up > ${OFFERED_RULE.lagLimitMs} ms`])
})

test('previous rule and latency accuracy: the whole round\'s lag p99; the lag\'s share of each percentile', () => {
  assert.equal(previousRule({ lag: { p99: 5.45 }, sendRateError: 0.0004 }).kept, false)
  assert.equal(previousRule({ lag: { p99: 2 }, sendRateError: -0.03 }).kept, false)
  assert.equal(previousRule({ lag: { p99: 2 }, sendRateError: 0.01 }).kept, true)
  const share = lagShare({ p50: 1, p99: 10, p99_9: 20 }, { p50: 0.1, p99: 5, p99_9: 40 })
  assert.deepEqual(share.p50, { latencyMs: 1, lagMs: 0.1, share: 0.1 })
  assert.equal(share.p99.share, 0.5)
  assert.equal(share.p99_9.share, 1, 'capped at the whole percentile')
  assert.equal(share.p97_5, undefined, 'absent percentiles are left out')
})
