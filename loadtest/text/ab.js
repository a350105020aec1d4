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

const SUMMARY = 'reports/reference/validate-ab/summary.json'

// The validation's summary (scripts/validate-ab.js, reports/reference/validate-ab/summary.json) as the
// docs quote it: per strategy its false alarms and power with their 95 % intervals, the median time,
// what an undecided figure could show, the live runs, and the targets it misses, named.
// `short`: what each strategy can detect, and its worst false alarms, in a sentence (compare.md's).
export function abValidationText (summary, { file = SUMMARY, short = false } = {}) {
  const rate = (w) => `${pct(w.share)} [${roundTo(w.low * 100, 1)}–${pct(w.high)}]`
  const each = (figures, key) => Object.entries(figures)
    .map(([f, v]) => `${FIGURE_WORDS[f]} ${rate(v[key])}`).join(', ')
  const replayed = summary.servers.filter((s) => s.identical)
  const unreplayed = summary.servers.filter((s) => !s.identical)
    .map((s) => ` ${s.server}: ${s.rounds} rounds recorded, under the ${summary.minRounds} a replay ` +
      'needs.')
  if (short) {
    const line = replayed.map((s) => {
      const worst = Math.max(...Object.values(s.identical.figures).map((v) => v.falseAlarms.share))
      return `${s.server} (${blocks(s, summary)}) detects about ${detects(s)} in ` +
        `${summary.rule.maxTimeSec} s, its false alarms at most ${pct(worst)} a figure`
    })
    return `Measured by the kept validation (${file}; ${summary.note}): ${line.join('; ')}.` +
      unreplayed.join('')
  }
  const strategies = replayed.map((s) => {
    const longer = summary.longer?.find((x) => x.server === s.server)
    const t = summary.targets
    const missed = [
      Object.values(s.identical.figures).some((v) => v.falseAlarms.share > t.falseAlarms) &&
        'false alarms',
      Object.values(s.heavier.figures).some((v) => v.power.share < t.power) && 'power',
      s.heavier.medianSeconds > t.medianSeconds && 'time'
    ].filter(Boolean)
    const live = s.live
      ? ` Live: ${s.live.aa.runs} identical runs (${s.live.aa.pairs} pairs) called ` +
        `${liveCalls(s.live.aa, ['better', 'worse'])} different; ${s.live.ah.runs} heavier runs ` +
        `(${s.live.ah.pairs} pairs) called ${liveCalls(s.live.ah, ['worse'])} worse.`
      : ''
    return `**${s.server}** (${blocks(s, summary)}, ${summary.trialsEach} replays each): ` +
      'false alarms ' +
      `${each(s.identical.figures, 'falseAlarms')}; power at × ${roundTo(summary.rule.effect, 2)} ` +
      `${each(s.heavier.figures, 'power')} (the heavier work moved ${moved(s)} here); median time ` +
      `${s.heavier.medianSeconds} s.` +
      (longer ? ` With twice the time: power ${each(longer.heavier.figures, 'power')}.` : '') +
      live + (missed.length
      ? ` Misses the ${missed.join(' and ')} target${missed.length > 1 ? 's' : ''}: in ` +
        `${summary.rule.maxTimeSec} s it can detect about ${detects(s)}.`
      : ' Meets the targets.')
  })
  return `Measured by the kept validation (${file}; ${summary.note}): ${strategies.join(' ')}` +
    unreplayed.join('')
}

// A strategy's blocks an arm, and the validation's ask when they fall short: "22 blocks an arm, under
// the 40 asked".
function blocks (s, summary) {
  const asked = summary.targets?.blocksAnArm
  return `${s.rounds} blocks an arm${asked && s.rounds < asked ? `, under the ${asked} asked` : ''}`
}

// What the heavier work moved each figure by, in the recorded rounds: "req/s × 0.82, …".
function moved (s) {
  return Object.entries(s.heavierMoved ?? {})
    .map(([f, x]) => `${FIGURE_WORDS[f]} × ${roundTo(x, 2)}`).join(', ')
}

// What a strategy's undecided figures could have shown at the cap (their median): "req/s × 1.58, …".
function detects (s) {
  return Object.entries(s.heavier.figures).filter(([, v]) => v.medianDetectable)
    .map(([f, v]) => `${FIGURE_WORDS[f]} × ${roundTo(v.medianDetectable, 2)}`).join(', ')
}

const pct = (x) => `${roundTo(x * 100, 1)} %`

// How many of the live runs' figure calls were among `verdicts`, of all: "1 of 9".
function liveCalls (tally, verdicts) {
  const all = Object.values(tally.calls).flat()
  return `${all.filter((v) => verdicts.includes(v)).length} of ${all.length} figures`
}
