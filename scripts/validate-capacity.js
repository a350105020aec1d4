// The capacity sweep checked against brute force (a script, not a test: minutes to hours of machine time).
// For each cell (a strategy, a work, a mode: default or --quick) it
//   1. calibrates the work and takes the capacity experiment's targets from it (5, 10, 25 service times),
//   2. brute force: one server, a coarse scan that locates the knee (short steps), then a fine grid of
//      rates GRID apart (8 %) around it, each step long enough for GRID_REQUESTS requests (GRID_REQUESTS_SLOW
//      under SLOW_RATE req/s); a rate holds when every request was answered and verified, its backlog did
//      not grow and the share of its requests over the first target is at most the percentile's (1 % for
//      p99; 5 % for --quick's p95). The knee: the highest grid rate that holds with the next one failing
//      (the grid is extended where it shows none);
//   3. runs the capacity sweep (npm run lab -- --experiment capacity) on the same strategy, work, mode and
//      targets, and says whether its bracket contains the knee, allowing one grid step.
// Each cell writes DIR/<cell>.json (calibration, grid, knee, the sweep's capacity and steps, the verdict and
// the bracket's width), the sweep's own report beside it, and a row of DIR/summary.md (server, work, mode,
// knee, bracket, width, bound, holds, seconds). A matrix part is the product of the lists:
//   node scripts/validate-capacity.js --server simple,cluster --work loop:1e7,loop:3e7 --mode default,quick --out DIR
import { parseArgs } from 'node:util'
import { mkdir, appendFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { runMain, usageError } from '../loadtest/errors.js'
import { checkWork, parseOptions } from '../loadtest/options.js'
import { planLab, runLab } from '../loadtest/lab.js'
import { runEntry } from '../loadtest/run/round/runner.js'
import { calibrate } from '../loadtest/run/watch/calibrate.js'
import { judgeStep, FLOOR_OVERLAP } from '../loadtest/result/capacity.js'
import { SLO_MULTIPLES } from '../loadtest/settings.js'
import { roundTo } from '../loadtest/result/stats.js'
import { writeAtomic, writeReport } from '../loadtest/report/write.js'
import { cpuStrategyNames } from '../loadtest/catalog.js'

// The grid: rates GRID × apart (8 %: "10 % or less"), each for GRID_REQUESTS requests (GRID_REQUESTS_SLOW
// under SLOW_RATE req/s), from the highest located pass ÷ GRID_BELOW to the located failure × GRID_ABOVE;
// extended by up to GRID_EXTEND rates where it shows no knee.
const GRID = 1.08
const GRID_REQUESTS = 600
const GRID_REQUESTS_SLOW = 300
const SLOW_RATE = 5
const GRID_BELOW = 1.25
const GRID_ABOVE = 1.1
const GRID_EXTEND = 4
// The locating scan: steps LOCATE × apart, from LOCATE_START × the ideal, LOCATE_REQUESTS requests each
// (within [LOCATE_MIN_SEC, LOCATE_MAX_SEC]), down to MIN_RATE req/s at most.
const LOCATE = 1.5
const LOCATE_START = 0.3
const LOCATE_REQUESTS = 150
const LOCATE_MIN_SEC = 2
const LOCATE_MAX_SEC = 20
const MIN_RATE = 0.5
// The most steps a brute force takes (the scan, the grid and its extensions).
const MAX_BRUTE_STEPS = 40
const MODES = ['default', 'quick']

const HELP = `Usage: node scripts/validate-capacity.js --server S[,S…] --work W[,W…] [--mode default,quick] --out DIR

For each strategy × work × mode: a brute-force grid of rates (${Math.round((GRID - 1) * 100)} % apart, ${GRID_REQUESTS} requests a rate,
${GRID_REQUESTS_SLOW} under ${SLOW_RATE} req/s) finds the knee; the capacity sweep runs on the same strategy, work and targets;
the cell holds when the sweep's bracket contains the knee, allowing one grid step. Reports go to DIR.

  --server   strategies (${cpuStrategyNames().join(', ')})
  --work     works (a built-in work spec, e.g. loop:1e7, sleep-sync:20, render:1000)
  --mode     default, quick or both (default: default)
  --out      the folder for each cell's reports and summary.md (made if missing)
  -h, --help this text`

// The options, checked: { servers, works, modes, out } or { help }; a usage error (exit 2) for a bad one.
function parseValidateArgs (argv) {
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
        help: { type: 'boolean', short: 'h', default: false }
      }
    }))
  } catch (err) {
    throw usageError(err.message.split('\n')[0])
  }
  if (v.help) return { help: true }
  const list = (x) => String(x ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const servers = list(v.server)
  const works = list(v.work)
  const modes = list(v.mode)
  if (!servers.length) throw usageError('--server: give at least one strategy')
  const unknown = servers.filter((s) => !cpuStrategyNames().includes(s))
  if (unknown.length) throw usageError(`--server: ${unknown.join(', ')} is not a CPU strategy (${cpuStrategyNames().join(', ')})`)
  if (!works.length) throw usageError('--work: give at least one work spec')
  const badMode = modes.find((m) => !MODES.includes(m))
  if (badMode || !modes.length) throw usageError(`--mode: expected default, quick or both, got ${badMode ?? '(none)'}`)
  if (!v.out) throw usageError('--out: give the folder for the reports')
  return { servers, works, modes, out: v.out }
}

