// The capacity sweep checked against brute force (a script, not a test: minutes to hours of machine time),
// run in parts. A part is the product of its lists; for each (strategy, work) it
//   1. calibrates the work (and, for a strategy that starts a process or thread per request, its cold
//      calibration, as the lab does) and takes the capacity experiment's targets from it (result/rules.js
//      targetsFor: 5, 10, 25 service times, at least 10 ms; the first is checked);
//   2. brute force, once for every mode (scripts/capacity-brute-force.js): a cheap locating search, then a
//      grid 8 % apart around the knee, 600 requests a rate; one knee per percentile (default judges p99,
//      --quick p95, each on the same grid);
//   3. per mode, the capacity sweep alone (the experiment's plan entry for that strategy, work, mode and
//      targets, through the lab's runner: no past-capacity probe, no --confirm, which come after it and
//      do not change its bracket), and whether its bracket contains that mode's knee, allowing one grid step.
// Each cell writes DIR/<cell>.json and DIR/<cell>-sweep.json (the sweep's result with its steps); each
// (strategy, work) DIR/<strategy>-<work>-brute.json. DIR/summary.json holds every finished cell and
// DIR/summary.md is rendered from it. A cell already in summary.json is skipped, and a brute force already
// written is reused (with its calibration and targets), so a part interrupted or run again goes on.
import { parseArgs } from 'node:util'
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { runMain, usageError } from '../loadtest/errors.js'
import { checkWork, parseOptions } from '../loadtest/options.js'
import { planLab } from '../loadtest/lab.js'
import { runEntry } from '../loadtest/run/round/runner.js'
import { calibrate, calibrateCold } from '../loadtest/run/watch/calibrate.js'
import { buildHttpResult } from '../loadtest/result/build.js'
import { boundText, reasonText } from '../loadtest/text/reasons.js'
import { boundFields, capacityOf, judgeStep, percentileOf } from '../loadtest/result/capacity.js'
import { SAMPLE, bracketConfidenceOf, targetsFor } from '../loadtest/result/rules.js'
import { roundTo } from '../loadtest/result/stats.js'
import { writeAtomic } from '../loadtest/report/write.js'
import { upgradeBound } from '../loadtest/report/read.js'
import { cpuStrategyNames, findServer } from '../loadtest/catalog.js'
import capacity from '../loadtest/experiments/capacity.js'
import { settingsOf } from '../loadtest/plan.js'
import { GRID, kneeBandOf, runBruteForce } from './capacity-brute-force.js'
import { cellsOf, fmtSec } from './validate-capacity-plan.js'

const MODES = ['default', 'quick']
// The percentile and the confidence each mode judges at (the capacity experiment's settings: the one source).
const SETTINGS = { default: settingsOf(capacity, false), quick: settingsOf(capacity, true) }
const SHARE = Object.fromEntries(MODES.map((m) => [m, SETTINGS[m].share]))
const CONFIDENCE = Object.fromEntries(MODES.map((m) => [m, SETTINGS[m].confidence]))

const HELP = `Usage: node scripts/validate-capacity.js --server S[,S…] --work W[,W…] [--mode default,quick] --out DIR
       [--dry-run] [--brute-only]

For each strategy × work: a brute-force grid of rates (${Math.round((GRID.ratio - 1) * 100)} % apart, ${GRID.requests} requests a rate,
${GRID.requestsSlow} under ${GRID.slowRate} req/s) finds the knee for each mode's percentile; then per mode the capacity sweep
alone on the same strategy, work and targets; a cell holds when the sweep's bracket contains the knee, allowing
one grid step. Cells already in DIR/summary.json are skipped.

  --server      strategies (${cpuStrategyNames().join(', ')})
  --work        works (a built-in work spec, e.g. loop:1e7, sleep-sync:20, render:1000)
  --mode        default, quick or both (default: default)
  --out         the folder for each cell's files, summary.json and summary.md (made if missing)
  --dry-run     print the cells and their expected times, run nothing
  --brute-only  the brute forces alone (written and kept for a later part), no sweep and no cell
  -h, --help    this text`

