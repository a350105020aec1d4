// run/calibrate.js: one spec's calls summarised into a service time.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { summarizeCalibration } from '../../../loadtest/run/calibrate.js'

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
