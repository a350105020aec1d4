// The validation of `loadlab ab`'s stopping rule (docs/ab.md "How often it is wrong"), kept in
// reports/reference/validate-ab/:
//   record --server S [--rounds N]
//     N rounds of three blocks of S, each round in a fresh random order: A (WORK), A2 (WORK again: an
//     identical arm) and H (HEAVIER × WORK), each block a lab run as ab runs it (ab.js runBlock); into
//     S-blocks.json, rewritten after every round (nothing measured is lost)
//   live --server S [--runs N]
//     N live ab runs of WORK against itself and N against H, alternating, as `npm run ab` runs them;
//     into S-live.json, after every run
//   live --server S --import K:FILE …
//     ab reports (`npm run ab -- … --json`) kept as live runs of kind K (aa: identical arms, ah: B
//     heavier)
//   replay
//     TRIALS comparisons per strategy and kind replayed from the recorded rounds (drawn with
//     replacement, the rule's own stop and cap on the blocks' own seconds): false alarms (A against
//     A2) and power (A against H), each with its 95 % Wilson interval, the median time to a decision,
//     and the live runs' tally; into summary.json
//   --boundary
//     the per-look level giving AB.falseAlarms over every look on normal log ratios (bisection on
//     simulatedFalseAlarms): the rule book's lookLevel
//
//   node scripts/validate-ab.js record --server simple --rounds 40
//   node scripts/validate-ab.js replay
import { parseArgs } from 'node:util'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runMain, usageError } from '../loadtest/errors.js'
import { abCompare, runBlock } from '../loadtest/ab/ab.js'
import { checkAbOptions } from '../loadtest/ab/options.js'
import { FIGURES, decide, normals, simulatedFalseAlarms, stopOf } from '../loadtest/ab/decide.js'
import { prng } from '../loadtest/result/stats.js'
import { machine } from '../loadtest/run/watch/machine.js'
import { writeAtomic } from '../loadtest/report/write.js'
import { AB } from '../loadtest/result/rules.js'
import { abValidationText } from '../loadtest/text/ab.js'
import { median, roundTo } from '../loadtest/result/stats.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const FOLDER = join(ROOT, 'reports', 'reference', 'validate-ab')
export const WORK = 'loop:6e6' // about 6 ms a request on a quiet VM: inside the 5–20 ms asked for
export const HEAVIER = 1.3
const HEAVY = `loop:${roundTo(6e6 * HEAVIER / 1e6, 2)}e6`
const TRIALS = 300
const KIND = 'loadlab-ab-validation' // each file's kind (test/api/schema.test.js tells them by it)
const NOTE = 'taken beside other work: eight engineers shared this 2-core VM while it ran'

const write = (file, data) =>
  writeAtomic(file, JSON.stringify(data, null, 2) + '\n', { force: true })
const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'))

// What every file of the folder starts with.
const head = (server) => ({ kind: KIND, server, work: WORK, heavy: HEAVY, note: NOTE })

// Record rounds of A, A again and H on `server`, each round in a fresh order.
async function record ({ server, rounds, out, seed }) {
  const file = join(out, `${server}-blocks.json`)
  const kept = await readJson(file).catch(() => null)
  const data = kept ?? { ...head(server), machine: machine(), rounds: [] }
  const o = checkAbOptions({ a: WORK, b: HEAVY, server, kind: 'work' })
  const random = prng(seed + data.rounds.length)
  const calibration = {}
  for (let r = 0; r < rounds; r++) {
    const order = ['A', 'A2', 'H'].map((x) => [random(), x]).sort((x, y) => x[0] - y[0])
      .map(([, x]) => x)
    const round = data.rounds.length + 1
    const blocks = []
    for (const [position, arm] of order.entries()) {
      const block = await runBlock(o, arm === 'H' ? 'B' : 'A', round, position + 1, { calibration })
      blocks.push({ ...block, arm })
      process.stderr.write(`${server} round ${round} ${arm}: ${block.rps} req/s, ` +
        `p99 ${block.p99} ms, ${block.seconds} s\n`)
    }
    data.rounds.push({ round, order: order.join(' '), blocks })
    await write(file, data)
  }
}

