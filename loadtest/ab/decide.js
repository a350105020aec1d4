// `loadlab ab`'s decision, pure: blocks in (each a lab run of arm A or B, in pairs), per figure a
// ratio B / A, its interval and a verdict out. The rule (result/rules.js AB): per pair the log
// ratio of B to A; at each look from AB.minPairs pairs on, a paired t on those logs at the per-look
// level AB.lookLevel, which simulation sets so that the false alarms over every look up to
// AB.maxPairs stay at AB.falseAlarms. A figure is different once its interval leaves 1, same once
// it lies inside 1 / effect … effect; the first call stands. Tests and scripts/validate-ab.js drive
// it with built or recorded blocks.
import { lazyRequire } from '../result/lazy.js'
import { AB } from '../result/rules.js'
import { prng, roundTo } from '../result/stats.js'

const jstat = lazyRequire('jstat')

// The figures ab judges, each with the way it improves: req/s up, latency down.
export const FIGURES = Object.freeze({ rps: 'higher', p50: 'lower', p99: 'lower' })

// A lab result's figures: req/s, p50 and p99 (ms); null where the result has none.
export function figuresOf (result) {
  const num = (v) => (Number.isFinite(v) && v > 0 ? v : null)
  return { rps: num(result?.rps), p50: num(result?.latency?.p50), p99: num(result?.latency?.p99) }
}

// The order of each pair, seeded: 'AB' or 'BA' with one chance in two (`seed` as the lab's --seed).
export function pairOrders (seed, count) {
  const random = prng(seed)
  return Array.from({ length: count }, () => (random() < 0.5 ? 'AB' : 'BA'))
}

const orderOf = ({ A, B }) => (A.position < B.position ? 'AB' : 'BA')

// The blocks as pairs: [{ pair, order, a, b }] for every pair whose two blocks are both there, in
// order.
export function pairsOf (blocks) {
  const byPair = new Map()
  for (const b of blocks) byPair.set(b.pair, { ...byPair.get(b.pair), [b.arm]: b })
  return [...byPair.entries()]
    .filter(([, p]) => p.A && p.B)
    .sort(([x], [y]) => x - y)
    .map(([pair, p]) => ({ pair, order: orderOf(p), a: p.A, b: p.B }))
}

// The log ratios ln(B / A) of one figure over the pairs (null where either block has no figure).
export function logRatios (pairs, figure) {
  const both = (a, b) => a[figure] > 0 && b[figure] > 0
  return pairs.map(({ a, b }) => (both(a, b) ? Math.log(b[figure] / a[figure]) : null))
}

// Mean and standard deviation of values (the deviation never under AB.sdFloor).
function meanSd (d) {
  const n = d.length
  const mean = d.reduce((s, x) => s + x, 0) / n
  const sd = n > 1 ? Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : Infinity
  return { mean, sd: Math.max(sd, AB.sdFloor) }
}

// Student's t quantile for `df` degrees of freedom (jstat's), kept once asked (a look asks the same
// few).
const quantiles = new Map()
function tInv (p, df) {
  const key = `${p}/${df}`
  if (!quantiles.has(key)) quantiles.set(key, jstat().jStat.studentt.inv(p, df))
  return quantiles.get(key)
}

// One look at log ratios `d` (n ≥ 2): the ratio (geometric mean), its interval at the per-look
// level, the verdict it allows ('better', 'worse', 'same' or null: go on) and the smallest change n
// such pairs show at AB.power (a ratio ≥ 1).
export function look (d, figure, { effect = AB.effect, level = AB.lookLevel } = {}) {
  const n = d.length
  const { mean, sd } = meanSd(d)
  const se = sd / Math.sqrt(n)
  const half = tInv(1 - level / 2, n - 1) * se
  const low = mean - half
  const high = mean + half
  const bound = Math.log(effect)
  const up = FIGURES[figure] === 'higher'
  let verdict = null
  if (low > 0 || high < 0) verdict = (low > 0) === up ? 'better' : 'worse'
  else if (low > -bound && high < bound) verdict = 'same'
  const detectable = Math.exp(half + tInv(AB.power, n - 1) * se)
  const [ratio, lowRatio, highRatio] = [mean, low, high].map(Math.exp)
  return { pairs: n, ratio, low: lowRatio, high: highRatio, verdict, detectable }
}

// The decision on pairs (pairsOf) for one figure: the first look from AB.minPairs on that calls it
// stands ({ …look, decidedAt }); with none, the last look with verdict 'undecided' (fewer than
// AB.minPairs pairs: the ratio alone). A pair without the figure ends the figure there (`missing`:
// that pair).
export function decideFigure (pairs, figure, opts = {}) {
  const d = logRatios(pairs, figure)
  const missing = d.findIndex((x) => x === null)
  const usable = missing === -1 ? d : d.slice(0, missing)
  let last = null
  for (let n = AB.minPairs; n <= Math.min(usable.length, AB.maxPairs); n++) {
    last = look(usable.slice(0, n), figure, opts)
    if (last.verdict) return { figure, ...last, decidedAt: n }
  }
  const ratio = usable.length ? Math.exp(usable.reduce((s, x) => s + x, 0) / usable.length) : null
  return {
    figure,
    ...(last ?? { pairs: usable.length, ratio, low: null, high: null, detectable: null }),
    verdict: 'undecided',
    decidedAt: null,
    ...(missing !== -1 && { missing: pairs[missing].pair })
  }
}

// The decision on blocks: every figure's, and whether all are decided (the run may stop).
export function decide (blocks, opts = {}) {
  const pairs = pairsOf(blocks)
  const figures = Object.keys(FIGURES).map((f) => decideFigure(pairs, f, opts))
  return { pairs: pairs.length, figures, decided: figures.every((f) => f.decidedAt !== null) }
}

// The rule's stop after a look: every figure called ('decided'), the last look ('max-pairs'), or
// another pair of `pairSec` seconds would pass `maxTime` ('max-time'); null: go on.
export function stopOf ({ decision, pairSec, elapsed, maxTime = AB.maxTimeSec }) {
  if (decision.decided) return 'decided'
  if (decision.pairs >= AB.maxPairs) return 'max-pairs'
  if (elapsed + pairSec > maxTime) return 'max-time'
  return null
}

// A worse verdict past a --fail-on bound (compare's grammar: { metric, bound } a fraction): the
// figure's ratio beyond 1 ± bound in its worse direction.
export function crossed (figure, { metric, bound }) {
  if (figure.figure !== metric || figure.verdict !== 'worse') return false
  return FIGURES[metric] === 'higher' ? figure.ratio < 1 - bound : figure.ratio > 1 + bound
}

// Standard normal draws from a seeded generator (Box–Muller).
export function normals (seed) {
  const random = prng(seed)
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
}

// The share of simulated comparisons of identical arms that the rule calls different at any look up
// to AB.maxPairs: `draw()` gives one pair's log ratio (default: a standard normal; its scale does
// not matter to a t). What the per-look level is set by (scripts/validate-ab.js --boundary) and
// what a test holds it to.
export function simulatedFalseAlarms (opts = {}) {
  const { level = AB.lookLevel, trials = 4000, seed = 1, draw = normals(seed) } = opts
  let alarms = 0
  for (let t = 0; t < trials; t++) {
    const d = []
    for (let n = 1; n <= AB.maxPairs; n++) {
      d.push(draw())
      if (n < AB.minPairs) continue
      const v = look(d, 'rps', { level, effect: Infinity }).verdict
      if (v === 'better' || v === 'worse') {
        alarms++
        break
      }
    }
  }
  return roundTo(alarms / trials, 4)
}
