// What the capacity rule guarantees of a real sweep's first target, whatever the machine's load (result/sweep.js,
// the rule book): a capacity; or none, each outcome with the evidence that allows it. Tests on real runs assert
// this, never a figure the machine happened to give.
import assert from 'node:assert/strict'
import { bracketOf, verdicts } from '../../loadtest/result/capacity.js'
import { LENGTH, REPEAT, requestsToShow } from '../../loadtest/result/rules.js'

// Could the floor's first step have been topped up to its sample (the rule book's FLOOR): all its requests
// undecided, at most LENGTH.topUpMaxOver over, and the tries left at the floor long enough for the sample?
function floorReachable (sweep, atFloor) {
  const [first] = atFloor
  if (!first || first.call !== 'undecided' || !(first.over <= LENGTH.topUpMaxOver)) return false
  const need = requestsToShow(first.over, { share: sweep.share, confidence: sweep.confidence })
  return first.n + (REPEAT.maxTries - 1) * first.rate * sweep.longestStepSec >= need
}

// Did the first target have a pass after some step (the sweep keeps room for the floor's top-up only until then:
// result/sweep.js floorTopUp)? A pass a later step overturns (a hold that failed) leaves that room spent.
function passSeen (sweep) {
  const judging = { share: sweep.share, confidence: sweep.confidence }
  return sweep.steps.some((_, i) => bracketOf(verdicts(sweep.steps.slice(0, i + 1), judging)).lo > 0)
}

// The outcome of a result's first target ('capacity', or the bound with no capacity), asserting that the rule
// allows it: a floor that failed for 'cannot-meet' and 'below-lowest'; a floor whose requests overlapped for
// 'floor-overlap'; else (undecided, or ruled out) a floor that was topped up, could not have been, had its room
// given up to a pass since overturned, or steps something outside disturbed.
export function firstTargetOutcome (result) {
  const sweep = result.capacity
  const c = sweep.capacity
  if (c.rps > 0) {
    assert.ok(c.bracket.pass === c.rps, `${result.key}: the capacity is its bracket's pass`)
    return 'capacity'
  }
  const why = `${result.key}: ${c.bound} ${JSON.stringify(c.undecided ?? null)}; steps ` +
    sweep.steps.map((s) => `${s.kind} ${s.rate.toFixed(1)} ${s.call} ${s.n}/${s.over}`).join(', ')
  assert.ok(sweep.steps.length > 0 || c.undecided?.code === 'no-step', why)
  const atFloor = sweep.steps.filter((s) => s.rate === c.floor?.rps)
  const floorVerdict = verdicts(sweep.steps, { share: sweep.share, confidence: sweep.confidence }).get(c.floor?.rps)
  if (['cannot-meet', 'below-lowest'].includes(c.bound)) {
    assert.ok(c.floor.true && floorVerdict === 'fail', why)
    return c.bound
  }
  if (c.undecided?.code === 'floor-overlap') {
    assert.equal(c.floor.true, false, why)
    return 'floor-overlap'
  }
  assert.ok(['undecided', 'ruled-out'].includes(c.bound), why)
  const toppedUp = atFloor.some((s) => s.kind === 'repeat')
  assert.ok(toppedUp || !floorReachable(sweep, atFloor) || passSeen(sweep) || result.disturbed,
    `the floor was not topped up: ${why}`)
  return c.bound === 'undecided' ? `undecided: ${c.undecided?.code}` : c.bound
}