// Live ab runs: A/A and A/H alternating, each an abCompare as `npm run ab` runs it.
async function live ({ server, runs, out }) {
  const file = join(out, `${server}-live.json`)
  const data = await readJson(file).catch(() => ({ ...head(server), runs: [] }))
  for (let i = 0; i < runs; i++) {
    for (const [kind, b] of [['aa', WORK], ['ah', HEAVY]]) {
      const report = await abCompare({ a: WORK, b, server, kind: 'work' })
      keep(data, kind, report)
      await write(file, data)
    }
  }
}

// An ab report kept as a live run of `kind` ('aa' or 'ah'), said on stderr.
function keep (data, kind, report) {
  const figures = report.figures.map(({ figure, ratio, low, high, verdict, decidedAt, seconds }) =>
    ({ figure, ratio, low, high, verdict, decidedAt, seconds }))
  const { id, stopped, pairs, seconds } = report
  const what = { server: report.settings.server, a: report.a.name, b: report.b.name }
  data.runs.push({ kind, id, ...what, stopped, pairs, seconds, figures })
  process.stderr.write(`live ${kind} ${id}: ${stopped} after ${pairs} pairs, ${seconds} s: ` +
    `${figures.map((f) => `${f.figure} ${f.verdict}`).join(', ')}\n`)
}

// Reports made by `npm run ab -- … --json`, kept as live runs: each `K:FILE`, K aa or ah.
async function importLive ({ server, out, import: files }) {
  const file = join(out, `${server}-live.json`)
  const data = await readJson(file).catch(() => ({ ...head(server), runs: [] }))
  for (const spec of files) {
    const [, kind, path] = /^(aa|ah):(.+)$/.exec(spec) ?? []
    if (!kind) throw usageError(`--import: expected aa:FILE or ah:FILE, got ${spec}`)
    const report = await readJson(path)
    if (report.kind !== 'loadlab-ab') throw usageError(`--import: ${path} is not an ab report`)
    if (!data.runs.some((r) => r.id === report.id)) keep(data, kind, report)
  }
  await write(file, data)
}

// One comparison replayed: rounds drawn with replacement, arm X against A in a random order, until
// the rule stops. `other` is 'A2' (identical) or 'H'; returns the decision and its seconds.
function replayOne (rounds, other, random, maxTime) {
  const blocks = []
  const ends = [0] // seconds at the end of each pair
  let elapsed = 0
  for (let pair = 1; ; pair++) {
    const round = rounds[Math.floor(random() * rounds.length)]
    const a = round.blocks.find((b) => b.arm === 'A')
    const x = round.blocks.find((b) => b.arm === other)
    // identical arms: which is called A is a coin toss; the order is the round's own
    const [first, second] = other === 'A2' && random() < 0.5 ? [x, a] : [a, x]
    blocks.push({ ...first, arm: 'A', pair }, { ...second, arm: 'B', pair })
    elapsed += a.seconds + x.seconds
    ends.push(elapsed)
    const decision = decide(blocks)
    const stopped = stopOf({ decision, pairSec: elapsed / pair, elapsed, maxTime })
    // each figure's seconds: to its call, else to the stop
    const at = (f) => ends[f.decidedAt ?? pair]
    if (stopped) return { decision, seconds: elapsed, stopped, at }
  }
}

// A share with its 95 % Wilson interval.
function wilson (k, n) {
  const z = 1.959963984540054
  const p = k / n
  const centre = (p + z * z / (2 * n)) / (1 + z * z / n)
  const half = (z / (1 + z * z / n)) * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
  const low = roundTo(Math.max(0, centre - half), 4)
  return { share: roundTo(p, 4), low, high: roundTo(Math.min(1, centre + half), 4), k, n }
}

