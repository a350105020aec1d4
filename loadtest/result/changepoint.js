// Change points in one series of numbers (one figure of one run over many reports, in time order), found
// the way Apache Otava (was DataStax Hunter) finds them: E-divisive means (Matteson & James 2014) proposes
// the split that most divides the energy distance of the two sides, a Welch t-test of those sides keeps or
// refuses it, and a merge step drops the weakest until every change left is significant. A segment is at
// least CHANGE.minSegment points long, so that a single spike is never a change (apache/otava#150).
// Pure: numbers in, change points with their p-values, means and relative change out. The t distribution
// is jstat's (the npm registry's jstat), not one written here.
import { lazyRequire } from './lazy.js'
import { CHANGE } from './rules.js'

const jstat = lazyRequire('jstat')

// Mean, sample standard deviation and count of xs[from, to).
export function summary (xs, from = 0, to = xs.length) {
  const n = to - from
  let sum = 0
  for (let i = from; i < to; i++) sum += xs[i]
  const mean = n ? sum / n : NaN
  let ss = 0
  for (let i = from; i < to; i++) ss += (xs[i] - mean) ** 2
  return { mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : 0, n }
}

// Welch's two-sided t-test of two samples given by their summaries: { t, df, pValue }. Two constant samples
// are the same (p 1) when their means are equal and apart (p 0) when not.
export function welch (a, b) {
  const va = a.n > 1 ? a.sd ** 2 / a.n : 0
  const vb = b.n > 1 ? b.sd ** 2 / b.n : 0
  const se = Math.sqrt(va + vb)
  const diff = b.mean - a.mean
  if (!(se > 0)) return { t: diff === 0 ? 0 : Math.sign(diff) * Infinity, df: null, pValue: diff === 0 ? 1 : 0 }
  const t = diff / se
  const df = (va + vb) ** 2 / ((a.n > 1 ? va ** 2 / (a.n - 1) : 0) + (b.n > 1 ? vb ** 2 / (b.n - 1) : 0))
  const pValue = Math.min(1, 2 * jstat().jStat.studentt.cdf(-Math.abs(t), df))
  return { t, df, pValue }
}

// The E-divisive candidate in xs[s, e): the split τ (s + minSegment ≤ τ ≤ e − minSegment) that maximises
// Q̂(τ) = nm/(n+m) · (2/(nm)·Σ|X−Y| − Σ|Xi−Xk|/C(n,2) − Σ|Yj−Yk|/C(m,2))
// with X = xs[s, τ), Y = xs[τ, e) (the distances to the power 1). Returns { index, q } or null when the
// interval is too short. O((e − s)²).
export function candidate (xs, s, e, minSegment) {
  if (e - s < 2 * minSegment) return null
  const len = e - s
  const before = new Float64Array(len) // Σ |x_i − x_k| over k in [s, i)
  const after = new Float64Array(len) // Σ |x_i − x_k| over k in (i, e)
  for (let i = s; i < e; i++) {
    let l = 0
    let r = 0
    for (let k = s; k < i; k++) l += Math.abs(xs[i] - xs[k])
    for (let k = i + 1; k < e; k++) r += Math.abs(xs[i] - xs[k])
    before[i - s] = l
    after[i - s] = r
  }
  const total = before.reduce((a, v) => a + v, 0) // every pair once
  const withinLeft = new Float64Array(len + 1) // pairs inside [s, s + j)
  for (let j = 0; j < len; j++) withinLeft[j + 1] = withinLeft[j] + before[j]
  const withinRight = new Float64Array(len + 1) // pairs inside [s + j, e)
  for (let j = len - 1; j >= 0; j--) withinRight[j] = withinRight[j + 1] + after[j]
  let best = null
  for (let j = minSegment; j <= len - minSegment; j++) {
    const n = j
    const m = len - j
    const wl = withinLeft[j]
    const wr = withinRight[j]
    const cross = total - wl - wr
    const e2 = (2 / (n * m)) * cross - (n > 1 ? wl / (n * (n - 1) / 2) : 0) - (m > 1 ? wr / (m * (m - 1) / 2) : 0)
    const q = (n * m / (n + m)) * e2
    if (best === null || q > best.q) best = { index: s + j, q }
  }
  return best
}

// The statistics of a change at `index` between the segments [from, index) and [index, to) of xs.
function stats (xs, from, index, to) {
  const before = summary(xs, from, index)
  const after = summary(xs, index, to)
  const { pValue } = welch(before, after)
  const change = before.mean !== 0 ? after.mean / before.mean - 1 : null
  return { index, pValue, before, after, change }
}

// The change points of `values` (finite numbers, in time order): { status, points, parameters }.
// status 'too-short' (fewer than minPoints values: no test made) or 'tested'; each point { index (the
// first value after the change), pValue, before: { mean, sd, n }, after, change (after / before − 1) }.
export function changePoints (values, {
  maxPValue = CHANGE.maxPValue, weakPValue = CHANGE.weakPValue, minSegment = CHANGE.minSegment,
  maxPoints = CHANGE.maxPoints
} = {}) {
  const parameters = { maxPValue, weakPValue, minSegment, maxPoints }
  const offset = Math.max(0, values.length - maxPoints)
  const xs = values.slice(offset)
  if (xs.length < 2 * minSegment) return { status: 'too-short', points: [], parameters, offset }
  // split: the strongest candidate of any segment that its t-test keeps at weakPValue, until none is kept
  const cuts = []
  for (;;) {
    const edges = [0, ...cuts, xs.length]
    const found = []
    for (let i = 0; i + 1 < edges.length; i++) {
      const c = candidate(xs, edges[i], edges[i + 1], minSegment)
      if (c) found.push({ ...c, from: edges[i], to: edges[i + 1] })
    }
    found.sort((a, b) => b.q - a.q)
    const kept = found.find((c) => stats(xs, c.from, c.index, c.to).pValue <= weakPValue)
    if (!kept) break
    cuts.push(kept.index)
    cuts.sort((a, b) => a - b)
  }
  // merge: each cut tested against its neighbours' segments; the weakest over maxPValue goes, then again
  for (;;) {
    const edges = [0, ...cuts, xs.length]
    const tested = cuts.map((c, i) => stats(xs, edges[i], c, edges[i + 2]))
    let weakest = -1
    tested.forEach((t, i) => {
      if (t.pValue > maxPValue && (weakest === -1 || t.pValue > tested[weakest].pValue)) weakest = i
    })
    if (weakest === -1) {
      return { status: 'tested', points: tested.map((t) => ({ ...t, index: t.index + offset })), parameters, offset }
    }
    cuts.splice(weakest, 1)
  }
}
