// report/read.js upgradeReport: an older lab's report wrote a capacity's bound in words; read today, each
// becomes its code (and an undecided one's why, its code with its figures), and text/ says the same words.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { upgradeBound, upgradeReport } from '../../../loadtest/report/read.js'
import { boundText } from '../../../loadtest/text/reasons.js'

// Every bound an older lab wrote, with the code it reads as today.
const OLD = [
  ['refined', { bound: 'refined' }],
  ['at least', { bound: 'at-least' }],
  ['cannot meet the target', { bound: 'cannot-meet' }],
  ['below the lowest rate offered', { bound: 'below-lowest' }],
  ['no capacity at this target', { bound: 'no-target' }],
  ['undecided: budget spent', { bound: 'undecided', undecided: { code: 'budget-spent' } }],
  ['undecided: step limit reached', { bound: 'undecided', undecided: { code: 'step-limit' } }],
  ['undecided: a failure at the lowest rate not confirmed', { bound: 'undecided', undecided: { code: 'lowest-pending' } }],
  ['undecided: too few requests at the lowest rate', { bound: 'undecided', undecided: { code: 'few-at-lowest' } }],
  ['undecided: no step', { bound: 'undecided', undecided: { code: 'no-step' } }],
  ['undecided: the floor was not measured where requests do not overlap (rate × p50 0.82 > 0.5)',
    { bound: 'undecided', undecided: { code: 'floor-overlap', overlap: 0.82, limit: 0.5 } }],
  ['undecided: the floor was not measured where requests do not overlap (no answer)',
    { bound: 'undecided', undecided: { code: 'floor-overlap', overlap: null, limit: null } }]
]

test('upgradeBound: each old bound becomes its code, and boundText says the old words again', () => {
  for (const [words, code] of OLD) {
    const c = upgradeBound({ rps: null, bound: words })
    assert.deepEqual(c, { rps: null, ...code }, words)
    if (code.undecided?.limit !== null) assert.equal(boundText(c), words)
    assert.deepEqual(upgradeBound(c), { rps: null, ...code }, `${words}: a code is left as it is`)
  }
  // a why no lab of this name wrote keeps its words
  const odd = upgradeBound({ bound: 'undecided: the moon' })
  assert.deepEqual(odd.undecided, { code: 'unknown', text: 'the moon' })
  assert.equal(boundText(odd), 'undecided: the moon')
})

test('upgradeReport: every capacity of a report (sweeps, targets, runs, the decision) is upgraded in place', () => {
  const cap = (bound) => ({ rps: null, bound })
  const report = {
    results: [
      { capacity: { capacity: cap('at least'), targets: [cap('cannot meet the target')], runs: [cap('undecided: no step')] } },
      { capacity: null },
      { kind: 'dispatch' }
    ],
    decision: {
      bound: 'refined',
      target: cap('at least'),
      runnerUp: cap('at least'),
      targets: [cap('undecided: budget spent')],
      unmet: [{ key: 'a', bound: 'no capacity at this target' }]
    }
  }
  assert.equal(upgradeReport(report), report)
  const sweep = report.results[0].capacity
  assert.deepEqual([sweep.capacity.bound, sweep.targets[0].bound, sweep.runs[0].undecided], ['at-least', 'cannot-meet', { code: 'no-step' }])
  const d = report.decision
  assert.deepEqual([d.bound, d.target.bound, d.runnerUp.bound, d.targets[0].undecided.code, d.unmet[0].bound],
    ['refined', 'at-least', 'at-least', 'budget-spent', 'no-target'])
  assert.deepEqual(upgradeReport({ results: 'not a list' }), { results: 'not a list' }, 'a malformed report is left to the schema')
})

test('upgradeReport: a decision\'s rule, tie-break, past-capacity outcome and refusal read as their codes', () => {
  const report = {
    results: [],
    decision: {
      decidedBy: { rule: 'tie broken', tieBreak: { by: 'peak RSS', bytes: [1, 2] } },
      pastRule: { outcome: 'none keeps' },
      refused: { reason: 'none meets the target', lean: { key: 'a', tieBreak: { by: 'peak RSS' } } }
    }
  }
  const d = upgradeReport(report).decision
  const { decidedBy: by, pastRule, refused } = d
  const got = [by.rule, by.tieBreak.by, pastRule.outcome, refused.reason, refused.lean.tieBreak.by]
  assert.deepEqual(got, ['tie-broken', 'peak-rss', 'none-keeps', 'none-meets', 'peak-rss'])
  const words = { decidedBy: 'highest capacity, brackets apart', refused: { reason: 'toString' } }
  assert.deepEqual(upgradeReport({ results: [], decision: words }).decision, words, 'words as a whole, or no old form, are left')
})