// What the rounds show: per figure the geometric mean of H / A (what the heavier work moved it by
// here) and the spread of A2 / A's log ratios (a pair's noise).
function seenIn (rounds) {
  const logs = (f, arm) => rounds.map((r) => Math.log(r.blocks.find((b) => b.arm === arm)[f] /
    r.blocks.find((b) => b.arm === 'A')[f]))
  const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length
  const sd = (v) => Math.sqrt(v.reduce((s, x) => s + (x - mean(v)) ** 2, 0) / (v.length - 1))
  return {
    heavierMoved: Object.fromEntries(Object.keys(FIGURES)
      .map((f) => [f, roundTo(Math.exp(mean(logs(f, 'H'))), 3)])),
    pairSd: Object.fromEntries(Object.keys(FIGURES).map((f) => [f, roundTo(sd(logs(f, 'A2')), 3)]))
  }
}

// The replayed error rates of one strategy's rounds, under the cap `maxTime` (s).
export function replayServer (data, seed, maxTime = AB.maxTimeSec) {
  const random = prng(seed)
  const rounds = data.rounds.filter((r) => ['A', 'A2', 'H'].every((arm) =>
    r.blocks.some((b) => b.arm === arm && b.status === 'ok' && b.rps && b.p50 && b.p99)))
  const n = rounds.length
  const out = { server: data.server, maxTimeSec: maxTime, rounds: n, blocksAnArm: n }
  Object.assign(out, seenIn(rounds))
  for (const other of ['A2', 'H']) {
    const trials = Array.from({ length: TRIALS }, () => replayOne(rounds, other, random, maxTime))
    const perFigure = Object.fromEntries(Object.keys(FIGURES).map((f) => {
      const figures = trials.map((t) => t.decision.figures.find((x) => x.figure === f))
      const calls = figures.map((x) => x.verdict)
      const undecided = figures.filter((x) => x.verdict === 'undecided' && x.detectable)
      const timing = {
        medianSeconds: roundTo(median(trials.map((t, i) => t.at(figures[i]))), 1),
        // what an undecided figure could have shown at the stop: the effect this strategy can detect
        medianDetectable: undecided.length
          ? roundTo(median(undecided.map((x) => x.detectable)), 3)
          : null
      }
      const different = calls.filter((v) => v === 'better' || v === 'worse').length
      // heavier: fewer req/s, longer latency
      const right = calls.filter((v) => v === 'worse').length
      const same = roundTo(calls.filter((v) => v === 'same').length / TRIALS, 4)
      return [f, other === 'A2'
        ? { falseAlarms: wilson(different, TRIALS), same, ...timing }
        : { power: wilson(right, TRIALS), wrongSame: same, ...timing }]
    }))
    const anyFigure = trials.filter((t) => t.decision.figures.some((f) =>
      other === 'A2' ? ['better', 'worse'].includes(f.verdict) : f.verdict === 'worse')).length
    out[other === 'A2' ? 'identical' : 'heavier'] = {
      trials: TRIALS,
      figures: perFigure,
      anyFigure: wilson(anyFigure, TRIALS),
      medianSeconds: roundTo(median(trials.map((t) => t.seconds)), 1),
      medianPairs: median(trials.map((t) => t.decision.pairs)),
      stopped: Object.fromEntries(['decided', 'max-time', 'max-pairs'].map((s) =>
        [s, trials.filter((t) => t.stopped === s).length]))
    }
  }
  return out
}

// The live runs' tally: per kind, runs, pairs, each figure's calls, the median seconds.
function liveTally (data) {
  return Object.fromEntries(['aa', 'ah'].map((kind) => {
    const runs = data.runs.filter((r) => r.kind === kind)
    const verdicts = (f) => runs.map((r) => r.figures.find((x) => x.figure === f).verdict)
    const calls = Object.fromEntries(Object.keys(FIGURES).map((f) => [f, verdicts(f)]))
    return [kind, {
      runs: runs.length,
      pairs: runs.reduce((s, r) => s + r.pairs, 0),
      calls,
      medianSeconds: runs.length ? roundTo(median(runs.map((r) => r.seconds)), 1) : null
    }]
  }))
}

// The docs' quote of the summary: the line between these marks in each page (test/scripts/validate-ab.test.js
// holds them to summary.json).
export const MARK = ['<!-- ab-validated: scripts/validate-ab.js replay writes this line -->',
  '<!-- /ab-validated -->']
