// The arrivals a round issued, tested against the process it asked for (result/rules.js FIT): a stream that
// is not Poisson is caught, a smooth one and a bunched one each by its own tail.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fireOpenLoop } from '../../../../loadtest/run/generate/open-loop.js'
import { prng } from '../../../../loadtest/run/generate/schedule.js'
import { roundFigures } from '../../../../loadtest/result/figures.js'
import { judgeStep, verdictAt } from '../../../../loadtest/result/capacity.js'
import { arrivalFit } from '../../../../loadtest/result/trust.js'
import { FIT } from '../../../../loadtest/result/rules.js'
import { startServer } from '../../../helpers/server.js'

// A seeded Poisson count (Knuth's), from the schedule's PRNG: the same bins on every run.
function poissonCounts (mean, n, seed) {
  const rand = prng(seed)
  return Array.from({ length: n }, () => {
    const limit = Math.exp(-mean)
    let k = 0
    for (let p = rand(); p > limit; p *= rand()) k++
    return k
  })
}

test('arrivalFit: Fisher\'s index against χ², each tail at alpha / 2; bins joined to FIT.minPerBin; too few: none', () => {
  // seeded Poisson bins: the share marked by either tail is near alpha / 2 each (2,000 steps of 100 bins)
  const marks = { bunched: 0, smooth: 0 }
  for (let s = 1; s <= 2000; s++) {
    const tail = arrivalFit(poissonCounts(6, 100, s), { binMs: 100, arrival: 'poisson' }).tail
    if (tail) marks[tail]++
  }
  assert.ok(marks.bunched + marks.smooth <= 2000 * FIT.alpha * 4, `marked ${JSON.stringify(marks)} of 2,000`)
  // a constant stream: smooth when Poisson was asked, nothing when constant was
  const even = Array(100).fill(6)
  assert.equal(arrivalFit(even, { binMs: 100, arrival: 'poisson' }).tail, 'smooth')
  assert.equal(arrivalFit(even, { binMs: 100, arrival: 'constant' }).tail, null)
  // bursts (every fifth bin holds them all): bunched, whatever was asked
  const bursts = Array.from({ length: 100 }, (_, i) => (i % 5 ? 0 : 30))
  assert.equal(arrivalFit(bursts, { binMs: 100, arrival: 'constant' }).tail, 'bunched')
  // one arrival a bin on average: bins joined in threes (FIT.minPerBin), 300 ms each
  const sparse = arrivalFit(poissonCounts(1, 90, 7), { binMs: 100, arrival: 'poisson' })
  assert.equal(sparse.binMs, 100 * Math.ceil((FIT.minPerBin * 90) / poissonCounts(1, 90, 7).reduce((a, c) => a + c)))
  assert.equal(arrivalFit([3, 3, 3], { binMs: 100, arrival: 'poisson' }), null, 'fewer than FIT.minBins bins')
  assert.equal(arrivalFit([], { binMs: 100, arrival: 'poisson' }), null)
})

test('a step\'s call: a pass on smooth arrivals is undecided and does not pool; a failure on bunched ones is in doubt', () => {
  const step = (over, tail) => ({
    requests: { sent: 1000, completed: 1000, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
    latency: { p99: over ? 50 : 5 },
    open: { fit: tail ? { tail } : null },
    histograms: null
  })
  assert.equal(judgeStep(step(false, null), 10).call, 'pass')
  const smooth = judgeStep(step(false, 'smooth'), 10)
  assert.deepEqual([smooth.call, smooth.mark], ['undecided', 'smooth'])
  assert.equal(judgeStep(step(false, 'bunched'), 10).call, 'pass', 'a pass on a harsher load stands')
  const bunched = judgeStep(step(true, 'bunched'), 10)
  assert.deepEqual([bunched.call, bunched.inDoubt, bunched.mark], ['fail', true, 'bunched'])
  const smoothFail = judgeStep(step(true, 'smooth'), 10)
  assert.deepEqual([smoothFail.call, smoothFail.inDoubt, smoothFail.mark], ['fail', false, undefined])
  // at a rate: smooth passes never pool into a pass; a bunched failure does not count until the rate is retried
  const s = (call, extra = {}) => ({ call, n: 1000, over: 0, disturbed: false, inDoubt: false, ...extra })
  assert.equal(verdictAt([s('undecided', { mark: 'smooth' }), s('undecided', { mark: 'smooth' })]), 'pending')
  assert.equal(verdictAt([s('undecided'), s('undecided')]), 'pass', 'the same requests unmarked pool into a pass')
  assert.equal(verdictAt([s('fail', { over: 900, inDoubt: true, mark: 'bunched' })]), 'pending')
})

// One real round's fit as a report keeps it (result/figures.js roundFigures), and the fit of its bins had it
// asked for Poisson arrivals.
async function round (url, opts) {
  const fire = await fireOpenLoop({ url, timeoutSec: 5, ...opts })
  const { ms, issued } = fire.arrivals
  const open = roundFigures({ fire }).open
  return { fit: open.fit, lagMax: open.lag.max, asPoisson: arrivalFit(issued.slice(0, -1), { binMs: ms, arrival: 'poisson' }) }
}

test('real rounds: a constant stream is caught as not Poisson, one that stalls as bunched; a Poisson one is fitted', async (t) => {
  const server = await startServer('simple', ['--work', 'loop:1', '--telemetry', 'off'])
  t.after(() => server.stop())
  const url = `${server.url}/`
  const poisson = await round(url, { rate: 300, durationSec: 3, arrival: 'poisson', seed: 3 })
  assert.ok(poisson.fit.bins >= FIT.minBins && poisson.fit.index > 0, JSON.stringify(poisson.fit))
  // the same rate kept constant: never smooth as asked. Each request sent within 5 ms of its due time (a bin of
  // 30 within ±2), it is smoother than any Poisson stream; a generator the machine stalled longer sends bursts
  const constant = await round(url, { rate: 300, durationSec: 3 })
  assert.notEqual(constant.fit.tail, 'smooth', 'a constant schedule is smooth by design')
  if (constant.lagMax <= 5) assert.equal(constant.asPoisson.tail, 'smooth', JSON.stringify(constant))
  // the generator's thread blocked for 300 ms in every 600: its requests leave in bursts, whatever was asked
  const block = setInterval(() => { const until = Date.now() + 300; while (Date.now() < until); }, 600)
  t.after(() => clearInterval(block))
  const stalled = await round(url, { rate: 300, durationSec: 3.5 })
  clearInterval(block)
  assert.equal(stalled.fit.tail, 'bunched', JSON.stringify(stalled.fit))
})
