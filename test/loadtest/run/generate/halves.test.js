// A step judged again on each half (result/rules.js HALVES): halves that contradict mark it, a steady step's
// halves rarely do, and a real round keeps the second half's latencies apart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fireOpenLoop } from '../../../../loadtest/run/generate/open-loop.js'
import { prng } from '../../../../loadtest/run/generate/schedule.js'
import { roundFigures } from '../../../../loadtest/result/figures.js'
import { halvesDisagree, judgeStep, verdictAt } from '../../../../loadtest/result/capacity.js'
import { createHistogram, decodeHistogram, encodeHistogram, recordMs } from '../../../../loadtest/result/histogram.js'
import { HALVES, percentileCall } from '../../../../loadtest/result/rules.js'
import { holdsText } from '../../../../loadtest/text/sentences.js'
import { startServer } from '../../../helpers/server.js'

// A step's figures from its halves, each [requests, of them over a 10 ms target]: 2 ms under it, 50 ms over.
function step ([n1, over1], [n2, over2], { late = true } = {}) {
  const whole = createHistogram()
  const second = createHistogram()
  const add = (h, n, over) => {
    for (let i = 0; i < n; i++) recordMs(h, i < over ? 50 : 2)
  }
  add(whole, n1, over1)
  add(whole, n2, over2)
  add(second, n2, over2)
  const n = n1 + n2
  return {
    requests: { sent: n, completed: n, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
    latency: { p99: over1 + over2 > n / 100 ? 50 : 2 },
    open: { fit: null },
    histograms: { latency: encodeHistogram(whole), ...(late ? { latencyLate: encodeHistogram(second) } : {}) }
  }
}

test('HALVES: halves that contradict mark the step (a failure in doubt, anything else undecided and out of the pool)', () => {
  const halfCall = (n, over) => percentileCall(n, over, { confidence: HALVES.confidence })
  // 600 requests with none over pass p99 on their own; 600 with 30 over fail it
  assert.deepEqual([halfCall(600, 0), halfCall(600, 30)], ['pass', 'fail'])
  const drift = judgeStep(step([600, 0], [600, 30]), 10)
  assert.deepEqual([drift.call, drift.inDoubt, drift.mark], ['fail', true, 'drift'], 'the second half failed alone')
  assert.equal(holdsText(drift), '✗ in doubt (halves disagree)')
  const warm = judgeStep(step([600, 30], [600, 0]), 10)
  assert.deepEqual([warm.call, warm.mark], ['fail', 'drift'], 'a warm-up not over: the first half failed alone')
  // 1,500 requests a half: none over, then 26 over (a failure alone); the whole (26 of 3,000) decides nothing
  const undecided = judgeStep(step([1500, 0], [1500, 26]), 10)
  assert.deepEqual([undecided.call, undecided.mark], ['undecided', 'drift'])
  assert.equal(holdsText(undecided), '? halves disagree')
  const s = (extra) => ({ call: 'undecided', n: 3000, over: 0, disturbed: false, inDoubt: false, ...extra })
  assert.equal(verdictAt([s({ mark: 'drift' }), s({ mark: 'drift' })]), 'pending', 'marked steps do not pool')
  assert.equal(verdictAt([s(), s()]), 'pass', 'the same requests unmarked pool into a pass')
  // halves that agree, or one that decides nothing, leave the call alone
  assert.deepEqual([judgeStep(step([600, 0], [600, 0]), 10).call, judgeStep(step([600, 0], [600, 0]), 10).mark],
    ['pass', undefined])
  const clear = judgeStep(step([600, 40], [600, 30]), 10)
  assert.deepEqual([clear.call, clear.inDoubt], ['fail', false], 'both halves fail: a clear failure')
  assert.equal(judgeStep(step([100, 0], [100, 5]), 10).mark, undefined, 'a half of 100 shows no p99 pass')
  // a round without the second half's histogram (amount mode, a report from before the rule): no check
  assert.equal(judgeStep(step([600, 0], [600, 30], { late: false }), 10).mark, undefined)
})

test('HALVES: a steady step\'s halves contradict at most 2 × (1 − confidence) of the time, a changed one mostly (seeded)', () => {
  // the worst case for a steady step: its share over the target just under the percentile's, where a half's
  // failure is likeliest while the other half can still pass; 1,200 requests a half
  const rand = prng(11)
  const overOf = (n, p) => {
    let k = 0
    for (let i = 0; i < n; i++) if (rand() < p) k++
    return k
  }
  for (const p of [0.004, 0.008, 0.01, 0.012]) {
    let marked = 0
    const trials = 2000
    for (let i = 0; i < trials; i++) {
      if (halvesDisagree({ n: 1200, over: overOf(1200, p) }, { n: 1200, over: overOf(1200, p) })) marked++
    }
    assert.ok(marked <= trials * 2 * (1 - HALVES.confidence), `share ${p}: ${marked} of ${trials} marked`)
  }
  // and a step that changed, 0.1 % over the target in its first half and 3 % in its second, is caught in most
  let caught = 0
  for (let i = 0; i < 2000; i++) {
    if (halvesDisagree({ n: 1200, over: overOf(1200, 0.001) }, { n: 1200, over: overOf(1200, 0.03) })) caught++
  }
  assert.ok(caught >= 1800, `${caught} of 2,000 caught`)
})

// The requests in an encoded histogram that took longer than `ms`.
function over (text, ms) {
  const h = decodeHistogram(text)
  let n = 0
  const it = h.recordedValuesIterator
  it.reset()
  while (it.hasNext()) {
    const v = it.next()
    if (h.lowestEquivalentValue(v.valueIteratedTo) > ms * 1000) n += v.countAtValueIteratedTo
  }
  return n
}

test('a real round of planned length keeps the latencies of the requests due in its second half apart', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1', '--telemetry', 'off'])
  t.after(() => server.stop())
  const url = `${server.url}/`
  // the generator's thread blocked for 250 ms every 500 from the round's second half: its requests wait for it
  const fire = fireOpenLoop({ url, rate: 200, durationSec: 3, timeoutSec: 5 })
  let block = null
  const start = setTimeout(() => {
    block = setInterval(() => { const until = Date.now() + 250; while (Date.now() < until); }, 500)
  }, 1800)
  t.after(() => {
    clearTimeout(start)
    clearInterval(block)
  })
  const raw = await fire
  clearInterval(block)
  const fig = roundFigures({ fire: raw })
  // a constant schedule: exactly the requests due from 1.5 s on
  assert.equal(decodeHistogram(fig.histograms.latency).totalCount, 600)
  assert.equal(decodeHistogram(fig.histograms.latencyLate).totalCount, 300)
  // a request due while the thread was blocked waited for it: the second half holds such requests
  const slow = over(fig.histograms.latencyLate, 100)
  assert.ok(slow > 0 && slow <= over(fig.histograms.latency, 100), `${slow} slow`)
  // an amount, not a length: no halves
  const amount = roundFigures({ fire: await fireOpenLoop({ url, rate: 200, amount: 100, timeoutSec: 5 }) })
  assert.equal(amount.histograms.latencyLate, undefined)
})
