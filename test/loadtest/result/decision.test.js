// The decision of a capacity report (loadtest/result/decision.js) on synthetic results: the winner and its
// plan rate, the tie rule (an answer on every tie), each refusal, and the target at which the ranking flips.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closeCandidates, decide, overlaps, pastOf, rankingChanges, runsDisagree } from '../../../loadtest/result/decision.js'
import {
  bracketText, decisionLines, pastCapacityTable, pastRuleText, refusalText, ruleText, separationText, whyText
} from '../../../loadtest/text/decision.js'
import { PAST, TIE } from '../../../loadtest/result/rules.js'

// A capacity result: `targets` [[sloMs, pass, fail]] (pass null: cannot meet), with optional figures.
function result (key, targets, { trusted = true, untrusted = [], rssMb = null, goodput2x = null, runs = null } = {}) {
  const [server, setting] = /^([^[@]+)(?:\[([^\]]+)\])?/.exec(key).slice(1)
  const t = targets.map(([sloMs, pass, fail]) => ({
    sloMs, rps: pass, bracket: { pass, fail }, bound: pass === null ? 'cannot-meet' : 'refined'
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
  assert.equal(d.planRps, 80 * PAST.headroom)
  assert.equal(d.refused, null)
  assert.equal(d.sloMs, 100)
  assert.equal(d.runnerUp.server, 'simple')
  assert.match(separationText(d), /brackets apart: 80–84 against 40–44/)
  assert.deepEqual(d.unmet, [{ key: 'child-process@loop:3e7#capacity', bound: 'cannot-meet' }])
  assert.equal(ruleText(d), 'highest capacity, brackets apart')
})

test('decision: settings of one strategy that tie are told apart by goodput at 2 × capacity, then by peak RSS', () => {
  const byRss = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 90 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 120 }),
    result('queued-threads[threads=1]', [[100, 40, 42]], { rssMb: 70 })
  ))
  assert.equal(byRss.key, 'queued-threads[threads=2]@loop:3e7#capacity')
  assert.deepEqual(byRss.setting, { name: 'threads', value: '2' })
  assert.match(ruleText(byRss), /tie on capacity, broken by peak RSS \(90 MB against 120 MB\)/)
  assert.equal(byRss.refused, null)
  assert.match(separationText(byRss), /overlap/)
  // goodput at 2 × decides first when both have it
  const byGoodput = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 90, goodput2x: 0.3 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 120, goodput2x: 0.7 })
  ))
  assert.equal(byGoodput.setting.value, '3')
  assert.match(ruleText(byGoodput), /goodput at 2 × capacity \(70 % against 30 %\)/)
  // nothing else tells settings of one strategy apart (RSS within TIE.rssMargin): the higher capacity measured
  const even = decide(report(
    result('queued-threads[threads=2]', [[100, 80, 84]], { rssMb: 100 }),
    result('queued-threads[threads=3]', [[100, 82, 86]], { rssMb: 105 })
  ))
  assert.equal(even.refused, null)
  assert.equal(even.setting.value, '3')
  assert.equal(ruleText(even), 'tie on capacity, broken by the higher capacity measured (82 against 80 req/s)')
  assert.equal(even.alternative.key, 'queued-threads[threads=2]@loop:3e7#capacity')
})

// Two strategies tied on capacity (brackets 83–88 and 80–86), each probed past capacity with its shedding
// setting kept at `goodput` (at 1.5 and 2 × C), and their peak RSS.
function tiedPair ([a, goodA, rssA], [b, goodB, rssB]) {
  const keeps = (g) => [probe(null, [0, 0], 44), probe('shedding', [g, g], 0)]
  const withRss = (r, mb) => ({ ...r, outside: { peakRssBytes: mb * 2 ** 20 } })
  return report(
    withRss(probed(a, [[100, 83, 88]], keeps(goodA)), rssA),
    withRss(probed(b, [[100, 80, 86]], keeps(goodB)), rssB)
  )
}

