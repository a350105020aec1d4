// Ratios paired by round (result/paired.js) on built results: the sign-flip interval's coverage is
// exact over the sign-flip distribution, pairs are matched by round, the baseline is chosen as
// stated, a machine's ranking follows its ratios with ties where the intervals meet.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  baselineOf, pairedOf, pairedRanking, pairedRatio, rankFigure, ratiosApart, signFlipInterval
} from '../../../loadtest/result/paired.js'
import { PAIRED } from '../../../loadtest/result/rules.js'

// Every assignment of signs to `magnitudes`: the distribution the sign-flip test stands on.
function signings (magnitudes) {
  const out = []
  for (let m = 0; m < 2 ** magnitudes.length; m++) out.push(magnitudes.map((x, i) => ((m >> i) & 1 ? -x : x)))
  return out
}

test('paired: fewer pairs than the rule book\'s minRounds give no interval; the minimum follows from the confidence', () => {
  assert.equal(PAIRED.minRounds, Math.ceil(Math.log2(2 / (1 - PAIRED.confidence))))
  assert.equal(signFlipInterval([0.1, 0.2, 0.3, 0.1].slice(0, PAIRED.minRounds - 1)), null)
  const r = pairedRatio([[110, 100], [120, 100]])
  assert.equal(r.low, null)
  assert.equal(r.why, 'too-few-pairs')
  assert.equal(r.needs, PAIRED.minRounds)
  assert.equal(r.pairs, 2)
})

test('paired: over every signing of the same magnitudes, the interval misses 0 exactly 2k times in 2^n', () => {
  for (const magnitudes of [[0.11, 0.32, 0.05, 0.21, 0.17], [0.3, 0.07, 0.19, 0.42, 0.013, 0.25, 0.09]]) {
    const n = magnitudes.length
    const k = Math.floor((2 ** n * (1 - PAIRED.confidence)) / 2)
    const all = signings(magnitudes)
    const missed = all.filter((d) => {
      const iv = signFlipInterval(d)
      return iv.low > 0 || iv.high < 0
    }).length
    assert.equal(missed, 2 * k, `n = ${n}`)
    const iv = signFlipInterval(all[3])
    assert.equal(iv.coverage, 1 - (2 * k) / 2 ** n)
    assert.ok(iv.coverage >= PAIRED.confidence)
  }
})

test('paired: the interval holds the mean, and moves with a shift of every log ratio', () => {
  const d = [0.12, 0.08, 0.15, 0.1, 0.11, 0.09]
  const mean = d.reduce((a, x) => a + x, 0) / d.length
  const iv = signFlipInterval(d)
  assert.ok(iv.low <= mean && mean <= iv.high)
  const shifted = signFlipInterval(d.map((x) => x + 0.5))
  assert.ok(Math.abs(shifted.low - iv.low - 0.5) < 1e-12 && Math.abs(shifted.high - iv.high - 0.5) < 1e-12)
  // five pairs: k = 1, the extremes
  assert.deepEqual(signFlipInterval(d.slice(0, 5)), { low: 0.08, high: 0.15, coverage: 1 - 2 / 32 })
})

test('paired: past maxExactRounds the drawn subsets give the same interval each time, around the mean', () => {
  const d = Array.from({ length: PAIRED.maxExactRounds + 2 }, (_, i) => 0.1 + 0.02 * Math.sin(i * 7))
  const a = signFlipInterval(d)
  assert.deepEqual(signFlipInterval(d), a)
  const mean = d.reduce((s, x) => s + x, 0) / d.length
  assert.ok(a.low < mean && mean < a.high)
  assert.ok(a.coverage >= PAIRED.confidence)
})

// A built HTTP result with rounds: `rps` per round (and p50, p99 from it), `rounds` their lab
// rounds.
function result (server, rps, { rounds = rps.map((_, i) => i + 1), status = 'ok', capacity = null } = {}) {
  return {
    kind: 'http',
    key: `${server}@loop:1e6`,
    server,
    status,
    runs: rps.map((x, i) => ({ round: rounds[i], place: 1, rps: x, latency: { p50: 1000 / x, p99: 2000 / x } })),
    capacity: capacity && { runs: capacity.map((c, i) => ({ rps: c, round: i + 1 })) }
  }
}

