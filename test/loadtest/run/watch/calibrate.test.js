// run/watch/calibrate.js: one spec's calls summarised into a service time.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import {
  calibrate, calibrateCold, noiseServiceMs, recheckCalibration, summarizeCalibration
} from '../../../../loadtest/run/watch/calibrate.js'
import { describeLabTask } from '../../../../loadtest/run/watch/task.js'
import { ROOT } from '../../../helpers/lab.js'

test('calibration: median, spread, tier shift noticed', () => {
  const flat = summarizeCalibration('loop:1e8', [110, 112, 108, 111])
  assert.equal(flat.calls, 4)
  assert.equal(flat.medianMs, 111, 'the median of the calls after the cold first one')
  assert.equal(flat.firstMs, 110)
  assert.equal(summarizeCalibration('fib:30', [9, 7]).medianMs, 8, 'with two calls, the median of both')
  assert.equal(flat.tierShift, false)
  const shifted = summarizeCalibration('loop:1e8', [110, 385, 380, 390])
  assert.equal(shifted.tierShift, true)
  assert.equal(shifted.maxMs, 390)
  assert.equal(shifted.medianMs, 385, 'the service time is what the later calls take, not an average with the first')
})

test('calibration: the service time is the fast end of the warm calls, so noise on a few calls does not move it', () => {
  // 30 calls: a cold first, a tier-up over the first third, then 10 ms with bursts of noise (only ever slower).
  const quiet = [40, 25, 18, 15, 13, 12, 11, 10.5, 10.2, 10.1, ...Array(20).fill(10)]
  const noisy = quiet.map((ms, i) => (i >= 10 && i % 3 === 0 ? ms * 1.8 : ms))
  const a = summarizeCalibration('loop:1e7', quiet)
  const b = summarizeCalibration('loop:1e7', noisy)
  assert.equal(a.serviceMs, 10)
  assert.equal(b.serviceMs, 10, 'a third of the warm calls slowed by 80 %: the same service time')
  assert.ok(b.medianMs > a.medianMs || b.spreadPct > a.spreadPct, 'the noise shows in the median or the spread')
  assert.equal(b.spreadPct, 80, "the warm calls' p90 over their p10")
  assert.equal(a.warmCalls, 20)
  assert.match(a.estimate, /^p10 of the warm calls/)
  assert.equal(a.spreadPct, 0, "the tier-up's slow first third is not among the warm calls")
})

test('cold calibration: each call the first in a fresh process or thread; a per-request strategy is held against it', async () => {
  for (const start of ['process', 'thread']) {
    const cold = await calibrateCold('loop:1e6', start, { calls: 2 })
    assert.equal(cold.error, undefined, cold.error)
    assert.equal(cold.calls, 2, `${start}: one sample from each of 2 fresh ${start}es`)
    assert.ok(cold.serviceMs > 0)
    assert.equal(cold.method, 'cold')
    assert.match(cold.estimate, new RegExp(`the first in a fresh ${start}`))
  }
  const cal = { serviceMs: 10, method: 'measured', cold: { process: { serviceMs: 14 } } }
  assert.deepEqual(noiseServiceMs(cal, 'process'), { serviceMs: 14, against: 'cold process' })
  assert.deepEqual(noiseServiceMs(cal, null), { serviceMs: 10, against: 'warm' }, 'a strategy that starts nothing: the warm one')
  assert.deepEqual(noiseServiceMs(cal, 'thread'), { serviceMs: 10, against: 'warm' }, 'no cold thread calibration: the warm one')
})

test('a sweep\'s calibration checked again: a --task spec is measured with its task (without it there is no measure)', async () => {
  const work = await describeLabTask({ task: join(ROOT, 'examples', 'hello-task.js'), timeoutSec: 20, cwd: ROOT })
  const tasks = { [work.spec]: work.task }
  const used = (await calibrate([work.spec], { maxCalls: 5, totalBudgetMs: 500, tasks }))[work.spec]
  assert.ok(used.serviceMs > 0, JSON.stringify(used))
  const check = await recheckCalibration(used, { tasks, maxCalls: 5, totalBudgetMs: 500 })
  assert.ok(check.serviceMs > 0 && typeof check.drift === 'number', JSON.stringify(check))
  // the lab's old call, without the task: nothing measured, so the check cannot hold
  const blind = await recheckCalibration(used, { maxCalls: 5, totalBudgetMs: 500 })
  assert.deepEqual([blind.drift, blind.holds], [null, false])
})
