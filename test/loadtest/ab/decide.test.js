// ab's decision on built blocks (loadtest/ab/decide.js): identical arms are called different at no
// more than the rule's rate, a clear × 2 is called, the cap leaves undecided with the change the
// pairs could have shown, tight identical arms are the same; the rule book's per-look level holds
// its simulated rate.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  crossed, decide, normals, pairOrders, pairsOf, simulatedFalseAlarms, stopOf
} from '../../../loadtest/ab/decide.js'
import { AB } from '../../../loadtest/result/rules.js'

// Blocks of `pairs` pairs: A's figures `base`, B's `base` × `factor` per figure, each block's log
// figures moved by a shared drift and its own noise of `sd` (seeded), each pair in the seeded
// order.
function blocks ({ pairs, factor = {}, sd = 0.1, seed = 1 }) {
  const base = { rps: 100, p50: 20, p99: 60 }
  const noise = normals(seed)
  const orders = pairOrders(seed, pairs)
  return orders.flatMap((order, i) => {
    const drift = noise() * 0.3 // the machine moves between pairs: paired ratios cancel it
    const make = (arm) => Object.fromEntries(Object.entries(base).map(([k, v]) =>
      [k, v * (arm === 'B' ? factor[k] ?? 1 : 1) * Math.exp(drift + sd * noise())]))
    return [...order].map((arm, p) =>
      ({ pair: i + 1, position: p + 1, arm, status: 'ok', ...make(arm) }))
  })
}

const called = (d, f) => d.figures.find((x) => x.figure === f)

test('ab decide: pairsOf reads each pair\'s order from its blocks\' positions', () => {
  const b = blocks({ pairs: 6, seed: 5 })
  assert.deepEqual(pairsOf(b).map((p) => p.order), pairOrders(5, 6))
  assert.ok(new Set(pairOrders(5, 40)).size === 2, 'both orders are drawn')
  assert.deepEqual(pairOrders(9, 10), pairOrders(9, 10), 'seeded: the same seed, the same orders')
})

test('ab decide: identical arms are called different in at most the rule\'s share of comparisons, over every look', () => {
  let different = 0
  const perFigure = { rps: 0, p50: 0, p99: 0 }
  const trials = 300
  for (let seed = 1; seed <= trials; seed++) {
    const d = decide(blocks({ pairs: AB.maxPairs, sd: 0.15, seed }))
    const alarms = d.figures.filter((f) => f.verdict === 'better' || f.verdict === 'worse')
    for (const f of alarms) perFigure[f.figure]++
    if (alarms.length) different++
  }
  // a figure: the rule's rate, with two standard errors of 300 draws; a comparison's three figures:
  // a union bound
  const se = Math.sqrt(AB.falseAlarms * (1 - AB.falseAlarms) / trials)
  for (const [f, n] of Object.entries(perFigure)) {
    assert.ok(n / trials <= AB.falseAlarms + 2 * se, `${f}: ${n}`)
  }
  assert.ok(different / trials <= 3 * AB.falseAlarms, `${different} of ${trials}`)
})

test('ab decide: the rule book\'s per-look level keeps the simulated false alarms at the rule\'s rate', () => {
  const rate = simulatedFalseAlarms({ trials: 4000, seed: 11 })
  const se = Math.sqrt(AB.falseAlarms * (1 - AB.falseAlarms) / 4000)
  assert.ok(rate <= AB.falseAlarms + 2 * se, `${rate}`)
  assert.ok(rate > AB.falseAlarms / 2, `${rate}: a level far too strict costs power`)
})