test('strategies tied: goodput past capacity (shedding setting) names one, said as a tie, the other\'s command', () => {
  // both keep past capacity (past capacity's own rule cannot tell them apart); their goodput is apart by more
  // than TIE.goodputMargin
  assert.ok(0.99 - 0.82 > TIE.goodputMargin)
  const d = decide(tiedPair(['queued-threads', 0.82, 108], ['queued-processes', 0.99, 183]))
  assert.equal(d.refused, null)
  assert.equal(d.server, 'queued-processes', 'more goodput at 2 × C, though more memory and a lower capacity')
  assert.equal(d.command, 'node servers/queued-processes --work loop:3e7 --deadline auto --slo 100')
  const tieBreak = { by: 'goodput', multiple: TIE.goodputMultiple, shares: [0.99, 0.82] }
  assert.deepEqual(d.decidedBy, { rule: 'tie-broken', tieBreak })
  assert.equal(d.alternative.key, 'queued-threads@loop:3e7#capacity')
  assert.equal(d.alternative.command, 'node servers/queued-threads --work loop:3e7 --deadline auto --slo 100',
    'the alternative as it would be deployed: its shedding setting, as swept collapses')
  assert.equal(d.runnerUp.key, d.alternative.key)
  const text = decisionLines(d)
  const line = (label) => text.find((l) => l.label === label)?.text
  assert.equal(line('Decided by'), 'tie on capacity, broken by goodput at 2 × capacity (99 % against 82 %)')
  assert.equal(line('Alternative'), `tied on capacity: ${d.alternative.command}`)
  assert.ok(!text.some((l) => l.label === 'No recommendation'))
  assert.equal(text[0].text, d.command, 'the block still opens with the one command to run')
})

test('strategies tied, goodput within its margin: the smaller peak RSS past TIE.rssMargin, else the simpler', () => {
  const g = 0.9
  const apart = decide(tiedPair(['queued-processes', g, 183], ['queued-threads', g + TIE.goodputMargin / 2, 108]))
  assert.equal(apart.server, 'queued-threads')
  assert.equal(apart.decidedBy.tieBreak.by, 'peak-rss')
  assert.match(ruleText(apart), /^tie on capacity, broken by peak RSS \(108 MB against 183 MB\)$/)
  assert.equal(apart.alternative.server, 'queued-processes')
  // memory within the margin: the simpler strategy by the rule book's order, whichever has the higher capacity
  const near = 100 * (1 - TIE.rssMargin / 2)
  for (const [first, second] of [['cluster', 'simple'], ['simple', 'cluster']]) {
    const d = decide(tiedPair([first, g, 100], [second, g, near]))
    assert.equal(d.server, 'simple', `${first} first`)
    assert.deepEqual(d.decidedBy.tieBreak, { by: 'simpler', servers: ['simple', 'cluster'] })
    assert.equal(ruleText(d), 'tie on capacity, broken by the simpler strategy (simple before cluster)')
    assert.equal(d.alternative.server, 'cluster')
  }
  assert.ok(TIE.simplicity.indexOf('simple') < TIE.simplicity.indexOf('cluster'))
  // nothing measured past capacity and no memory: the simpler strategy all the same
  const bare = decide(report(
    result('cluster', [[100, 83, 88]]), result('child-process', [[100, 80, 86]]), result('simple', [[100, 81, 87]])
  ))
  assert.equal(bare.server, 'simple')
  assert.equal(bare.alternative.server, 'cluster', 'the next simplest')
  assert.equal(bare.alternative.command, 'node servers/cluster')
})

