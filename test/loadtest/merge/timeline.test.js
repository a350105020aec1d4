// merge/timeline.js mergeTimelines: the shards' timelines as one series on the widest interval.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mergeTimelines } from '../../../loadtest/merge/timeline.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'

const encoded = (values) => {
  const h = createHistogram({ digits: 2 })
  for (const v of values) recordMs(h, v)
  return encodeHistogram(h)
}
const point = (t, completed, extra = {}) =>
  ({ t, sent: completed, completed, ok: completed, non2xx: 0, timeouts: 0, errors: 0, ...extra })

test('mergeTimelines: counts add on the widest interval, each point in the slot its time falls in', () => {
  const a = { intervalMs: 100, endMs: 300, points: [0, 100, 200, 300].map((t) => point(t, 5)) }
  const b = {
    intervalMs: 200, endMs: 400, recoveryEndMs: 600, points: [point(0, 7, { errors: 1 }), point(200, 3), point(400, 2)]
  }
  const m = mergeTimelines([a, null, b, { points: 'none' }])
  assert.equal(m.intervalMs, 200)
  assert.equal(m.endMs, 400, 'the latest shard end')
  assert.equal(m.recoveryEndMs, 600)
  assert.deepEqual(m.points.map((p) => [p.t, p.completed, p.errors, p.phase]), [
    [0, 17, 1, 'round'], // a's 0 and 100, b's 0
    [200, 13, 0, 'round'], // a's 200 and 300, b's 200
    [400, 2, 0, 'recovery']
  ])
  assert.equal(m.points[0].rps, 85, '17 answers in 0.2 s')
  assert.equal(m.points[0].latency, null, 'no shard kept a histogram')
  assert.equal(mergeTimelines([null, { intervalMs: 100 }]), null)
})

test('mergeTimelines: a point\'s latency from the shards\' histograms added; the first server figures kept', () => {
  const a = { intervalMs: 100, points: [point(0, 2, { histogram: encoded([1, 2]), server: { inFlight: 3 } })] }
  const b = { intervalMs: 100, points: [point(0, 2, { histogram: encoded([40, 50]), server: { inFlight: 9 } })] }
  const [p] = mergeTimelines([a, b]).points
  assert.ok(Math.abs(p.latency.max - 50) < 0.5, JSON.stringify(p.latency))
  assert.ok(p.latency.p50 < 3, 'half of the four answers took 2 ms or less')
  assert.deepEqual(p.server, { inFlight: 3 })
  assert.equal(mergeTimelines([a]).endMs, null, 'no shard end: no recovery phase')
})