// The options, checked: { servers, works, modes, out, dryRun, bruteOnly } or { help }; a usage error (exit 2)
// for a bad one.
export function parseValidateArgs (argv) {
  let v
  try {
    ({ values: v } = parseArgs({
      args: argv,
      strict: true,
      options: {
        server: { type: 'string' },
        work: { type: 'string' },
        mode: { type: 'string', default: 'default' },
        out: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        'brute-only': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false }
      }
    }))
  } catch (err) {
    throw usageError(err.message.split('\n')[0])
  }
  if (v.help) return { help: true }
  const list = (x) => [...new Set(String(x ?? '').split(',').map((s) => s.trim()).filter(Boolean))]
  const [servers, works, modes] = [list(v.server), list(v.work), list(v.mode)]
  const known = cpuStrategyNames()
  if (!servers.length) throw usageError('--server: give at least one strategy')
  const unknown = servers.filter((s) => !known.includes(s))
  if (unknown.length) throw usageError(`--server: ${unknown.join(', ')} is not a CPU strategy (${known.join(', ')})`)
  if (!works.length) throw usageError('--work: give at least one work spec')
  const badMode = modes.find((m) => !MODES.includes(m))
  if (badMode || !modes.length) throw usageError(`--mode: expected default, quick or both, got ${badMode ?? '(none)'}`)
  if (!v.out) throw usageError('--out: give the folder for the reports')
  return { servers, works, modes, out: v.out, dryRun: v['dry-run'], bruteOnly: v['brute-only'] }
}

// A file name for a strategy and work (and mode).
const nameOf = (...parts) => parts.map((p) => p.replace(/[^a-z0-9.-]+/gi, '_')).join('-')

// The lab's options for a cell: the capacity experiment, one strategy, one work, the mode, the targets.
function labArgs ({ server, work, mode }, slos) {
  return ['--experiment', 'capacity', '--server', server, '--work', work, ...(mode === 'quick' ? ['--quick'] : []),
    '--slo', slos.join(',')]
}

// The experiment's plan entry and load for a cell (its sweep, warm-up and timeouts as the lab runs them).
async function planned (cell, slos, signal) {
  const lab = await planLab(parseOptions(labArgs(cell, slos)), { signal })
  return { entry: lab.plan[0], load: lab.loads[0] }
}

// The calibration a (strategy, work) is run against, as the lab makes it: warm, and cold for a strategy
// that starts a process or thread per request. { [work]: calibration }.
async function calibrationFor (server, work, signal) {
  const cal = (await calibrate([work], { signal }))[work]
  if (!(cal?.serviceMs > 0)) throw new Error(`calibration of ${work} failed: ${cal?.error ?? 'no service time'}`)
  const start = findServer(server)?.starts
  if (start && cal.method === 'measured') cal.cold = { [start]: await calibrateCold(work, start, { signal }) }
  return { [work]: cal }
}

// A JSON file's content, or null when it is not there; one that cannot be read or is not a JSON object (empty,
// corrupt) is a usage error naming it, before anything is written.
async function readJson (path) {
  let text
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if (err.code === 'ENOENT') return null
    throw usageError(`${path}: cannot read it (${err.code ?? err.message}): nothing written`)
  }
  let json
  try {
    json = JSON.parse(text)
  } catch (err) {
    const why = text.trim() ? `not JSON (${err.message.split('\n')[0]})` : 'empty'
    throw usageError(`${path}: ${why}: move it away or mend it; nothing written`)
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw usageError(`${path}: not a JSON object: move it away or mend it; nothing written`)
  }
  return json
}

// The --out folder, checked before anything is read or written there: a file, or a path that cannot be made
// a folder, is a usage error. `make`: create it when missing (not for --dry-run).
async function checkOut (out, { make }) {
  const st = await stat(out).catch((err) => (err.code === 'ENOENT' ? null : { error: err.code ?? err.message }))
  if (st?.error) throw usageError(`--out: cannot read ${out} (${st.error})`)
  if (st && !st.isDirectory()) throw usageError(`--out: ${out} is a file, not a folder`)
  if (st || !make) return
  try {
    await mkdir(out, { recursive: true })
  } catch (err) {
    throw usageError(`--out: cannot make the folder ${out} (${err.code ?? err.message})`)
  }
}