// The lab's options for a cell (the capacity experiment, one strategy, one work, the mode, the targets).
function labArgs ({ server, work, mode }, slos, out) {
  return [
    '--experiment', 'capacity', '--server', server, '--work', work, ...(mode === 'quick' ? ['--quick'] : []),
    ...(slos ? ['--slo', slos.join(',')] : []), '--out', out
  ]
}

// Does a brute-force step hold the first target: every request answered and verified, no growing
// backlog, and at most `share` of its requests over the target (the observed percentile)? With its figures.
function bruteStep (fig, sloMs, share) {
  const j = judgeStep(fig, sloMs, { share })
  const faults = j.why && j.why !== 'p99 over the target'
  const holds = !faults && j.n > 0 && j.over / j.n <= share
  const overlap = fig.latency?.p50 > 0 ? roundTo((fig.open.rate * fig.latency.p50) / 1000, 3) : null
  const { p50, p99 } = fig.latency
  return { rate: roundTo(fig.open.rate, 3), n: j.n, over: j.over, p50, p99, holds, why: faults ? j.why : null, overlap }
}

// The knee of a grid (steps sorted by rate, one each): the highest rate that holds with the next failing;
// null when none holds.
function kneeOf (grid) {
  let knee = null
  for (let i = 0; i < grid.length - 1; i++) if (grid[i].holds && !grid[i + 1].holds) knee = grid[i].rate
  return knee
}

