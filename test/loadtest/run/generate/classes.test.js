// A mix in a round (loadtest/run/generate/classes.js): the seeded class of request i, slices that take
// exactly their own requests' classes, per-class counts that add up, and an answer's check by its class.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { addClasses, classCheck, classCounts, classPicker, countClass, plainClasses } from '../../../../loadtest/run/generate/classes.js'
import { createSchedule, sliceOf } from '../../../../loadtest/run/generate/schedule.js'
import { startBody } from '../../../../loadtest/run/generate/body.js'

const requests = [{ name: 'cheap', weight: 80 }, { name: 'heavy', weight: 20 }]

test('the class of request i: the same seed the same sequence, another seed another, the weights kept', () => {
  const seq = (seed) => Array.from({ length: 5000 }, (_, i) => classPicker(requests, seed)(i))
  assert.deepEqual(seq(7), seq(7))
  assert.notDeepEqual(seq(7), seq(8))
  const heavy = seq(7).filter((k) => k === 1).length / 5000
  assert.ok(Math.abs(heavy - 0.2) < 0.03, `heavy share ${heavy}`)
})

// The classes a slice of the plan sends, by plan index (the schedule's own index, as the open loop reads it).
function sliceClasses (slice, seed, amount) {
  const s = createSchedule({ rate: 100, arrival: 'poisson', seed, amount, slice })
  const pick = classPicker(requests, seed)
  const out = new Map()
  while (s.next() !== null) out.set(s.index, pick(s.index))
  return out
}

test('shards and threads split the class sequence exactly: their slices put together are the whole plan', () => {
  const whole = sliceClasses(null, 5, 999)
  assert.equal(whole.size, 999)
  const parts = []
  for (let shard = 1; shard <= 3; shard++) {
    for (let g = 0; g < 2; g++) {
      const slice = sliceOf({ shard: { index: shard, count: 3 }, generator: { index: g, count: 2 } })
      parts.push(sliceClasses(slice, 5, 999))
    }
  }
  const joined = new Map(parts.flatMap((p) => [...p]))
  assert.equal(parts.reduce((a, p) => a + p.size, 0), 999) // no request twice
  assert.deepEqual(new Map([...joined].sort((a, b) => a[0] - b[0])), whole)
})

test('per-class counts add up across threads, histograms included (encoded as a thread posts them)', () => {
  const a = classCounts(requests)
  const b = classCounts(requests)
  countClass(a[0], { outcome: 'response', status: 200, latencyMs: 5 })
  countClass(a[1], { outcome: 'timeout', latencyMs: 1000 })
  countClass(b[0], { outcome: 'response', status: 503, latencyMs: 7 })
  countClass(b[0], { outcome: 'response', status: 200, met: false, sample: 'status 200, expected 201', latencyMs: 9 })
  countClass(b[1], { outcome: 'error' })
  const sum = addClasses(addClasses(null, plainClasses(a)), plainClasses(b))
  assert.deepEqual(sum.map(({ latency, mismatchSample, name, sloMs, ...n }) => n), [
    { sent: 0, completed: 3, ok: 2, non2xx: 1, errors: 0, timeouts: 0, mismatches: 1 },
    { sent: 0, completed: 0, ok: 0, non2xx: 0, errors: 1, timeouts: 1, mismatches: 0 }
  ])
  assert.equal(sum[0].latency.totalCount, 3)
  assert.equal(sum[0].mismatchSample, 'status 200, expected 201')
})

test('an answer is checked by its class: bodies only when expect asks, non-2xx never a mismatch', () => {
  const body = (text) => {
    const b = startBody(1 << 20)
    b.update(Buffer.from(text))
    return b
  }
  const plain = classCheck({ expect: {} }, 1 << 20)
  assert.equal(plain.start(), null) // nothing of the body is hashed or kept
  assert.equal(plain.settle(null, 200).met, true)
  const status = classCheck({ expect: { status: 201 } }, 1 << 20)
  assert.deepEqual(status.settle(null, 200), { met: false, sample: 'status 200, expected 201' })
  assert.equal(status.settle(null, 503).met, true) // counted as non2xx by its status
  const sha256 = createHash('sha256').update('hello').digest('hex')
  const hashed = classCheck({ expect: { sha256 } }, 1 << 20)
  assert.equal(hashed.settle(body('hello'), 200).met, true)
  assert.equal(hashed.settle(body('hellO'), 200).met, false)
  const includes = classCheck({ expect: { bodyIncludes: '"ok":true' } }, 1 << 20)
  assert.equal(includes.settle(body('{"ok":true,"at":1}'), 200).met, true)
  assert.match(includes.settle(body('{"ok":false}'), 200).sample, /^no "\\"ok\\":true"/)
})