test('decision refuses on disturbed or missing evidence: a disturbed winner (tied or not), runs disagree, none', () => {
  const tiedDisturbed = decide(report(
    result('simple', [[100, 80, 86]], { trusted: false, untrusted: ['disturbed: steal 9 % > 5 %'] }),
    result('cluster', [[100, 83, 88]])
  ))
  assert.equal(tiedDisturbed.server, 'simple', 'the tie names simple (the simpler strategy) ...')
  assert.equal(tiedDisturbed.refused.reason, 'disturbed', '... whose sweep was disturbed: a refusal')
  const offers = (l) => l.label === 'Alternative' || l.command
  assert.ok(!decisionLines(tiedDisturbed).some(offers), 'a refusal offers no command')
  const disturbed = decide(report(
    result('simple', [[100, 40, 44]]),
    result('cluster', [[100, 80, 84]], { trusted: false, untrusted: ['disturbed: 2 of 9 steps: step 3 (steal 9 % > 5 %)'] })
  ))
  assert.equal(disturbed.refused.reason, 'disturbed')
  assert.match(refusalText(disturbed.refused), /steal 9 %/)
  assert.equal(disturbed.key, 'cluster@loop:3e7#capacity', 'the refused winner is still named')
  const runs = [{ rps: 80, bracket: { pass: 80, fail: 84 } }, { rps: 95, bracket: { pass: 95, fail: 99 } }]
  const disagree = decide(report(result('simple', [[100, 40, 44]]), result('cluster', [[100, 80, 84]], { runs })))
  assert.equal(disagree.refused.reason, 'runs-disagree')
  assert.deepEqual(runsDisagree({ capacity: { runs } }), { held: 95, failed: 84 })
  assert.equal(runsDisagree({ capacity: { runs: [runs[0], { rps: 82, bracket: { pass: 82, fail: 86 } }] } }), null)
  const none = decide(report(result('simple', [[100, null, 3]])))
  assert.equal(none.refused.reason, 'none-meets')
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

// A probe of past capacity (run/round/past-capacity.js) as a result keeps it: goodput share of C at 1.5 and
// 2 × C, shed share at 2 ×, recovery after the burst (null: not seen within the 15 s watched).
function probe (variant, [g15, g2], recoverySec, { shed = 0, flags = null } = {}) {
  const deadline = '--deadline auto --slo 100'
  const shedding = {
    'queued-threads': deadline,
    'queued-processes': deadline,
    cluster: '--shed-loop-delay 40',
    simple: '--shed-loop-delay 40'
  }
  const recovery = recoverySec === null
    ? { ms: null, metastable: true, burstEndMs: 5000, observedMs: 20000 }
    : { ms: recoverySec * 1000, metastable: false, burstEndMs: 5000, observedMs: 5000 + recoverySec * 1000 + 3000 }
  return (server) => ({
    variant,
    label: variant ? 'shedding' : server === 'queued-threads' ? 'unbounded queue' : 'no shedding',
    ...(variant ? { shedding: shedding[server], flags: flags ?? shedding[server].split(' ') } : { flags: [] }),
    overload: {
      steps: [
        { multiple: 1.5, goodputShare: g15, shedShare: shed / 2 },
        { multiple: 2, goodputShare: g2, shedShare: shed }
      ],
      recovery
    }
  })
}

// A capacity result with its probes (`past`: [probe(...)]) and the args its sweep ran with.
function probed (key, targets, past, { args = ['--work', 'loop:3e7'] } = {}) {
  const r = result(key, targets)
  return { ...r, args, pastCapacity: past.map((p) => p(r.server)) }
}

const COLLAPSING = [probe(null, [0, 0], 44), probe('deadline', [0.3, 0.2], 12)]

test('past capacity: a collapsing winner is replaced by a close survivor, its own shedding setting first', () => {
  const d = decide(report(
    probed('queued-threads', [[100, 80, 84]], [probe(null, [0, 0], 44), probe('deadline', [0.9, 0.86], 0, { shed: 0.57 })]),
    probed('cluster', [[100, 70, 73]], [probe(null, [0.17, 0.04], 17), probe('under-pressure', [0.16, 0.22], 3)])
  ))
  assert.equal(d.refused, null)
  assert.equal(d.server, 'queued-threads')
  assert.equal(d.variant, 'deadline')
  assert.equal(d.command, 'node servers/queued-threads --work loop:3e7 --deadline auto --slo 100')
  const kept = { goodputShare: { 1.5: 0.9, 2: 0.86 }, shedShare: 0.57, recoverySec: 0, collapses: false }
  assert.deepEqual(d.pastCapacity, kept)
  assert.equal(pastRuleText(d.pastRule), 'queued-threads (unbounded queue) collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; ' +
    'with --deadline auto --slo 100 it keeps 86 %')
  assert.match(ruleText(d), /^past capacity: /)
  assert.equal(d.planRps, 80 * PAST.headroom, 'the plan rate stays the capacity\'s')
  // another strategy within 10 % that keeps (and does not tie: 8.75 % under, brackets apart) replaces a winner
  // whose every configuration collapses
  const other = decide(report(
    probed('queued-threads', [[100, 80, 84]], COLLAPSING),
    probed('cluster', [[100, 73, 76]], [probe(null, [0.95, 0.85], 2), probe('under-pressure', [0.9, 0.8], 1)])
  ))
  assert.equal(other.server, 'cluster')
  assert.equal(other.variant, null, 'as swept: the higher of its two configurations that keep')
  assert.equal(other.command, 'node servers/cluster --work loop:3e7')
  assert.equal(other.runnerUp.server, 'queued-threads')
  assert.match(pastRuleText(other.pastRule), /; cluster \(no shedding\) keeps 85 % at 73 req\/s$/)
})

test('past capacity: a collapsing winner is kept, with its line, when no survivor is within 10 % of it', () => {
  const d = decide(report(
    probed('queued-threads', [[100, 80, 84]], COLLAPSING),
    probed('cluster', [[100, 70, 73]], [probe(null, [0.95, 0.9], 1)]) // close (15 %) and probed, but 12.5 % below
  ))
  assert.equal(d.server, 'queued-threads')
  assert.equal(d.variant, null)
  assert.equal(d.refused, null)
  assert.equal(d.pastCapacity.collapses, true)
  assert.equal(pastRuleText(d.pastRule), 'queued-threads (unbounded queue) collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; ' +
    'no configuration within 10 % of its capacity keeps 80 %')
  assert.equal(ruleText(d), 'highest capacity, brackets apart')
})

test('past capacity: every close candidate collapses: said, and the setting that would shed named', () => {
  const d = decide(report(
    probed('queued-threads', [[100, 80, 84]], COLLAPSING),
    // close (within 15 %) but no tie (10 % under)
    probed('cluster', [[100, 72, 74]], [probe(null, [0.17, 0.04], null), probe('under-pressure', [0.16, 0.22], 3)])
  ))
  assert.equal(d.server, 'queued-threads')
  assert.equal(d.variant, null)
  assert.match(pastRuleText(d.pastRule), /collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; every close candidate collapses too; /)
  assert.match(pastRuleText(d.pastRule), /the setting that would shed: --deadline auto --slo 100 \(queued-threads with --deadline auto --slo 100: goodput 30 % at 1.5 ×, recovery 12 s\)$/)
  assert.equal(whyText(pastOf(probe(null, [0.17, 0.04], null)('cluster')).why[1]), 'no recovery within 15 s')
  // a probe that stopped at its collapse (1.5 × C): collapses on its goodput, its recovery not watched
  const stopped = probe(null, [0.2, 0], 0)('queued-threads')
  stopped.overload = { steps: stopped.overload.steps.slice(0, 1), collapsedAt: 1.5, recovery: null }
  const past = pastOf(stopped)
  assert.deepEqual([past.collapses, past.keeps, past.collapsedAt], [true, false, 1.5])
  assert.deepEqual(past.why.map(whyText), ['goodput 20 % at 1.5 ×'])
  assert.equal(pastCapacityTable([{ name: 'queued-threads', config: 'as swept', setting: 'unbounded queue', points: [], past }]).rows[0].at(-2), 'not watched')
})

test('past capacity: the thresholds, each on its edge', () => {
  const at = (g, rec) => pastOf(probe(null, [g, 0.9], rec)('simple'))
  assert.equal(PAST.collapseShare, 0.5)
  assert.equal(at(0.5, 10).collapses, false, 'half of C at 1.5 × and 10 s are not a collapse')
  assert.equal(at(0.49, 10).collapses, true)
  assert.equal(at(0.9, 10.1).collapses, true)
  assert.equal(at(0.8, 0).keeps, true)
  assert.equal(at(0.79, 0).keeps, false, 'keeps: at least 80 % at every multiple')
  assert.equal(pastOf(probe(null, [0.9, 0.79], 0)('simple')).keeps, false)
  // a candidate more than 15 % below the winner is not probed; one whose bracket overlaps always is
  const r = (key, t) => result(key, [[100, ...t]])
  assert.deepEqual(closeCandidates(report(r('queued-threads', [80, 84]), r('cluster', [68, 70]), r('simple', [67, 69]))).map((x) => x.server),
    ['queued-threads', 'cluster'])
  assert.deepEqual(closeCandidates(report(r('queued-threads', [80, 84]), r('cluster', [60, 81]))).map((x) => x.server), ['queued-threads', 'cluster'])
})

test('past capacity tells strategies tied on capacity apart first; when both keep, the tie rule names one', () => {
  const keeps = [probe(null, [0.9, 0.85], 1)]
  const broken = decide(report(
    probed('queued-threads', [[100, 80, 86]], COLLAPSING),
    probed('cluster', [[100, 79, 85]], keeps)
  ))
  assert.equal(broken.refused, null)
  assert.equal(broken.server, 'cluster')
  assert.equal(broken.decidedBy.rule, 'past-capacity')
  assert.equal(broken.alternative.server, 'queued-threads', 'still a tie on capacity: the other offered')
  const both = decide(report(probed('queued-threads', [[100, 80, 86]], keeps), probed('cluster', [[100, 79, 85]], keeps)))
  assert.equal(both.refused, null)
  assert.equal(both.server, 'cluster', 'equal past capacity, no memory figure: the simpler strategy')
  assert.deepEqual(both.decidedBy.tieBreak, { by: 'simpler', servers: ['cluster', 'queued-threads'] })
  assert.equal(both.alternative.command, 'node servers/queued-threads --work loop:3e7')
})

test('rankingChanges: a new leader only where the brackets are apart at the looser target; else a tie', () => {
  const tie = rankingChanges([
    result('queued-threads', [[100, 76, 78], [250, 78, 79], [600, 79.3, 85.4]]),
    result('cluster', [[100, 73, 75], [250, 76, 79], [600, 79.4, 85.4]])
  ])
  assert.equal(tie.length, 1)
  assert.equal(tie[0].tie, true)
  assert.deepEqual(tie[0].brackets.map(bracketText), ['79.3–85.4', '79.4–85.4'])
  const apart = rankingChanges([
    result('queued-threads', [[100, 76, 78], [600, 79, 80]]),
    result('cluster', [[100, 73, 75], [600, 90, 95]])
  ])
  assert.equal(apart[0].tie, false)
})

test('decision.command: the flags of the setting, the shedding variant and the task, for each server', () => {
  const task = ['--task', '/home/me/app/src/render.js#page', '--input', '{"n": 1}', '--task-timeout', '30000']
  const cases = [
    ['simple', [], probe('under-pressure', [0.9, 0.9], 0), 'node servers/simple --work loop:3e7 --shed-loop-delay 40'],
    ['cluster[workers=4]', ['--workers', '4'], probe('under-pressure', [0.9, 0.9], 0), 'node servers/cluster --work loop:3e7 --workers 4 --shed-loop-delay 40'],
    ['queued-threads[threads=3]', ['--threads', '3'], probe('deadline', [0.9, 0.9], 0), 'node servers/queued-threads --work loop:3e7 --threads 3 --deadline auto --slo 100'],
    ['child-process', [], null, 'node servers/child-process --work loop:3e7'],
    ['worker-per-request', [], null, 'node servers/worker-per-request --work loop:3e7'],
    ['cluster-threads[workers=2]', ['--workers', '2'], null, 'node servers/cluster-threads --work loop:3e7 --workers 2']
  ]
  for (const [key, setting, shed, command] of cases) {
    const past = shed ? [probe(null, [0, 0], 44), shed] : [probe(null, [0.9, 0.9], 0)]
    const d = decide(report(probed(key, [[100, 80, 84]], past, { args: ['--work', 'loop:3e7', ...setting] })))
    assert.equal(d.command, command)
  }
  const withTask = report(probed('queued-threads', [[100, 80, 84]], [probe(null, [0, 0], 44), probe('deadline', [0.9, 0.9], 0)], { args: task }))
  assert.equal(decide(withTask).command,
    'node servers/queued-threads --task /home/me/app/src/render.js#page --input \'{"n": 1}\' --task-timeout 30000 --deadline auto --slo 100')
  assert.equal(decide(withTask, { form: 'loadlab', cwd: '/home/me/app' }).command,
    'loadlab server queued-threads --task ./src/render.js#page --input \'{"n": 1}\' --task-timeout 30000 --deadline auto --slo 100')
  // not probed (an older report, the overload experiment): the configuration as swept
  assert.equal(decide(report(result('simple', [[100, 40, 44]]))).command, 'node servers/simple')
})

test('decision: the search\'s cost is its sweeps\' requests and seconds, the time left out where a sweep was not timed', () => {
  const cost = (r, requests, sec) => ({ ...r, capacity: { ...r.capacity, cost: { requests, sec } } })
  const d = decide(report(
    cost(result('simple', [[100, 40, 44]]), 1200, 61.25),
    cost(result('queued-threads', [[100, 80, 84]]), 2400, 538.8)
  ))
  assert.deepEqual(d.search, { sweeps: 2, requests: 3600, sec: 600.1 })
  assert.deepEqual(decisionLines(d).find((l) => l.label === 'Search'),
    { label: 'Search', text: '2 sweeps in 10 min 0 s, 3,600 requests' })
  const old = decide(report(result('simple', [[100, 40, 44]]), cost(result('cluster', [[100, 30, 33]]), 900, null)))
  assert.deepEqual(old.search, { sweeps: 2, requests: null, sec: null })
  assert.equal(decisionLines(old).find((l) => l.label === 'Search').text, '2 sweeps')
})