// A sweep-shaped brute force for the runner (run/round/runner.js sweepRounds): a locating scan, then the
// grid, extended until it shows a knee. `state` holds what it found ({ phase, located, grid }).
function bruteForce ({ idealRps, sloMs, share }, state) {
  const kinds = []
  let planned = null
  const lengthFor = (rate, n, [lo, hi]) => Math.min(hi, Math.max(lo, Math.ceil((n / rate) * 10) / 10))
  const gridLength = (rate) => Math.ceil(((rate < SLOW_RATE ? GRID_REQUESTS_SLOW : GRID_REQUESTS) / rate) * 10) / 10
  function locate (steps) {
    const last = steps.at(-1)
    if (!last) return LOCATE_START * idealRps
    const held = steps.filter((s) => s.holds)
    const failed = steps.filter((s) => !s.holds)
    if (held.length && failed.length) {
      state.located = { pass: Math.max(...held.map((s) => s.rate)), fail: Math.min(...failed.map((s) => s.rate)) }
      return null
    }
    if (last.holds) return last.rate * LOCATE
    // failing: down, unless a floor whose requests did not overlap failed (nothing holds below it)
    if ((last.overlap !== null && last.overlap <= FLOOR_OVERLAP) || last.rate / LOCATE < MIN_RATE) {
      state.located = { pass: null, fail: last.rate }
      return null
    }
    return last.rate / LOCATE
  }
  function gridRates () {
    const { pass, fail } = state.located
    const rates = []
    for (let r = pass / GRID_BELOW; r <= fail * GRID_ABOVE; r *= GRID) rates.push(r)
    return rates
  }
  return {
    kinds,
    describe: () => ({ rule: 'brute force (scripts/validate-capacity.js)', sloMs, targetsMs: [sloMs], idealRps, share, budget: null }),
    durationFor: () => planned,
    next (history) {
      if (history.length >= MAX_BRUTE_STEPS) return null
      const steps = history.map((h) => bruteStep(h.figures, sloMs, share))
      state.steps = steps
      let rate = null
      if (!state.located) {
        rate = locate(steps)
        if (rate !== null) {
          kinds.push('locate')
          planned = lengthFor(rate, LOCATE_REQUESTS, [LOCATE_MIN_SEC, LOCATE_MAX_SEC])
          return rate
        }
        if (state.located.pass === null) return null // nothing holds: no knee to grid
        state.queue = gridRates()
      }
      const grid = steps.filter((s, i) => kinds[i] === 'grid').sort((a, b) => a.rate - b.rate)
      if (!state.queue.length && kneeOf(grid) === null && (state.extended ?? 0) < GRID_EXTEND) {
        state.extended = (state.extended ?? 0) + 1
        const top = grid.at(-1)
        state.queue.push(top.holds ? top.rate * GRID : grid[0].rate / GRID)
      }
      rate = state.queue.shift() ?? null
      if (rate === null) return null
      kinds.push('grid')
      planned = gridLength(rate)
      return rate
    }
  }
}

// The brute force of a cell: its server started once, the scan and grid measured in turn; { grid, knee,
// located, steps, seconds }.
async function runBruteForce (cell, { cal, slos, share, signal }) {
  const opts = parseOptions(labArgs(cell, slos, '/tmp'))
  const lab = await planLab(opts, { signal })
  const [entry] = lab.plan
  const state = {}
  const idealRps = (availableParallelism() / cal.serviceMs) * 1000
  const brute = { ...entry, sweep: () => bruteForce({ idealRps, sloMs: slos[0], share }, state) }
  const t0 = Date.now()
  const progress = (text) => process.stderr.write(`validate-capacity: ${cell.server} ${cell.work} ${cell.mode}: brute force ${text}\n`)
  const record = await runEntry(brute, lab.loads[0], { signal, progress, calibration: { [cell.work]: cal } })
  if (record.failure) throw new Error(`brute force: ${record.failure.reason}`)
  // the steps as the brute force judged them (next() sees every step, the last one too)
  const steps = state.steps ?? []
  const kinds = record.sweeps?.[0]?.kinds ?? []
  const grid = steps.filter((s, i) => kinds[i] === 'grid').sort((a, b) => a.rate - b.rate)
  return { grid, knee: kneeOf(grid), located: state.located ?? null, locate: steps.filter((s, i) => kinds[i] === 'locate'), seconds: (Date.now() - t0) / 1000 }
}

// Does the sweep's bracket contain the knee, allowing one grid step? With no knee (nothing held on the
// grid), only a sweep that found no capacity from a true floor agrees.
function verdictOf (knee, c) {
  if (knee === null) return c.rps === null && ['cannot meet the target', 'below the lowest rate offered'].includes(c.bound)
  const { pass, fail } = c.bracket ?? {}
  if (!(pass > 0)) return false
  return pass <= knee * GRID && (fail ?? pass) >= knee / GRID
}