// The brute force of a (strategy, work): the one already written in DIR, or calibrate and run it (for
// every mode's percentile) and write it. { calibration, slos, knees, grid, locate, located, seconds }.
async function bruteForceOf (server, work, { out, signal, log }) {
  const path = join(out, `${nameOf(server, work)}-brute.json`)
  const kept = await readJson(path)
  if (kept) {
    log(`brute force kept from ${path}`)
    return kept
  }
  log('calibrating')
  const calibration = await calibrationFor(server, work, signal)
  const slos = targetsFor(calibration[work].serviceMs).targets // the experiment's default targets
  const shares = [...new Set(MODES.map((m) => SHARE[m]))]
  log(`brute force at ${shares.map((s) => `p${percentileOf(s)}`).join(' and ')} ≤ ${slos[0]} ms`)
  const { entry, load } = await planned({ server, work, mode: 'default' }, slos, signal)
  const progress = (text) => log(`brute force ${text}`)
  const brute = await runBruteForce({ entry, load, calibration, sloMs: slos[0], shares, signal, progress })
  const record = { server, work, calibration, slos, gridStep: GRID.ratio, ...brute }
  if (!signal.aborted) await writeAtomic(path, JSON.stringify(record, null, 2) + '\n', { force: true })
  return record
}

// The capacity sweep of a cell, alone: the experiment's entry through the lab's runner, its result built
// as the lab builds it. Returns { result, seconds }.
async function sweepOf (cell, { calibration, slos, signal, log }) {
  const { entry, load } = await planned(cell, slos, signal)
  const t0 = Date.now()
  const record = await runEntry(entry, load, { signal, progress: (text) => log(`sweep ${text}`), calibration })
  const result = buildHttpResult(record, { calibration, cores: availableParallelism(), say: reasonText })
  return { result, seconds: roundTo((Date.now() - t0) / 1000, 1) }
}

// What the brute force says of a percentile, from its grid (judged again whenever it is read, so a
// kept brute force is judged by the rules of today): { truth, band } with truth 'knee' (its grid shows
// one: band { lo, hi }, kneeBandOf), 'none' (a floor whose requests did not overlap failed: nothing holds)
// or 'unknown' (its grid, extended to its limit, shows no knee).
export function truthOf (brute, share) {
  if (brute.located?.[share]?.pass === null) return { truth: 'none', band: null }
  const band = kneeBandOf(brute.grid, share)
  return band ? { truth: 'knee', band } : { truth: 'unknown', band: null }
}

// Does the sweep's bracket contain the knee (its band), allowing one grid step? With no knee (nothing held
// down to a true floor), only a sweep that found no capacity from a true floor agrees. A rate within
// SAME_RATE of the step's end is on it: the grid keeps its rates to 0.001 req/s, each the last times 1.08,
// and the sweep reaches the same rate by another product (cluster loop:1e7 --quick failed 195.57511 req/s,
// where the grid's rate one step under its knee of 211.222 is 195.576, failed there too, and 211.222 / 1.08
// is 195.57593: 4e-6 apart).
const SAME_RATE = 1e-5
export function verdictOf (band, c) {
  if (band === null) return c.rps === null && c.bound === 'cannot-meet'
  const { pass, fail } = c.bracket ?? {}
  if (!(pass > 0)) return false
  return pass <= band.hi * GRID.ratio * (1 + SAME_RATE) && (fail ?? pass) >= (band.lo / GRID.ratio) * (1 - SAME_RATE)
}

// One part at a time in a folder: DIR/.lock holds the running part's pid (made exclusively); a second part
// there is a usage error, and a lock whose process is gone is taken over. Returns its release.
async function lockOut (out) {
  const path = join(out, '.lock')
  for (let i = 0; i < 2; i++) {
    try {
      const f = await open(path, 'wx')
      await f.writeFile(String(process.pid))
      await f.close()
      return () => rm(path, { force: true })
    } catch (err) {
      if (err.code !== 'EEXIST') throw usageError(`--out: cannot write in ${out} (${err.code ?? err.message})`)
      const pid = Number(await readFile(path, 'utf8').catch(() => ''))
      if (pid > 0 && alive(pid)) throw usageError(`--out: a part is already running in ${out} (pid ${pid})`)
      await rm(path, { force: true })
    }
  }
  throw usageError(`--out: cannot lock ${out}`)
}

// Is a process of this pid running?
function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

