// The words of the paired ratios (result/paired.js): a ratio with its interval, a machine's ranking, the
// table every output shows ({ title, head, rows, notes }: renderText, markdownTable, genericTable).
import { PAIRED_FIGURES, pairedRanking, rankFigure } from '../result/paired.js'
import { MISSING, pctFixed } from './format.js'

// What each paired figure's column is called.
const NAMES = { rps: 'req/s', p50: 'p50', p99: 'p99', capacity: 'capacity' }

// Two decimals, three where the ratio is under 0.1.
const times = (x) => x.toFixed(x < 0.1 ? 3 : 2)

// A paired ratio as a cell: `1.12 × [1.05, 1.20]`, `1.12 × (2 of 5 pairs)` where too few for an interval.
export function ratioText (f) {
  if (!f) return MISSING
  if (f.low === null) return `${times(f.ratio)} × (${f.pairs} of ${f.needs} pairs)`
  return `${times(f.ratio)} × [${times(f.low)}, ${times(f.high)}]`
}

// A machine's ranking by its paired ratios, `a > b ≈ c` (≈: the intervals reach each other, or one has none).
export function rankingText (paired, figure = rankFigure(paired)) {
  return pairedRanking(paired, figure).map((r, i) => `${i ? (r.tie ? ' ≈ ' : ' > ') : ''}${r.key}`).join('')
}

// The paired ratios of a report as a table: one row per entry, one column per figure any entry has;
// null without a block to show.
export function pairedTable (paired) {
  if (!paired) return null
  if (!paired.baseline) {
    const why = paired.why === 'baseline-missing' ? 'the --baseline is not among the results' : 'the baseline failed'
    return { title: 'Paired ratios', head: ['paired ratios'], rows: [[`none: ${why}`]], notes: [] }
  }
  const figures = PAIRED_FIGURES.filter((f) => paired.entries.some((e) => e.figures[f]))
  const head = ['server', ...figures.map((f) => `${NAMES[f]} × ${paired.baseline}`)]
  const rows = paired.entries.map((e) => [e.key, ...figures.map((f) => ratioText(e.figures[f]))])
  const figure = rankFigure(paired)
  const notes = [
    `Each figure over ${paired.baseline}'s in the same round, the geometric mean of ${paired.rounds} rounds; ` +
      `[low, high] covers it at least ${pctFixed(paired.confidence)} of the time (sign-flip permutation over ` +
      `rounds, ${paired.minRounds} pairs at least; docs/lab.md). For p50 and p99 under 1 is faster.`,
    `Ranking by ${NAMES[figure]}: ${rankingText(paired, figure)}`
  ]
  return { title: `Paired ratios (to ${paired.baseline}, ${paired.rounds} rounds)`, head, rows, notes }
}