// One cell: calibrate, brute force, sweep, judge; writes its files and summary line; returns the cell's record.
async function runCell (cell, out, signal) {
  const name = `${cell.server}-${cell.work.replace(/[^a-z0-9.]+/gi, '_')}-${cell.mode}`
  process.stderr.write(`validate-capacity: ${name}: calibrating\n`)
  const cal = (await calibrate([cell.work], { signal }))[cell.work]
  if (!(cal?.serviceMs > 0)) throw new Error(`calibration of ${cell.work} failed: ${cal?.error ?? 'no service time'}`)
  const slos = SLO_MULTIPLES.map((m) => roundTo(m * cal.serviceMs, 3))
  const settings = (await import('../loadtest/experiments/capacity.js')).default
  const share = (cell.mode === 'quick' ? settings.quick.share : settings.defaults.share)
  process.stderr.write(`validate-capacity: ${name}: brute force at p${roundTo(100 * (1 - share), 1)} ≤ ${slos[0]} ms\n`)
  const brute = await runBruteForce(cell, { cal, slos, share, signal })
  process.stderr.write(`validate-capacity: ${name}: knee ${brute.knee ?? 'none'}; the sweep\n`)
  const t0 = Date.now()
  const onProgress = (e) => {
    if (e.type === 'step' && e.text) process.stderr.write(`validate-capacity: ${name}: sweep ${e.text}\n`)
  }
  const report = await runLab(parseOptions(labArgs(cell, slos, out)), { signal, onProgress })
  const sweepSeconds = (Date.now() - t0) / 1000
  const written = await writeReport(report, { dir: out })
  const r = report.results[0]
  const c = r?.capacity?.capacity ?? { rps: null, bound: r?.failure?.reason ?? 'no result', bracket: null }
  const holds = verdictOf(brute.knee, c)
  const record = {
    cell: { ...cell, name },
    target: { sloMs: slos[0], percentile: roundTo(100 * (1 - share), 1), serviceMs: cal.serviceMs },
    grid: brute.grid,
    locate: brute.locate,
    knee: brute.knee,
    gridStep: GRID,
    sweep: {
      rps: c.rps,
      bound: c.bound,
      bracket: c.bracket,
      floor: c.floor ?? null,
      steps: r?.capacity?.steps?.length ?? null,
      report: written.paths[0]
    },
    holds,
    // how wide the sweep's bracket is (fail ÷ pass): a wide one contains the knee cheaply
    width: c.bracket?.pass > 0 && c.bracket?.fail > 0 ? roundTo(c.bracket.fail / c.bracket.pass, 3) : null,
    seconds: { bruteForce: brute.seconds, sweep: sweepSeconds }
  }
  await writeAtomic(join(out, `${name}.json`), JSON.stringify(record, null, 2) + '\n', { force: true })
  const bracket = c.bracket ? `${c.bracket.pass ?? '-'}–${c.bracket.fail ?? '-'}` : '-'
  await appendFile(join(out, 'summary.md'), `| ${cell.server} | ${cell.work} | ${cell.mode} | ${brute.knee ?? 'none'} | ` +
    `${bracket} | ${record.width ?? '-'} | ${c.bound} | ${holds ? 'yes' : 'NO'} | ${Math.round(brute.seconds + sweepSeconds)} s |\n`)
  return record
}

async function main (argv) {
  const args = parseValidateArgs(argv)
  if (args.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  for (const w of args.works) await checkWork(w, 'work') // a bad work spec: exit 2 before anything starts
  await mkdir(args.out, { recursive: true })
  const ac = new AbortController()
  process.once('SIGINT', () => ac.abort(new Error('interrupted')))
  let held = 0
  let cells = 0
  for (const work of args.works) {
    for (const server of args.servers) {
      for (const mode of args.modes) {
        if (ac.signal.aborted) break
        const rec = await runCell({ server, work, mode }, args.out, ac.signal)
        cells++
        held += rec.holds ? 1 : 0
        process.stderr.write(`validate-capacity: ${rec.cell.name}: knee ${rec.knee ?? 'none'}, sweep ${rec.sweep.bound} ` +
          `${JSON.stringify(rec.sweep.bracket)}: ${rec.holds ? 'contains it' : 'MISSES it'}\n`)
      }
    }
  }
  process.stdout.write(`${held} of ${cells} cells: the sweep's bracket contains the brute-force knee (${args.out}/summary.md)\n`)
  return 0
}

runMain(import.meta.url, 'validate-capacity', main)
