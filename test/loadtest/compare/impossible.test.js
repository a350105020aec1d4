// compare/impossible.js withoutImpossible: a figure no measurement gives is nulled, named, and the rest
// of the result is left as it was (a copy: the report read is not changed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { withoutImpossible } from '../../../loadtest/compare/impossible.js'

test('withoutImpossible: negative and past-the-limit figures are nulled and named; measured ones stay', () => {
  const r = {
    key: 'simple@loop:1e5',
    rps: 1e308,
    efficiency: 0.9,
    latency: { p50: 3, p99: -3, percentiles: { 99: 2e9 } },
    capacity: { sloMs: 100, capacity: { rps: 55, bound: 'refined' } },
    requests: { errors: 2, timeouts: -1 }
  }
  const frozen = structuredClone(r)
  const out = withoutImpossible(r)
  assert.deepEqual(r, frozen, 'the result read is not changed')
  assert.equal(out.rps, null)
  assert.equal(out.latency.p99, null)
  assert.equal(out.latency.percentiles[99], null)
  assert.equal(out.requests.timeouts, null)
  assert.deepEqual([out.latency.p50, out.efficiency, out.capacity.capacity.rps, out.requests.errors], [3, 0.9, 55, 2])
  assert.equal(out.capacity, r.capacity, 'an object on no nulled path is shared, not copied')
  assert.deepEqual(out.impossible, [
    'rps 1e+308 is not a measurement (over 1,000,000,000 req/s)',
    'requests.timeouts -1 is not a measurement (negative)',
    'latency.p99 -3 is not a measurement (negative)',
    'latency.percentiles.99 2000000000 is not a measurement (over 1,000,000,000 ms)'
  ])
  // a ratio past 1000 (100,000 %) and the limits themselves
  assert.deepEqual(withoutImpossible({ efficiency: 1001 }).impossible, ['efficiency 1001 is not a measurement (over 1,000 (100,000 %))'])
  assert.deepEqual(withoutImpossible({ rps: 1e9, efficiency: 1000, latency: { p99: 0 } }).impossible, [])
})

test('withoutImpossible: rounds are cleaned too, their reasons prefixed and at most ten in all', () => {
  const runs = Array.from({ length: 30 }, (_, i) => ({ rps: i % 2 ? -1 : 10 }))
  const out = withoutImpossible({ rps: 5, runs: [...runs, null] })
  assert.deepEqual(out.runs.slice(0, 4).map((x) => x.rps), [10, null, 10, null])
  assert.equal(out.runs.at(-1), null, 'a round that is no object is left as it is')
  assert.equal(out.impossible.length, 10)
  assert.equal(out.impossible[0], 'round 2: rps -1 is not a measurement (negative)')
  assert.equal(out.runs.filter((x) => x?.rps === null).length, 15, 'every bad round is nulled, past the reasons kept')
})
