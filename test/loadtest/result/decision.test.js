// The decision of a capacity report (loadtest/result/decision.js) on synthetic results: the winner and its
// plan rate, the tie rule, each refusal, and the target at which the ranking flips.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { HEADROOM, decide, overlaps, rankingChanges, runsDisagree } from '../../../loadtest/result/decision.js'

// A capacity result: `targets` [[sloMs, pass, fail]] (pass null: cannot meet), with optional figures.
function result (key, targets, { trusted = true, untrusted = [], rssMb = null, goodput2x = null, runs = null } = {}) {
  const [server, setting] = /^([^[@]+)(?:\[([^\]]+)\])?/.exec(key).slice(1)
  const t = targets.map(([sloMs, pass, fail]) => ({
    sloMs, rps: pass, bracket: { pass, fail }, bound: pass === null ? 'cannot meet the target' : 'refined'
  }))
  return {
    kind: 'http',
    key: `${key}@loop:3e7#capacity`,
    server,
    variant: null,
    status: 'ok',
    trusted,
    untrusted,
    setting,
    outside: rssMb === null ? null : { peakRssBytes: rssMb * 2 ** 20 },
    overload: goodput2x === null ? undefined : { steps: [{ multiple: 2, goodputShare: goodput2x }] },
    capacity: { sloMs: t[0].sloMs, capacity: { ...t[0] }, targets: t, ...(runs ? { runs } : {}) }
  }
}
const report = (...results) => ({ machine: { hostname: 'box', availableParallelism: 2, node: 'v22.0.0' }, results })

test('decision: the highest capacity wins when brackets are apart; plan rate at the stated headroom; runner-up named', () => {
  const d = decide(report(
    result('simple', [[100, 40, 44]]),
    result('queued-threads', [[100, 80, 84]]),
    result('child-process', [[100, null, 3]])
  ))
  assert.equal(d.server, 'queued-threads')
  assert.equal(d.capacityRps, 80)
  assert.equal(d.planRps, 80 * HEADROOM)
  assert.equal(d.refused, null)
  assert.equal(d.sloMs, 100)
  assert.equal(d.runnerUp.server, 'simple')
  assert.match(d.runnerUp.separation, /brackets apart: 80–84 against 40–44/)
  assert.deepEqual(d.unmet, [{ key: 'child-process@loop:3e7#capacity', bound: 'cannot meet the target' }])
  assert.equal(d.decidedBy, 'highest capacity, brackets apart')
})

test('decision: settings of one strategy that tie are told apart by goodput at 2 × capacity, then by peak RSS', () => {
  const byRss = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 90 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 120 }),
    result('queued-threads[threads=1]', [[100, 40, 42]], { rssMb: 70 })
  ))
  assert.equal(byRss.key, 'queued-threads[threads=2]@loop:3e7#capacity')
  assert.deepEqual(byRss.setting, { name: 'threads', value: '2' })
  assert.match(byRss.decidedBy, /tie on capacity, broken by peak RSS \(90 MB against 120 MB\)/)
  assert.equal(byRss.refused, null)
  assert.match(byRss.runnerUp.separation, /overlap/)
  // goodput at 2 × decides first when both have it
  const byGoodput = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 90, goodput2x: 0.3 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 120, goodput2x: 0.7 })
  ))
  assert.equal(byGoodput.setting.value, '3')
  assert.match(byGoodput.decidedBy, /goodput at 2 × capacity \(70 % against 30 %\)/)
  // nothing tells them apart (RSS within 10 %): a refusal naming both
  const even = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 100 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 105 })
  ))
  assert.equal(even.refused.reason, 'tie')
  assert.equal(even.refused.keys.length, 2)
})

test('decision refuses: strategies whose top brackets overlap (both named), a disturbed winner, runs that disagree', () => {
  const tie = decide(report(result('simple', [[100, 80, 86]], { rssMb: 50 }), result('cluster', [[100, 83, 88]], { rssMb: 200 })))
  assert.equal(tie.refused.reason, 'tie')
  assert.deepEqual(tie.refused.keys, ['cluster@loop:3e7#capacity', 'simple@loop:3e7#capacity'])
  assert.match(tie.refused.text, /cluster@loop:3e7#capacity and simple@loop:3e7#capacity tie: their brackets overlap \(83–88 and 80–86\)/)
  assert.match(tie.refused.text, /simple@loop:3e7#capacity leads on peak RSS/)
  const disturbed = decide(report(
    result('simple', [[100, 40, 44]]),
    result('cluster', [[100, 80, 84]], { trusted: false, untrusted: ['disturbed: 2 of 9 steps: step 3 (steal 9 % > 5 %)'] })
  ))
  assert.equal(disturbed.refused.reason, 'disturbed')
  assert.match(disturbed.refused.text, /steal 9 %/)
  assert.equal(disturbed.key, 'cluster@loop:3e7#capacity', 'the refused winner is still named')
  const runs = [{ rps: 80, bracket: { pass: 80, fail: 84 } }, { rps: 95, bracket: { pass: 95, fail: 99 } }]
  const disagree = decide(report(result('simple', [[100, 40, 44]]), result('cluster', [[100, 80, 84]], { runs })))
  assert.equal(disagree.refused.reason, 'runs disagree')
  assert.deepEqual(runsDisagree({ capacity: { runs } }), { held: 95, failed: 84 })
  assert.equal(runsDisagree({ capacity: { runs: [runs[0], { rps: 82, bracket: { pass: 82, fail: 86 } }] } }), null)
  const none = decide(report(result('simple', [[100, null, 3]])))
  assert.equal(none.refused.reason, 'none meets the target')
  assert.equal(none.key, null)
})

test('decision: the ranking flips with the target, at the crossing of the two capacity lines', () => {
  const results = [
    result('cluster', [[100, 90, 94], [200, 95, 99], [400, 100, 104]]),
    result('queued-threads', [[100, 60, 63], [200, 92, 96], [400, 150, 155]])
  ]
  const changes = rankingChanges(results)
  assert.equal(changes.length, 1)
  assert.equal(changes[0].from, 'cluster@loop:3e7#capacity')
  assert.equal(changes[0].to, 'queued-threads@loop:3e7#capacity')
  assert.deepEqual([changes[0].fromMs, changes[0].toMs], [200, 400])
  assert.ok(changes[0].atMs > 200 && changes[0].atMs < 400, `crossing ${changes[0].atMs} between the targets`)
  const d = decide(report(...results))
  assert.equal(d.server, 'cluster', 'decided at the first target')
  assert.equal(d.changes.length, 1)
  assert.equal(decide(report(...results), { sloMs: 400 }).server, 'queued-threads')
  assert.ok(overlaps({ bracket: { pass: 1, fail: null } }, { bracket: { pass: 5, fail: 6 } }), 'an open bracket overlaps what is above it')
})
