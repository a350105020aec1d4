// Which way is better, for every figure the lab compares, gates or follows over time: one table, read by
// compare's verdicts and --fail-on, and by history's changes and --fail-on-change. Pure.

// Each figure's kind: a rate or a ratio is better higher, a time is better lower.
const KINDS = Object.freeze({
  rps: 'rate',
  capacity: 'rate',
  efficiency: 'ratio',
  goodput: 'ratio',
  max: 'latency',
  meanMs: 'latency'
})

// A percentile figure: p50, p99, p99.9 …
const PERCENTILE = /^p(\d+(?:\.\d+)?)$/

// The kind of a figure ('rate', 'ratio', 'latency'), or null for a name that is none (an own key only:
// 'constructor' or '__proto__' is no figure).
export function figureKind (figure) {
  if (typeof figure !== 'string') return null
  if (Object.hasOwn(KINDS, figure)) return KINDS[figure]
  return PERCENTILE.test(figure) ? 'latency' : null
}

// True when a rise of the figure is better (a rate, a ratio), false when a fall is (a time); null for a
// name that is no figure.
export function higherIsBetter (figure) {
  const kind = figureKind(figure)
  return kind === null ? null : kind !== 'latency'
}