// The round figures a step was judged on, from the step as a result keeps it (result/figures.js stepFigures).
export function stepRound (s) {
  const open = { rate: s.rate, lag: { p99: s.lagP99 } }
  return { requests: s.requests, histograms: s.histograms, backlog: s.backlog, latency: { p99: s.p99 }, open }
}

// A sweep's capacity judged again from its kept steps by the rule book of today (result/rules.js): each step
// by judgeStep, the capacity by capacityOf, with the sweep's own percentile, target, budget and hold rule.
// Nothing is measured again, so the rates it offered stay those its rules then chose. null without steps.
export function rejudgedCapacity (sweep) {
  if (!sweep?.steps?.length || !(sweep.sloMs > 0)) return null
  const share = sweep.share ?? SHARE.default
  const confidence = sweep.confidence ?? SAMPLE.confidence // a sweep from before --quick's own: the sample rule's
  const steps = sweep.steps.map((s) => {
    if (!s.requests || typeof s.histograms?.latency !== 'string') return s
    const j = judgeStep(stepRound(s), sweep.sloMs, { share, confidence })
    return { ...s, ...j, pass: j.call === 'pass' }
  })
  return capacityOf(steps, { ...sweep, share, confidence })
}

// One cell's record from its brute force and its sweep (what summary.json keeps of it, and more): the
// sweep's capacity judged again by today's rules (rejudgedCapacity).
function cellRecord (cell, brute, sweep) {
  // the sweep's own percentile and confidence (a --quick sweep of before judged p95 at 95 %), else the mode's
  const judged = sweep.result.capacity ?? {}
  const share = judged.share ?? SHARE[cell.mode]
  const confidence = judged.confidence ?? (judged.share ? SAMPLE.confidence : CONFIDENCE[cell.mode])
  const { truth, band } = truthOf(brute, share)
  const c = rejudgedCapacity(sweep.result.capacity) ?? upgradeBound(sweep.result.capacity?.capacity) ??
    { rps: null, bound: sweep.result.failure?.reason ?? 'no result', bracket: null }
  const { pass, fail } = c.bracket ?? {}
  return {
    name: nameOf(cell.server, cell.work, cell.mode),
    ...cell,
    percentile: percentileOf(share),
    stated: bracketConfidenceOf(confidence), // how often its bracket states it holds the knee
    sloMs: brute.slos[0],
    serviceMs: brute.calibration[cell.work].serviceMs,
    knee: band?.lo ?? null,
    kneeHi: band?.hi ?? null, // the band's top: the highest rate not shown to fail (kneeBandOf)
    truth,
    bracket: c.bracket ? { pass: pass ?? null, fail: fail ?? null } : null,
    width: pass > 0 && fail > 0 ? roundTo(fail / pass, 3) : null, // a wide bracket contains the knee cheaply
    ...boundFields(c),
    floor: c.floor ?? null,
    sweepSteps: sweep.result.capacity?.steps?.length ?? null,
    // the hold rule (result/capacity.js heldAt): its hold steps, and whether the capacity held (null: no rule)
    holdSteps: sweep.result.capacity?.steps?.filter((s) => s.kind === 'hold').length ?? null,
    held: c.held ?? null,
    // no verdict where the brute force found no truth to hold the sweep against
    holds: truth === 'unknown' ? null : verdictOf(band, c),
    disturbedGridSteps: brute.grid.filter((g) => g.disturbedBy).length,
    seconds: { bruteForce: brute.seconds, sweep: sweep.seconds }
  }
}

const r1 = (x) => (typeof x === 'number' ? roundTo(x, 1) : '-')

// The share of cells whose bracket held the knee, against the confidence their brackets state (the mean of
// each cell's: the sample rule's bracket confidence at its sweep's confidence; a cell from before: the default's).
function coverage (judged, held) {
  if (!judged.length) return ''
  const pct = (x) => `${roundTo(x * 100, 1)} %`
  const stated = judged.reduce((a, c) => a + (c.stated ?? SAMPLE.bracketConfidence), 0) / judged.length
  return `, ${pct(held / judged.length)} of them against the ${pct(stated)} their brackets state (rule book sample)`
}

