// result/stats.js: percentiles, median, summaries, spread.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { percentile, median, summarize, spread } from '../../../loadtest/result/stats.js'

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