export const QUOTED = [{ page: 'docs/ab.md', short: false }, { page: 'docs/compare.md', short: true }]
// What the validation asks of each strategy: figures of identical arms called different at most this
// often, × HEAVIER called worse at least this often, a decision within this median time (s).
const TARGETS = { falseAlarms: AB.falseAlarms, power: AB.power, medianSeconds: 240, blocksAnArm: 40 }
// fewer rounds drawn with replacement would replay a handful of pairs over and over
const MIN_ROUNDS = 10

// Writes the summary's line between the marks of each quoting page.
async function quote (summary) {
  for (const { page, short } of QUOTED) {
    const file = join(ROOT, page)
    const text = await readFile(file, 'utf8')
    const [from, to] = [text.indexOf(MARK[0]), text.indexOf(MARK[1])]
    if (from === -1 || to < from) {
      throw usageError(`${page}: no ${MARK[0]} … ${MARK[1]} to write into`)
    }
    const line = abValidationText(summary, { short })
    await writeFile(file, `${text.slice(0, from)}${MARK[0]}\n${line}\n${text.slice(to)}`)
  }
}

// summary.json from every S-blocks.json and S-live.json in the folder; in the kept folder, the docs' quote.
async function replay ({ out, seed }) {
  const names = await readdir(out)
  const servers = names.filter((n) => n.endsWith('-blocks.json'))
    .map((n) => n.slice(0, -'-blocks.json'.length))
  const summary = {
    ...head(null),
    trialsEach: TRIALS,
    minRounds: MIN_ROUNDS,
    targets: TARGETS,
    rule: { ...AB },
    servers: [],
    longer: []
  }
  for (const server of servers) {
    const data = await readJson(join(out, `${server}-blocks.json`))
    const liveData = await readJson(join(out, `${server}-live.json`)).catch(() => null)
    const live = liveData ? liveTally(liveData) : null
    if (data.rounds.length < MIN_ROUNDS) {
      summary.servers.push({ server, rounds: data.rounds.length, live })
      continue
    }
    summary.servers.push({ ...replayServer(data, seed), live })
    // the same blocks under twice the cap: what more time buys on this machine
    summary.longer.push(replayServer(data, seed, 2 * AB.maxTimeSec))
  }
  await write(join(out, 'summary.json'), summary)
  if (out === FOLDER) await quote(summary)
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
}

// The per-look level that keeps simulated false alarms at AB.falseAlarms (bisection; Monte Carlo).
function boundary () {
  let [lo, hi] = [0.001, 0.02]
  for (let i = 0; i < 12; i++) {
    const mid = (lo + hi) / 2
    const rate = simulatedFalseAlarms({ level: mid, trials: 20000, seed: 7, draw: normals(7) })
    if (rate > AB.falseAlarms) hi = mid
    else lo = mid
  }
  const rate = simulatedFalseAlarms({ level: roundTo(lo, 4), trials: 20000 })
  process.stdout.write(`lookLevel ${roundTo(lo, 4)}: ${rate} ` +
    `false alarms over looks ${AB.minPairs}…${AB.maxPairs} (rule book: ${AB.lookLevel})\n`)
}

async function main (argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      rounds: { type: 'string', default: '40' },
      runs: { type: 'string', default: '1' },
      out: { type: 'string', default: FOLDER },
      seed: { type: 'string', default: '1' },
      boundary: { type: 'boolean', default: false },
      import: { type: 'string', multiple: true }
    }
  })
  if (values.boundary) return boundary()
  const [mode] = positionals
  const numbers = { rounds: +values.rounds, runs: +values.runs, seed: +values.seed }
  const opts = { ...values, ...numbers }
  await mkdir(opts.out, { recursive: true })
  if (mode === 'record' || mode === 'live') {
    if (!values.server) throw usageError(`${mode}: --server S`)
    if (mode === 'record') return record(opts)
    return opts.import ? importLive(opts) : live(opts)
  }
  if (mode === 'replay') return replay(opts)
  throw usageError('expected record, live, replay or --boundary')
}

runMain(import.meta.url, 'validate-ab', async (argv) => { await main(argv); return 0 })
