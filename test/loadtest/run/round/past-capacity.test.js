// The past-capacity probe's settings (run/round/past-capacity.js, lengths in settings.js): short, yet each
// phase long enough for the decision's rules (result/decision.js COLLAPSE) to be judged on it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PROBE, PROBE_QUICK } from '../../../../loadtest/run/round/past-capacity.js'
import { COLLAPSE } from '../../../../loadtest/result/decision.js'
import { stepTiming } from '../../../../loadtest/result/overload.js'

// The default run's figures: loop:3e7 on this machine, C of the pools and its target (5 service times).
const C = 78
const SLO_MS = 123

for (const [name, p] of [['default', PROBE], ['--quick', PROBE_QUICK]]) {
  test(`past-capacity probe (${name}): a recovery within the collapse rule's ${COLLAPSE.recoverySec} s is seen and confirmed before the watch ends`, () => {
    assert.ok(p.burst.afterSec >= COLLAPSE.recoverySec + p.confirmWindows,
      `watched ${p.burst.afterSec} s: a recovery at ${COLLAPSE.recoverySec} s needs ${p.confirmWindows} windows after it`)
  })

  test(`past-capacity probe (${name}): the multiples the decision reads, each step judged on whole windows`, () => {
    assert.deepEqual(p.multiples, [COLLAPSE.multiple, 2])
    const { durationSec, settleMs } = stepTiming(SLO_MS, p)
    const counted = durationSec - settleMs / 1000
    assert.ok(counted >= 1 && Number.isInteger(counted), `${counted} s counted of ${durationSec}`)
    // the requests each judged phase holds at C: goodput at 1.5 and 2 × C, and the burst at 2 × C
    for (const m of p.multiples) assert.ok(m * C * counted >= 100, `${m} × C: ${m * C * counted} requests judged`)
    assert.ok(p.burst.burstMultiple * C * p.burst.burstSec >= 300, 'the burst holds at least 300 requests')
  })
}

test('past-capacity probe: the default judges two windows a step, --quick one', () => {
  const full = stepTiming(SLO_MS, PROBE)
  const quick = stepTiming(SLO_MS, PROBE_QUICK)
  assert.equal(full.durationSec - full.settleMs / 1000, 2)
  assert.equal(quick.durationSec - quick.settleMs / 1000, 1)
})
