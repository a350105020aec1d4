// `loadlab ab`'s words: the table of an ab report, its heading, the rule it follows and a block's
// progress line. The report (loadtest/ab/ab.js) carries codes and figures; this module only words
// them. Pure.
import { AB } from '../result/rules.js'
import { isNum, roundTo } from '../result/stats.js'
import { MISSING } from './format.js'

// Each figure's name in a table.
export const FIGURE_WORDS = Object.freeze({ rps: 'req/s', p50: 'p50', p99: 'p99' })

// Why a run stopped, by its code.
export const STOPPED_WORDS = Object.freeze({
  decided: 'every figure called',
  'max-time': 'another pair would pass --max-time',
  'max-pairs': `the rule's last look (${AB.maxPairs} pairs)`,
  failed: 'a block failed',
  interrupted: 'interrupted'
})

const times = (x) => (isNum(x) ? `${roundTo(x, 3)} ×` : MISSING)

// The rule a verdict follows, with its constants (the rule book's AB).
export function abRuleText (effect = AB.effect) {
  const pct = (x) => `${roundTo(x * 100, 2)} %`
  return 'Paired blocks in a random order; after each pair once there are ' +
    `${AB.minPairs}, a paired t on the log ratios at ${pct(AB.lookLevel)} a look (two-sided): ` +
    `an interval outside 1 is better or worse, inside 1/${effect} … ${effect} the same. ` +
    `At most ${pct(AB.falseAlarms)} of ` +
    'figures of identical arms are called different over all the looks, up to ' +
    `${AB.maxPairs} pairs (simulated; docs/ab.md).`
}

// A figure's verdict as a cell: "better", "same", "undecided (could show × 1.42)".
function verdictCell (f) {
  if (f.verdict !== 'undecided') return f.verdict
  if (!isNum(f.detectable)) return 'undecided (too few pairs)'
  return `undecided (could show ${times(f.detectable)})`
}

// The report's table: { head, rows, notes } (report/table.js renderText draws it).
export function abTable (report) {
  const conf = `${roundTo(100 - AB.lookLevel * 100, 2)} %`
  const rows = report.figures.map((f) => [
    FIGURE_WORDS[f.figure],
    times(f.ratio),
    isNum(f.low) ? `${roundTo(f.low, 3)}–${roundTo(f.high, 3)}` : MISSING,
    verdictCell(f),
    String(f.decidedAt ?? f.pairs),
    String(f.seconds ?? report.seconds)
  ])
  const head = ['figure', 'B / A', `interval ${conf}`, 'verdict', 'pairs', 'seconds']
  return { head, rows, notes: notesOf(report) }
}

// The lines under the table: the order of the pairs, why it stopped, the gate, blocks the lab
// marked.
function notesOf (report) {
  const inPair = (p) => report.blocks.filter((b) => b.pair === p)
    .sort((x, y) => x.position - y.position)
  const orders = [...new Set(report.blocks.map((b) => b.pair))].map((p) =>
    inPair(p).map((b) => b.arm).join(''))
  const marked = report.blocks.filter((b) => !b.trusted).length
  const failed = report.blocks.find((b) => b.status !== 'ok')
  return [
    `order: ${orders.join(' ')} (seed ${report.settings.seed})`,
    `stopped: ${STOPPED_WORDS[report.stopped]} after ${report.pairs} pairs, ${report.seconds} s`,
    ...(failed ? [failedLine(failed)] : []),
    ...(marked ? [markedLine(marked, report.blocks.length)] : []),
    ...report.failOn.filter((b) => b.crossed).map((b) => `--fail-on ${b.spec}: ` +
      `${FIGURE_WORDS[b.metric]} worse past ${roundTo(b.bound * 100, 1)} %`)
  ]
}

// The blocks the lab marked disturbed: kept, since a pair's ratio cancels what moved both.
const markedLine = (n, of) => `${n} of ${of} blocks marked disturbed (kept: pairs cancel drift)`

// A failed block: which, and why.
function failedLine (b) {
  return `block ${b.arm} of pair ${b.pair}: ${b.status}${b.failure ? `, ${b.failure}` : ''}`
}

// The heading: what was compared.
export function abHeading (report) {
  const s = report.settings
  const within = [s.server && `in ${s.server}`, s.work && `work ${s.work}`,
    s.task && `task ${s.task}`].filter(Boolean).map((x) => `, ${x}`).join('')
  return `ab: A ${report.a.name} against B ${report.b.name} (${report.a.kind}s${within}; ` +
    `blocks of ${s.amount} requests at -c ${s.connections}; effect ${s.effect})`
}

// One block's progress line.
export function blockLine (b) {
  const fig = (k, d) => (isNum(b[k]) ? roundTo(b[k], d) : MISSING)
  return `pair ${b.pair} ${b.arm}: ${fig('rps', 1)} req/s, p50 ${fig('p50', 1)} ms, ` +
    `p99 ${fig('p99', 1)} ms ` +
    `(${b.seconds} s${b.status === 'ok' ? '' : `, ${b.status}`})`
}
