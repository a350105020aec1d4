// --confirm's verdict (run/round/confirm.js confirmVerdict): held only when the step rule passes, and otherwise
// always a reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { confirmVerdict } from '../../../../loadtest/run/round/confirm.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../../loadtest/result/histogram.js'

const fig = (p99, { n = 600, failed = 0, growing = false } = {}) => ({
  requests: { sent: n, completed: n - failed, errors: failed, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
  latency: { p99 },
  backlog: { growing, growth: growing ? 40 : 0, limit: 30 }
})

test('confirm: held when p99 holds with every request answered and a steady backlog; else each reason named', () => {
  assert.deepEqual(confirmVerdict(fig(40), 100), { held: true, why: [] })
  const slow = confirmVerdict(fig(140), 100)
  assert.equal(slow.held, false)
  assert.match(slow.why[0], /p99 140 ms over p99 ≤ 100 ms/)
  assert.match(confirmVerdict(fig(40, { failed: 3 }), 100).why[0], /3 of 600 requests failed/)
  assert.match(confirmVerdict(fig(40, { growing: true }), 100).why[0], /backlog grew by 40/)
  for (const f of [fig(40), fig(140), fig(40, { failed: 2 }), fig(40, { growing: true })]) {
    const v = confirmVerdict(f, 100)
    assert.equal(v.held, v.why.length === 0, 'held exactly when nothing is named against it')
  }
})

test('confirm: too few requests to show p99 is not a hold, and says so', () => {
  const h = createHistogram()
  for (let i = 0; i < 100; i++) recordMs(h, 30)
  const few = { ...fig(30, { n: 100 }), histograms: { latency: encodeHistogram(h) } }
  const v = confirmVerdict(few, 100)
  assert.equal(v.held, false)
  assert.match(v.why[0], /undecided: 0 of 100 requests over the target/)
  for (let i = 0; i < 300; i++) recordMs(h, 30)
  assert.equal(confirmVerdict({ ...fig(30, { n: 400 }), histograms: { latency: encodeHistogram(h) } }, 100).held, true)
})