// summary.md from summary.json's cells: one row a cell, and how many hold of those with a verdict.
export function renderSummary (cells) {
  const judged = cells.filter((c) => c.holds !== null)
  const held = judged.filter((c) => c.holds).length
  const band = (c) => (c.kneeHi > c.knee ? `${r1(c.knee)}–${r1(c.kneeHi)}` : r1(c.knee))
  const knee = (c) => (c.truth === 'unknown' ? 'unknown' : c.knee === null ? 'none' : band(c))
  const verdict = (c) => (c.holds === null ? 'no verdict' : c.holds ? 'yes' : 'NO')
  const hold = (c) => (c.held == null ? '-' : `${c.held ? 'held' : 'not held'}${c.holdSteps ? ` (${c.holdSteps} hold)` : ''}`)
  const rows = cells.map((c) => `| ${c.server} | ${c.work} | ${c.mode} | p${c.percentile} ≤ ${r1(c.sloMs)} ms | ` +
    `${knee(c)} | ${c.bracket ? `${r1(c.bracket.pass)}–${r1(c.bracket.fail)}` : '-'} | ${c.width ?? '-'} | ${boundText(c)} | ${hold(c)} | ` +
    `${verdict(c)} | ${c.disturbedGridSteps ?? '-'} | ${Math.round(c.seconds.bruteForce)} + ${Math.round(c.seconds.sweep)} s |`)
  return [
    '# The capacity sweep against brute force (scripts/validate-capacity.js)',
    '',
    `${held} of ${judged.length} cells with a verdict: the sweep's bracket contains the brute-force knee within one ` +
      `grid step (${Math.round((GRID.ratio - 1) * 100)} %)${coverage(judged, held)}; ` +
      `${cells.length - judged.length} without one (the grid, ` +
      'extended to its limit, showed no knee). Knee: the highest grid rate with its share over the target within ' +
      "the percentile's and the next rate's over it; a band up to the highest rate not shown to fail (binomial, 95 %, " +
      'the sweep\'s rule) with the next rate shown to fail, where they differ. ' +
      'Knee "none": a floor whose requests did not overlap failed. ' +
      'Hold: whether the capacity\'s rate held a step as long as the hold rule asks (its hold steps); "-" for a ' +
      'sweep run before the rule, or no capacity. ' +
      'Disturbed: grid steps the lab\'s noise rule marks. Seconds: the brute force (shared by a strategy\'s ' +
      `modes) + the sweep; the sweeps took ${Math.round(cells.reduce((a, c) => a + (c.seconds?.sweep ?? 0), 0))} s ` +
      'in all.',
    '',
    '| strategy | work | mode | target | knee req/s | sweep bracket req/s | width | bound | hold | contains | disturbed | seconds |',
    '| --- | --- | --- | --- | ---: | --- | ---: | --- | --- | --- | ---: | ---: |',
    ...rows,
    ''
  ].join('\n')
}

// Print the part's cells with their expected times (those already done marked), and the total to run.
function printPlan (cells, done) {
  let total = 0
  for (const c of cells) {
    const skip = done.has(nameOf(c.server, c.work, c.mode))
    if (!skip) total += c.expectedSec ?? 0
    process.stderr.write(`validate-capacity: ${c.server} ${c.work} ${c.mode}: ${skip ? 'done, skipped' : `about ${fmtSec(c.expectedSec)}`}\n`)
  }
  const unknown = cells.some((c) => c.expectedSec === null) ? ' (and cells of a work the model does not know)' : ''
  process.stderr.write(`validate-capacity: ${cells.length - done.size} cells to run, about ${fmtSec(total)}${unknown}\n`)
}

