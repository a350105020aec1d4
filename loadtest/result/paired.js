// Ratios paired by round (--runs N): each entry's figures over the baseline entry's in the same
// round, the geometric mean of the per-round ratios and its interval by the sign-flip permutation
// (result/rules.js PAIRED); a machine's ranking by them, and where two reports' ratios of one pair
// are apart. Pure.
import { PAIRED } from './rules.js'
import { isNum, prng, roundTo } from './stats.js'

// The figures paired: a round's req/s, p50 and p99; a sweep's capacity (capacity.runs).
export const PAIRED_FIGURES = Object.freeze(['rps', 'p50', 'p99', 'capacity'])

// The interval of the mean of `d` (per-round log ratios) by inverting the sign-flip test: { low,
// high, coverage } in log units, or null for fewer pairs than rules.minRounds.
export function signFlipInterval (d, rules = PAIRED) {
  if (d.length < rules.minRounds) return null
  const means = d.length <= rules.maxExactRounds ? allSubsetMeans(d) : drawnSubsetMeans(d, rules)
  means.sort()
  const total = means.length + 1 // the intervals the subset means cut the line into, each as likely
  const k = Math.floor((total * (1 - rules.confidence)) / 2)
  if (k < 1) return null
  return { low: means[k - 1], high: means[means.length - k], coverage: 1 - (2 * k) / total }
}

// The mean of every non-empty subset of d (2^n − 1 of them), each from its subset less its lowest
// member.
function allSubsetMeans (d) {
  const size = 2 ** d.length
  const sums = new Float64Array(size)
  const counts = new Uint8Array(size)
  const means = new Float64Array(size - 1)
  for (let m = 1; m < size; m++) {
    const low = m & -m
    sums[m] = sums[m ^ low] + d[31 - Math.clz32(low)]
    counts[m] = counts[m ^ low] + 1
    means[m - 1] = sums[m] / counts[m]
  }
  return means
}

// The means of rules.drawnSubsets random non-empty subsets of d (each member in with probability
// 1/2).
function drawnSubsetMeans (d, rules) {
  const random = prng(rules.seed)
  const means = new Float64Array(rules.drawnSubsets)
  for (let j = 0; j < means.length;) {
    let sum = 0
    let count = 0
    for (const x of d) {
      if (random() * 2 < 1) { // a fair coin
        sum += x
        count++
      }
    }
    if (count) means[j++] = sum / count
  }
  return means
}

// One figure's paired ratio from [entry, baseline] pairs of positive numbers: { ratio, low, high,
// pairs, coverage } (low and high null, with `why`, when the pairs are too few for an interval);
// null without a pair.
export function pairedRatio (pairs, rules = PAIRED) {
  const d = pairs.filter(([x, b]) => x > 0 && b > 0).map(([x, b]) => Math.log(x / b))
  if (d.length === 0) return null
  const mean = d.reduce((a, x) => a + x, 0) / d.length
  const iv = signFlipInterval(d, rules)
  const out = { ratio: roundTo(Math.exp(mean), 4), pairs: d.length }
  if (!iv) {
    return { ...out, low: null, high: null, coverage: null, why: 'too-few-pairs', needs: rules.minRounds }
  }
  const [low, high] = [iv.low, iv.high].map((x) => roundTo(Math.exp(x), 4))
  return { ...out, low, high, coverage: roundTo(iv.coverage, 4) }
}

// A result's figures by round: figure → Map(round → value). A round is its lab round's number (an
// interleaved run's `round`), else its place in the list.
function byRound (r) {
  const out = Object.fromEntries(PAIRED_FIGURES.map((f) => [f, new Map()]))
  for (const [i, x] of (r.runs ?? []).entries()) {
    const k = x.round ?? i + 1
    out.rps.set(k, x.rps)
    out.p50.set(k, x.latency?.p50)
    out.p99.set(k, x.latency?.p99)
  }
  for (const [i, c] of (r.capacity?.runs ?? []).entries()) out.capacity.set(c.round ?? i + 1, c.rps)
  return out
}

// The result the ratios divide by: the one `name` names (its key, else its server), else the first
// HTTP result; null when that one failed or is missing.
export function baselineOf (results, name = null) {
  const http = results.filter((r) => r.kind === 'http')
  const byName = () => http.find((r) => r.key === name) ?? http.find((r) => r.server === name)
  const named = name ? byName() : http[0]
  return named && named.status !== 'failed' ? named : null
}

// The paired block of a report's results: { baseline, confidence, minRounds, rounds, entries: [{
// key, server, figures: { rps, p50, p99, capacity } }] } (a figure null where not paired), or {
// baseline: null, why } when the baseline failed or is not there; null without rounds to pair.
export function pairedOf (results, { baseline = null, rules = PAIRED } = {}) {
  const http = results.filter((r) => r.kind === 'http')
  const roundsOf = (r) => Math.max(r.runs?.length ?? 0, r.capacity?.runs?.length ?? 0)
  const rounds = Math.max(0, ...http.map(roundsOf))
  if (rounds < 2) return null
  const base = baselineOf(http, baseline)
  const head = { confidence: rules.confidence, minRounds: rules.minRounds, rounds }
  if (!base) {
    return { baseline: null, ...head, why: baseline ? 'baseline-missing' : 'baseline-failed', entries: [] }
  }
  const b = byRound(base)
  const entries = http.filter((r) => r !== base && r.status !== 'failed').map((r) => {
    const x = byRound(r)
    const figures = Object.fromEntries(PAIRED_FIGURES.map((f) => {
      const pairs = [...x[f]].filter(([k, v]) => isNum(v) && isNum(b[f].get(k)))
        .map(([k, v]) => [v, b[f].get(k)])
      return [f, pairedRatio(pairs, rules)]
    }))
    return { key: r.key, server: r.server, figures }
  })
  return { baseline: base.key, baselineServer: base.server, ...head, entries }
}

// Whether two paired ratios' intervals are apart (neither reaches the other); false where either
// has none.
export function ratiosApart (a, b) {
  if (!isNum(a?.low) || !isNum(b?.low)) return false
  return a.low > b.high || b.low > a.high
}

// The figure a machine is ranked by: capacity where every entry has a paired capacity, else req/s.
export function rankFigure (paired) {
  const all = paired.entries.length > 0 && paired.entries.every((e) => e.figures.capacity)
  return all ? 'capacity' : 'rps'
}

// A machine's ranking by its paired ratios (higher first; the baseline at exactly 1): [{ key,
// ratio, low, high, tie }], `tie` true where the entry's interval reaches the one above it (or
// either has none: no call).
export function pairedRanking (paired, figure = rankFigure(paired)) {
  const rows = [{ key: paired.baseline, ratio: 1, low: 1, high: 1 }]
  for (const e of paired.entries) {
    const f = e.figures[figure]
    if (f) rows.push({ key: e.key, ratio: f.ratio, low: f.low, high: f.high })
  }
  rows.sort((x, y) => y.ratio - x.ratio)
  return rows.map((r, i) => ({ ...r, tie: i > 0 && !ratiosApart(r, rows[i - 1]) }))
}
