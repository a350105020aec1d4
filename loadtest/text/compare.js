// compare's words: the verdicts, the rule they follow, its measured error rates and the machines' ruler
// lines. result/verdict.js and compare/compare.js give codes and figures; this module only words them. Pure.
import { COMPARE } from '../result/rules.js'
import { isNum, roundTo } from '../result/stats.js'
import { MISSING, timesGrouped } from './format.js'

// Each verdict code (result/verdict.js VERDICTS) as the tables write it.
export const VERDICT_WORDS = Object.freeze({
  better: 'better',
  worse: 'worse',
  'within-noise': 'within noise',
  machine: 'machine',
  disturbed: 'disturbed',
  'no-interval': 'no interval'
})

const pct = (x) => `${roundTo(x * 100, 1)} %`
const times = (logWidth) => `× ${roundTo(Math.exp(logWidth), 2)}`

// The rule every verdict follows, with its constants (the rule book's COMPARE).
export function ruleText () {
  return 'Each figure has a 95 % interval from its own run: percentiles from order statistics of the run\'s ' +
    'latency histogram, req/s and efficiency from batch means over its timeline windows, capacity from its ' +
    'bracket (more rounds, --runs N, narrow them). A ratio is within noise while it stays inside both intervals ' +
    `and a floor for run-to-run drift (req/s ${times(COMPARE.floorRate)}, efficiency ` +
    `${times(COMPARE.floorEfficiency)}, p50 ${times(COMPARE.floorP50)}, p99 ${times(COMPARE.floorTail)}, capacity ` +
    `${times(COMPARE.floorCapacity)}; a strategy the validation ran has its own, simple's req/s ` +
    `${times(COMPARE.serverFloors.simple.rps)}). Beyond it, a run the lab marked disturbed gets no call (disturbed); ` +
    'where both reports carry a ' +
    'ruler, the ratio is divided by what the ruler predicts for the strategy; a residual within the band ' +
    `(widened ${times(COMPARE.modelError)} for the model) is put down to the machine, else it is better or worse. ` +
    'Without a ruler on either side the ratio is judged raw: the machine cannot be told apart.'
}

// The validation's figures as compare and docs/compare.md print them (VALIDATED, compare/validated.js).
export function validationText (v) {
  if (!v) {
    return 'Error rates: not yet measured by the kept validation (node scripts/validate-compare.js).'
  }
  const pairs = (m) => `${m.pairs} pair${m.pairs === 1 ? '' : 's'}`
  const held = v.falseAlarms.serverHeldOut
  const heldText = held ? ` (${pct(held.share)} held out)` : ''
  const reached = v.power.reached
  const reachedText = reached ? ` (${pct(reached.share)} of the ${reached.runs} it reached)` : ''
  const set = v.setting?.reached
  const settingText = set?.runs ? `, pools of one ${pct(set.share)} of the ${set.runs} it reached` : ''
  const disturbed = (m) => (isNum(m.disturbedShare) ? ` and ${pct(m.disturbedShare)} marked disturbed` : '')
  return `Error rates measured by the kept validation (${v.folder}, ${v.machine}): false alarms ` +
    `${pct(v.falseAlarms.share)} of ${v.falseAlarms.figures} figures over ${pairs(v.falseAlarms)} of identical ` +
    `tours${heldText}; power ${pct(v.power.share)} of ${v.power.runs} changed runs detected over ` +
    `${pairs(v.power)}${reachedText}${settingText}; machine pairs: ${v.machine_pairs.map((m) => `${m.name} ` +
    `${pct(m.machineShare)} of figures put down to the machine${disturbed(m)}`).join(', ')}.`
}

// One verdict as a table cell: "0.93× worse", "0.56× machine (0.58× predicted)", "1.02× within noise".
export function verdictCell (v, { sign = '' } = {}) {
  if (!v || !isNum(v.ratio)) return MISSING
  const said = ` ${VERDICT_WORDS[v.verdict]}`
  const predicted = v.machine === 'told' && v.verdict !== 'within-noise' && isNum(v.predicted)
    ? ` (${timesGrouped(v.predicted)} predicted)`
    : ''
  return `${sign}${timesGrouped(v.ratio)}${said}${predicted}`
}

// A report without a ruler, in the comparison's notes.
export function noRulerText (letter, file) {
  return `${letter} (${file}) carries no ruler: the machine cannot be told apart for it, and its ratios are ` +
    'judged raw (within noise, better or worse, never the machine).'
}

// A closed-loop run whose reports loaded it at different connection counts (`-c`, not in the key), in
// the comparison's notes: [[letter, connections]].
export function connectionsText (key, pairs) {
  const counts = pairs.map(([letter, c]) => `${letter} -c ${c}`).join(', ')
  return `${key} ran at different connection counts (${counts}): a closed loop's req/s and latency depend ` +
    'on them, so its ratios mix that change with any other'
}

const fig = (f, digits, unit) => (f && isNum(f.value) ? `${roundTo(f.value, digits)}${unit}` : MISSING)

// A machine's ruler line: "1.9 of 2 cores · loop 8.2 ms · loopback 9,100 req/s · worker 12 ms · process 40 ms".
export function rulerLineText (line) {
  if (!line) return 'no ruler: the machine cannot be told apart'
  return `${fig(line['cores.effective'], 2, '')} of ${line.offered ?? MISSING} cores · loop ` +
    `${fig(line['single.loop'], 2, ' ms')} · loopback ${fig(line['loopback.rps'], 0, ' req/s')} · worker ` +
    `${fig(line['spawn.workerMs'], 1, ' ms')} · process ${fig(line['spawn.processMs'], 1, ' ms')}` +
    (line.moved ? ' · moved during the run' : '')
}
