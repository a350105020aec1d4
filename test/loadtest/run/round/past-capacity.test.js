// The past-capacity probe's settings (run/round/past-capacity.js, lengths in settings.js): short, yet each
// phase long enough for the decision's rules (the rule book's PAST) to be judged on it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PROBE, PROBE_QUICK } from '../../../../loadtest/run/round/past-capacity.js'
import { pastOf } from '../../../../loadtest/result/decision.js'
import { PAST } from '../../../../loadtest/result/rules.js'
import { overloadOf, stepTiming } from '../../../../loadtest/result/overload.js'
import { overloadRounds } from '../../../../loadtest/run/round/overload.js'

// The default run's figures: loop:3e7 on this machine, C of the pools and its target (5 service times).
const C = 78
const SLO_MS = 123

for (const [name, p] of [['default', PROBE], ['--quick', PROBE_QUICK]]) {
  test(`past-capacity probe (${name}): a recovery within the collapse rule's ${PAST.recoverySec} s is seen and confirmed before the watch ends`, () => {
    assert.ok(p.burst.afterSec >= PAST.recoverySec + p.confirmWindows,
      `watched ${p.burst.afterSec} s: a recovery at ${PAST.recoverySec} s needs ${p.confirmWindows} windows after it`)
  })

  test(`past-capacity probe (${name}): the multiples the decision reads, each step judged on whole windows`, () => {
    assert.deepEqual(p.multiples, [PAST.collapseMultiple, 2])
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

// A round as the probe's `measure` gives it: goodput windows of 1 s from the start, `good` of `offered` in each.
function roundOf ({ rate, durationSec }, goodShare) {
  const windows = Array.from({ length: durationSec }, (_, t) => ({
    t: t * 1000, offered: Math.round(rate), good: Math.round(rate * goodShare), shed: 0, timeouts: 0, p99: 50
  }))
  const offered = windows.reduce((a, w) => a + w.offered, 0)
  const good = windows.reduce((a, w) => a + w.good, 0)
  return {
    goodput: { windows, windowMs: 1000, offered, good, ok: good, shed: 0, timeouts: offered - good, errors: 0 },
    timeline: null
  }
}

// The probe's rounds (run/round/overload.js overloadRounds) against a server whose goodput share of C is
// `share(rate)`: the rates it asked for.
async function probeRates (share) {
  const asked = []
  const record = { notes: [] }
  const entry = { overload: { settings: PROBE, capacity: { rps: C, sloMs: SLO_MS, from: 'test' } } }
  const measure = async (load) => {
    asked.push(load.phases ? 'burst' : load.rate / C)
    return roundOf(load, share(load.rate))
  }
  const signal = new AbortController().signal
  await overloadRounds(record, { entry, load: {}, swept: null, serviceMs: null, measure, signal })
  return { asked, o: record.overload }
}

test('past-capacity probe: a configuration that collapsed at 1.5 × C is probed no further; one that holds gets every step and the burst', async () => {
  const collapsing = await probeRates(() => 0.2)
  assert.deepEqual(collapsing.asked, [PAST.collapseMultiple], 'stopped after the step at 1.5 × C')
  assert.equal(collapsing.o.collapsedAt, PAST.collapseMultiple)
  const past = pastOf({ overload: overloadOf(collapsing.o) })
  assert.equal(past.collapses, true)
  const g = past.goodputShare[String(PAST.collapseMultiple)]
  assert.ok(g < PAST.collapseShare, `goodput ${g} of C at 1.5 ×`)
  assert.deepEqual(past.why, [{ goodputShare: g, multiple: PAST.collapseMultiple }], 'collapsed on its goodput alone')
  assert.equal(past.recoverySec, null)
  assert.equal(past.collapsedAt, PAST.collapseMultiple)
  // on the edge: exactly half of C at 1.5 × is no collapse, and the probe goes on
  const half = PAST.collapseShare / PAST.collapseMultiple // of the offered: half of C at 1.5 × C
  const edge = await probeRates((rate) => (rate / C === PAST.collapseMultiple ? half : 1))
  assert.deepEqual(edge.asked, [1.5, 2, 'burst'])
  assert.equal(edge.o.collapsedAt, null)
  // the overload experiment itself (no stopOnCollapse) runs every step whatever they show
  const asked = []
  const record = { notes: [] }
  const entry = { overload: { settings: { ...PROBE, stopOnCollapse: false }, capacity: { rps: C, sloMs: SLO_MS } } }
  const measure = async (load) => { asked.push(load.phases ? 'burst' : load.rate / C); return roundOf(load, 0.1) }
  const signal = new AbortController().signal
  await overloadRounds(record, { entry, load: {}, swept: null, serviceMs: null, measure, signal })
  assert.deepEqual(asked, [1.5, 2, 'burst'])
})