async function main (argv) {
  const args = parseValidateArgs(argv)
  if (args.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  for (const w of args.works) await checkWork(w, 'work') // a bad work spec: exit 2 before anything starts
  await checkOut(args.out, { make: false })
  const cells = cellsOf(args)
  const summaryPath = join(args.out, 'summary.json')
  const summary = (await readJson(summaryPath)) ?? { cells: [] }
  if (!Array.isArray(summary.cells)) throw usageError(`${summaryPath}: no cells list: move it away or mend it; nothing written`)
  const names = new Set(cells.map((c) => nameOf(c.server, c.work, c.mode)))
  const done = new Set(summary.cells.map((c) => c.name).filter((n) => names.has(n)))
  printPlan(cells, done)
  if (args.dryRun) return 0
  await checkOut(args.out, { make: true })
  const release = await lockOut(args.out)
  try {
    return await runPart(args, cells)
  } finally {
    await release()
  }
}

// summary.json and summary.md, written from the cells.
async function writeSummary (out, summary) {
  await writeAtomic(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n', { force: true })
  await writeAtomic(join(out, 'summary.md'), renderSummary(summary.cells), { force: true })
}

// The cells a part found in summary.json, judged again from their files (the brute force's grid and the
// sweep's result) by the rules of today, each cell's file written again: nothing measured again.
async function rejudged (cells, out) {
  const again = []
  const brutes = new Map() // a strategy and work's brute force, read once for both its modes
  for (const c of cells) {
    if (typeof c?.name !== 'string' || typeof c.server !== 'string' || typeof c.work !== 'string') {
      throw usageError(`${join(out, 'summary.json')}: a cell without its name, server or work: nothing written`)
    }
    const path = join(out, `${nameOf(c.server, c.work)}-brute.json`)
    if (!brutes.has(path)) brutes.set(path, await readJson(path))
    const brute = brutes.get(path)
    const result = await readJson(join(out, `${c.name}-sweep.json`))
    if (!brute || !result) throw usageError(`${out}: ${c.name} is in summary.json but its files are missing`)
    const cell = { server: c.server, work: c.work, mode: c.mode, expectedSec: c.expectedSec }
    again.push(cellRecord(cell, brute, { result, seconds: c.seconds?.sweep ?? null }))
  }
  // every file read and judged before any is written: a corrupt one leaves the folder as it was
  for (const rec of again) await writeAtomic(join(out, `${rec.name}.json`), JSON.stringify(rec, null, 2) + '\n', { force: true })
  return again
}

// The part's cells in turn (those not yet in summary.json), each written as it finishes; 130 when
// interrupted.
async function runPart (args, cells) {
  const summaryPath = join(args.out, 'summary.json')
  const summary = (await readJson(summaryPath)) ?? { cells: [] } // as the last part left it
  summary.cells = await rejudged(summary.cells, args.out)
  if (summary.cells.length) await writeSummary(args.out, summary)
  const done = new Set(summary.cells.map((c) => c.name))
  const ac = new AbortController()
  process.once('SIGINT', () => ac.abort(new Error('interrupted')))
  const { signal } = ac
  for (const cell of cells) {
    const name = nameOf(cell.server, cell.work, cell.mode)
    if (signal.aborted || done.has(name)) continue
    const log = (text) => process.stderr.write(`validate-capacity: ${name}: ${text}\n`)
    log(`starting, about ${fmtSec(cell.expectedSec)}`)
    const brute = await bruteForceOf(cell.server, cell.work, { out: args.out, signal, log })
    if (signal.aborted) break
    if (args.bruteOnly) continue // kept in its file for the part that runs the sweeps
    const sweep = await sweepOf(cell, { calibration: brute.calibration, slos: brute.slos, signal, log })
    if (signal.aborted) break
    const rec = cellRecord(cell, brute, sweep)
    await writeAtomic(join(args.out, `${name}-sweep.json`), JSON.stringify(sweep.result) + '\n', { force: true })
    await writeAtomic(join(args.out, `${name}.json`), JSON.stringify(rec, null, 2) + '\n', { force: true })
    summary.cells.push(rec)
    await writeSummary(args.out, summary)
    const said = rec.holds === null ? 'no verdict (the grid showed no knee)' : rec.holds ? 'contains it' : 'MISSES it'
    log(`knee ${rec.truth === 'knee' ? rec.knee : rec.truth}, sweep ${rec.bound} ${JSON.stringify(rec.bracket)}: ${said} ` +
      `(${fmtSec(rec.seconds.bruteForce + rec.seconds.sweep)}, expected ${fmtSec(cell.expectedSec)})`)
  }
  const judged = summary.cells.filter((c) => c.holds !== null)
  const held = judged.filter((c) => c.holds).length
  process.stdout.write(`${held} of ${judged.length} cells with a verdict in ${args.out}: the sweep's bracket contains ` +
    `the brute-force knee (${summary.cells.length - judged.length} without one)\n`)
  return signal.aborted ? 130 : 0
}

export { main as validateMain }

runMain(import.meta.url, 'validate-capacity', main)