test('ab decide: a clear × 2 is called worse within a few pairs, and the run stops decided', () => {
  const b = blocks({ pairs: 8, factor: { rps: 0.5, p50: 2, p99: 2 }, sd: 0.1, seed: 3 })
  const d = decide(b)
  for (const f of ['rps', 'p50', 'p99']) {
    assert.equal(called(d, f).verdict, 'worse', f)
    assert.ok(called(d, f).decidedAt <= 6, `${f} at ${called(d, f).decidedAt}`)
    assert.ok(called(d, f).low <= called(d, f).ratio && called(d, f).ratio <= called(d, f).high)
  }
  assert.equal(stopOf({ decision: d, pairSec: 10, elapsed: 80 }), 'decided')
  const faster = decide(blocks({ pairs: 8, factor: { rps: 2, p50: 0.5, p99: 0.5 }, seed: 3 }))
  assert.deepEqual(faster.figures.map((f) => f.verdict), ['better', 'better', 'better'])
})

test('ab decide: tight identical arms are the same once the interval lies inside the effect', () => {
  const d = decide(blocks({ pairs: 10, sd: 0.02, seed: 4 }))
  for (const f of d.figures) {
    assert.equal(f.verdict, 'same', f.figure)
    assert.ok(f.low > 1 / AB.effect && f.high < AB.effect)
  }
  // a looser effect is the same sooner, never later
  const loose = decide(blocks({ pairs: 10, sd: 0.02, seed: 4 }), { effect: 2 })
  for (const [i, f] of loose.figures.entries()) assert.ok(f.decidedAt <= d.figures[i].decidedAt)
})

test('ab decide: at the cap a figure is undecided, with the smallest change its pairs could have shown', () => {
  const d = decide(blocks({ pairs: 5, sd: 0.5, seed: 2 }))
  assert.equal(d.decided, false)
  assert.equal(stopOf({ decision: d, pairSec: 60, elapsed: 280 }), 'max-time')
  assert.equal(stopOf({ decision: d, pairSec: 10, elapsed: 100 }), null, 'room for a pair: go on')
  const f = d.figures.find((x) => x.verdict === 'undecided')
  assert.ok(f, 'a noisy figure stays undecided')
  assert.ok(f.detectable > f.high / f.ratio, `${f.detectable}: beyond the interval's half-width`)
  assert.ok(Number.isFinite(f.detectable))
  // more pairs of the same noise could show a smaller change
  const more = decide(blocks({ pairs: 30, sd: 0.5, seed: 2 }), { effect: 1.01 })
  const g = more.figures.find((x) => x.figure === f.figure)
  if (g.verdict === 'undecided') assert.ok(g.detectable < f.detectable)
  // the rule's last look
  const last = { decided: false, pairs: AB.maxPairs }
  assert.equal(stopOf({ decision: last, pairSec: 1, elapsed: 1 }), 'max-pairs')
})

test('ab decide: under the first look the ratio alone, undecided; a block without a figure ends that figure', () => {
  const d = decide(blocks({ pairs: AB.minPairs - 1, seed: 6 }))
  for (const f of d.figures) {
    assert.equal(f.verdict, 'undecided')
    assert.equal(f.low, null)
    assert.ok(f.ratio > 0)
  }
  const b = blocks({ pairs: 6, seed: 6 })
  b[2].p99 = null
  const g = decide(b).figures.find((x) => x.figure === 'p99')
  assert.equal(g.verdict, 'undecided')
  assert.equal(g.missing, 2)
})

test('ab decide: --fail-on is crossed by a worse verdict past its bound only', () => {
  const worse = { figure: 'rps', verdict: 'worse', ratio: 0.8 }
  assert.equal(crossed(worse, { metric: 'rps', bound: 0.1 }), true)
  assert.equal(crossed(worse, { metric: 'rps', bound: 0.25 }), false)
  assert.equal(crossed({ ...worse, verdict: 'undecided' }, { metric: 'rps', bound: 0.1 }), false)
  const slower = { figure: 'p99', verdict: 'worse', ratio: 1.3 }
  assert.equal(crossed(slower, { metric: 'p99', bound: 0.2 }), true)
  assert.equal(crossed(worse, { metric: 'p99', bound: 0.1 }), false)
})
