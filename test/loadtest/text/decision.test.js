// The decision in words (text/decision.js): each rule, reason and bracket of result/decision.js's data as
// the outputs write it, and a report that carries the words already printed as it is.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bracketText, configName, pastRuleText, refusalText, ruleText, separationText, whyText } from '../../../loadtest/text/decision.js'

test('brackets, tie breaks and the rule that decided, in words', () => {
  assert.equal(bracketText({ rps: 41.23, bracket: { pass: 41.23, fail: 45 } }), '41.2–45')
  assert.equal(bracketText({ rps: 41.23, bracket: { pass: 41.23, fail: null } }), '≥ 41.2')
  assert.equal(bracketText({ pass: 79.31, fail: 85.44 }), '79.3–85.4', 'a bracket as the decision keeps it')
  assert.equal(ruleText({ decidedBy: { rule: 'brackets-apart' } }), 'highest capacity, brackets apart')
  assert.equal(ruleText({ decidedBy: { rule: 'tie-broken', tieBreak: { by: 'goodput', multiple: 2, shares: [0.7, 0.3] } } }),
    'tie on capacity, broken by goodput at 2 × capacity (70 % against 30 %)')
  assert.equal(ruleText({ decidedBy: { rule: 'tie-broken', tieBreak: { by: 'peak-rss', bytes: [90 * 2 ** 20, 120 * 2 ** 20] } } }),
    'tie on capacity, broken by peak RSS (90 MB against 120 MB)')
  const simpler = { by: 'simpler', servers: ['simple', 'cluster'] }
  assert.equal(ruleText({ decidedBy: { rule: 'tie-broken', tieBreak: simpler } }),
    'tie on capacity, broken by the simpler strategy (simple before cluster)')
  assert.equal(ruleText({ decidedBy: { rule: 'tie-broken', tieBreak: { by: 'capacity', rps: [82.04, 80] } } }),
    'tie on capacity, broken by the higher capacity measured (82 against 80 req/s)')
  // an older report's rule, from when a tie could stay unbroken
  assert.equal(ruleText({ decidedBy: { rule: 'tie-not-broken' } }), 'tie on capacity, not broken')
  assert.equal(ruleText({ decidedBy: 'highest capacity, brackets apart (as written)' }), 'highest capacity, brackets apart (as written)')
})

test('what collapsed, configurations and the past-capacity rule, in words', () => {
  assert.equal(whyText({ goodputShare: 0, multiple: 1.5 }), 'goodput 0 % at 1.5 ×')
  assert.equal(whyText({ recoverySec: 44 }), 'recovery 44 s')
  assert.equal(whyText({ recoverySec: null, watchedSec: 15 }), 'no recovery within 15 s')
  assert.equal(whyText({ recoverySec: null, watchedSec: null }), 'no recovery within ? s')
  const swept = { server: 'queued-threads', setting: null, shedding: null, label: 'unbounded queue' }
  assert.equal(configName(swept), 'queued-threads (unbounded queue)')
  assert.equal(configName({ server: 'queued-threads', setting: { name: 'threads', value: 2 }, shedding: '--deadline auto' }),
    'queued-threads with threads=2 with --deadline auto')
  const why = [{ goodputShare: 0, multiple: 1.5 }, { recoverySec: 44 }]
  const head = { config: swept, collapses: true, why, kept: 0 }
  const survivor = { config: { ...swept, shedding: '--deadline auto' }, same: true, kept: 0.86 }
  assert.equal(pastRuleText({ ...head, outcome: 'survivor', survivor }),
    'queued-threads (unbounded queue) collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; with --deadline auto it keeps 86 %')
  assert.equal(pastRuleText({ ...head, outcome: 'all-collapse', shed: null }),
    'queued-threads (unbounded queue) collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; every close candidate collapses too; ' +
    'no shedding setting was probed')
  assert.equal(pastRuleText({ ...head, collapses: false, why: [], kept: 0.5, outcome: 'none-keeps', within: 0.1, keepShare: 0.8 }),
    'queued-threads (unbounded queue) keeps only 50 % past capacity; no configuration within 10 % of its capacity keeps 80 %')
  assert.equal(pastRuleText({ ...head, collapses: false, why: [], kept: 0.9, outcome: 'keeps', lost: ['cluster'] }),
    'queued-threads (unbounded queue) keeps 90 % of capacity past it; cluster collapse past capacity')
})

test('refusals and the runner-up\'s separation, in words; words already written pass as they are', () => {
  // a tie refused: an older report's refusal, said as it was
  assert.equal(refusalText({ reason: 'tie', keys: ['a', 'b'], brackets: [{ pass: 83, fail: 88 }, { pass: 80, fail: 86 }], lean: null }),
    'a and b tie: their brackets overlap (83–88 and 80–86)')
  assert.match(refusalText({ reason: 'tie', keys: ['a', 'b'], brackets: [], lean: { key: 'b', tieBreak: { by: 'peak-rss', bytes: [2 ** 20, 2 ** 21] } } }),
    /; b leads on peak RSS \(1 MB against 2 MB\), not enough to choose between strategies$/)
  assert.equal(refusalText({ reason: 'disturbed', keys: ['a'], reasons: ['x', 'y', 'z'] }),
    "a's sweep is not to be taken at face value: x; y; and 1 more (the report's trust section)")
  assert.equal(refusalText({ reason: 'runs-disagree', keys: ['a'], held: 50.04, failed: 48.96 }),
    "a's sweeps disagree beyond their brackets: one held 50 req/s, another failed at 49")
  assert.equal(refusalText({ reason: 'none-meets', keys: [], sloMs: 123 }), 'no strategy held p99 ≤ 123 ms at any rate tried')
  assert.equal(refusalText({ reason: 'none-meets', keys: [], sloMs: 10 }, 95), 'no strategy held p95 ≤ 10 ms at any rate tried')
  assert.equal(refusalText({ reason: 'tie', keys: [], text: 'as written' }), 'as written')
  const runnerUp = { capacityRps: 80, bracket: { pass: 80, fail: 84 }, separation: { apart: true, ratio: 0.5 } }
  const d = { capacityRps: 40, bracket: { pass: 40, fail: 44 }, decidedBy: { rule: 'past-capacity' }, pastRule: 'kept more', runnerUp }
  assert.equal(separationText(d), 'brackets apart: 40–44 against 80–84 req/s (0.5 ×); past capacity: kept more')
  const overlapping = { ...runnerUp, bracket: { pass: 38, fail: 42 }, separation: { apart: false, ratio: 1 } }
  assert.equal(separationText({ ...d, runnerUp: overlapping }),
    'past capacity: kept more (brackets 40–44 and 38–42 req/s overlap)')
})