test('paired: each entry over the baseline in the same round, matched by round, not by place in the list', () => {
  const base = result('simple', [100, 200, 100, 200, 100])
  // the same rounds listed in another order: cluster is 1.5 × simple in every round
  const cluster = result('cluster', [300, 150, 150, 300, 150], { rounds: [2, 1, 3, 4, 5] })
  const p = pairedOf([base, cluster])
  assert.equal(p.baseline, 'simple@loop:1e6')
  assert.equal(p.rounds, 5)
  const f = p.entries[0].figures
  assert.equal(f.rps.ratio, 1.5)
  assert.equal(f.rps.low, 1.5)
  assert.equal(f.rps.high, 1.5)
  assert.equal(f.p99.ratio, 0.6667) // latency: under 1 is faster
  assert.equal(f.capacity, null)
})

test('paired: the baseline is --baseline (key or server), else the first HTTP result; a failed one is said', () => {
  const results = [result('simple', [1, 2]), result('cluster', [2, 4]), result('queued-threads', [3, 6])]
  assert.equal(baselineOf(results).server, 'simple')
  assert.equal(baselineOf(results, 'cluster').server, 'cluster')
  assert.equal(baselineOf(results, 'queued-threads@loop:1e6').server, 'queued-threads')
  assert.equal(pairedOf(results, { baseline: 'cluster' }).entries.map((e) => e.server).join(), 'simple,queued-threads')
  const failed = [result('simple', [1, 2], { status: 'failed' }), results[1]]
  assert.deepEqual(pairedOf(failed).entries, [])
  assert.equal(pairedOf(failed).why, 'baseline-failed')
  assert.equal(pairedOf(results, { baseline: 'nope' }).why, 'baseline-missing')
  assert.equal(pairedOf([result('simple', [1])]), null, 'one round: nothing to pair')
})

test('paired: capacity pairs each sweep\'s capacity with the baseline\'s of the same round; a null one drops out', () => {
  const base = result('simple', [], { capacity: [100, 110, 90, 100, 105, 95] })
  const other = result('cluster', [], { capacity: [180, 200, null, 190, 210, 170] })
  const c = pairedOf([base, other]).entries[0].figures.capacity
  assert.equal(c.pairs, 5)
  assert.ok(c.low > 1.7 && c.high < 2.1, JSON.stringify(c))
})

test('paired: a machine ranks by its ratios, the baseline at 1; entries whose intervals meet are tied', () => {
  const paired = {
    baseline: 'simple',
    entries: [
      { key: 'a', figures: { rps: { ratio: 0.5, low: 0.45, high: 0.55 } } },
      { key: 'b', figures: { rps: { ratio: 1.9, low: 1.7, high: 2.1 } } },
      { key: 'c', figures: { rps: { ratio: 1.8, low: 1.6, high: 2.0 } } },
      { key: 'd', figures: { rps: { ratio: 1.02, low: null, high: null } } }
    ]
  }
  assert.equal(rankFigure(paired), 'rps')
  const r = pairedRanking(paired)
  assert.deepEqual(r.map((x) => x.key), ['b', 'c', 'd', 'simple', 'a'])
  assert.deepEqual(r.map((x) => x.tie), [false, true, true, true, false]) // d has no interval: tied both ways
  assert.ok(ratiosApart(paired.entries[0].figures.rps, paired.entries[1].figures.rps))
  assert.ok(!ratiosApart(paired.entries[1].figures.rps, paired.entries[2].figures.rps))
  assert.ok(!ratiosApart(paired.entries[3].figures.rps, paired.entries[1].figures.rps), 'no interval: no call')
  const withCapacity = (e) => ({ ...e, figures: { ...e.figures, capacity: e.figures.rps } })
  const swept = { ...paired, entries: paired.entries.map(withCapacity) }
  assert.equal(rankFigure(swept), 'capacity')
})
