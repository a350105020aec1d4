// The words of the paired ratios (result/paired.js): a ratio with its interval, a machine's
// ranking, the table every output shows ({ title, head, rows, notes }: renderText, markdownTable,
// genericTable).
import { PAIRED_FIGURES, pairedRanking, rankFigure } from '../result/paired.js'
import { PAIRED } from '../result/rules.js'
import { MISSING, pctFixed } from './format.js'

// What each paired figure's column is called.
const NAMES = { rps: 'req/s', p50: 'p50', p99: 'p99', capacity: 'capacity' }

// Two decimals, three where the ratio is under 0.1.
const times = (x) => x.toFixed(x < 0.1 ? 3 : 2)

// A paired ratio as a cell: `1.12 × [1.05, 1.20]`, `1.12 × (2 of 5 pairs)` where too few for an
// interval.
export function ratioText (f) {
  if (!f) return MISSING
  if (f.low === null) return `${times(f.ratio)} × (${f.pairs} of ${f.needs} pairs)`
  return `${times(f.ratio)} × [${times(f.low)}, ${times(f.high)}]`
}

// How a table names its runs: their keys less the `@WORK…` every one of them shares (a run of one
// work).
export function namerOf (keys) {
  const tails = new Set(keys.map((k) => (k.includes('@') ? k.slice(k.indexOf('@')) : '')))
  const [tail] = tails
  if (tails.size !== 1 || !tail) return (k) => k
  return (k) => (k.endsWith(tail) ? k.slice(0, -tail.length) : k)
}

// The keys of a paired block: the baseline's and every entry's.
const keysOf = (paired) => [paired.baseline, ...paired.entries.map((e) => e.key)]

// A machine's ranking by its paired ratios, `a > b ≈ c` (≈: the intervals reach each other, or one
// has none).
export function rankingText (paired, figure = rankFigure(paired), name = namerOf(keysOf(paired))) {
  const sign = (r, i) => (i === 0 ? '' : r.tie ? ' ≈ ' : ' > ')
  return pairedRanking(paired, figure).map((r, i) => `${sign(r, i)}${name(r.key)}`).join('')
}

// The paired ratios of a report as a table: one row per entry, one column per figure any entry has;
// null without a block to show.
export function pairedTable (paired) {
  if (!paired) return null
  if (!paired.baseline) {
    const why = paired.why === 'baseline-missing'
      ? 'the --baseline is not among the results'
      : 'the baseline failed'
    return { title: 'Paired ratios', head: ['paired ratios'], rows: [[`none: ${why}`]], notes: [] }
  }
  const name = namerOf(keysOf(paired))
  const base = name(paired.baseline)
  const figures = PAIRED_FIGURES.filter((f) => paired.entries.some((e) => e.figures[f]))
  const head = ['server', ...figures.map((f) => `${NAMES[f]} × ${base}`)]
  const cells = (e) => figures.map((f) => ratioText(e.figures[f]))
  const rows = paired.entries.map((e) => [name(e.key), ...cells(e)])
  const figure = rankFigure(paired)
  const notes = [
    `Each figure over ${base}'s in the same round, the geometric mean of ${paired.rounds} ` +
      `rounds; [low, high] covers it at least ${pctFixed(paired.confidence)} of the time ` +
      `(sign-flip permutation over rounds, ${paired.minRounds} pairs at least; docs/lab.md). ` +
      'For p50 and p99 under 1 is faster.',
    `Ranking by ${NAMES[figure]}: ${rankingText(paired, figure, name)}`
  ]
  const title = `Paired ratios (to ${paired.baseline}, ${paired.rounds} rounds)`
  return { title, head, rows, notes }
}

// What compare's section of paired ratios is (compare/render.js).
export const PAIRED_LEAD = 'Each machine\'s figures over one strategy\'s, paired by round on that ' +
  'machine (lab --runs N): no ruler enters a ratio. [low, high] covers it at least ' +
  `${pctFixed(PAIRED.confidence)} of the ` +
  'time; a ratio whose intervals on two machines do not reach each other is named under the table.'

// The machines side by side by paired ratios (compare/machines.js pairedAcross): one row per
// strategy, per report (`letters`) a column for each figure any has; the rankings and the ratios
// apart, as lines. null without.
export function pairedAcrossTable (across, { letters, baseline, cores = [] }) {
  if (!across) return null
  const blocks = across.blocks
  const keys = [...new Set(blocks.flatMap((b) => (b ? keysOf(b) : [])))]
  const name = namerOf(keys)
  const base = name(across.baseline)
  const has = (f) => blocks.some((b) => b?.entries.some((e) => e.figures[f]))
  const figures = PAIRED_FIGURES.filter(has)
  const cols = figures.flatMap((f) => blocks.flatMap((b, i) => (b ? [[f, i]] : [])))
  const head = ['server', ...cols.map(([f, i]) => `${letters[i]} ${NAMES[f]} × ${base}`)]
  const cell = (key, f, i) => {
    if (key === across.baseline) return '1 ×'
    return ratioText(blocks[i].entries.find((e) => e.key === key)?.figures[f] ?? null)
  }
  const rows = keys.map((k) => [name(k), ...cols.map(([f, i]) => cell(k, f, i))])
  const rankings = blocks.flatMap((b, i) => (b
    ? [`ranking on ${letters[i]} by ${NAMES[rankFigure(b)]}: ` +
      rankingText(b, rankFigure(b), name)]
    : []))
  const here = letters[baseline]
  const changed = across.changed.map((c) => changedLine(c, { name, base, here, letters, cores }))
  if (!changed.length) changed.push(`no paired ratio differs from ${here}'s beyond both intervals`)
  return { head, rows, notes: [...rankings, ...changed] }
}

// One ratio apart between two reports: `cluster / simple req/s 1.12 × [1.05, 1.20] on A, 0.97 ×
// [0.92, 1.03] on B: lower on B`, with the cores each machine offered where they differ, and a gain
// over the baseline gone.
function changedLine (c, { name, base, here, letters, cores }) {
  const there = letters[c.report]
  const higherBetter = c.figure === 'rps' || c.figure === 'capacity'
  const gone = higherBetter && c.here.low > 1 && c.there.low <= 1
  const coresText = new Set(cores).size > 1
    ? ` (cores offered: ${cores.map((n, i) => `${n ?? MISSING} on ${letters[i]}`).join(', ')})`
    : ''
  return `${name(c.key)} / ${base} ${NAMES[c.figure]} ${ratioText(c.here)} on ${here}, ` +
    `${ratioText(c.there)} on ` +
    `${there}: ${c.there.ratio < c.here.ratio ? 'lower' : 'higher'} on ${there}` +
    `${gone ? `, its gain over ${base} gone` : ''}${coresText}`
}
