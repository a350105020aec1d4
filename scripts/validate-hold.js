// Does a stated capacity hold off the brute-force matrix's works (a script, not a test: minutes of machine
// time)? For each strategy of a capacity report (made here with --task, or read with --from), at each rate it
// stated for a target: K rounds of N requests at that rate (the sweep's arrivals, through the lab), each
// round's percentile (the one the sweep judged) from its latency histogram, and whether their median meets
// the target. A capacity holds where it does. DIR/hold.json keeps every figure, DIR/hold.md the table.
//   node scripts/validate-hold.js --task examples/password-hash.js --server simple,queued-threads --out DIR
//   node scripts/validate-hold.js --from CAPACITY.json --out DIR
import { parseArgs } from 'node:util'
import { spawn } from 'node:child_process'
import { mkdir, readdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { numberOption, runMain, usageError } from '../loadtest/errors.js'
import { readReportFile } from '../loadtest/report/read.js'
import { writeAtomic } from '../loadtest/report/write.js'
import { decodeHistogram } from '../loadtest/result/histogram.js'
import { median, roundTo } from '../loadtest/result/stats.js'
import { ROOT } from '../loadtest/catalog.js'

// Three rounds (the issue's "median of three quiet rounds"); each long enough that its percentile rests on
// ten requests over it at least (p99: 1,000; p95: 600 by the floor).
export const HOLD = Object.freeze({ rounds: 3, overPercentile: 10, minRequests: 600 })

const HELP = `Usage: node scripts/validate-hold.js (--task FILE [--server S,…] [--quick] | --from REPORT.json)
       [--rounds K] [--amount N] --out DIR

Runs the capacity experiment on your task (or reads a capacity report), then at each rate it stated for a
target: K rounds of N requests at that rate, and whether the median round's percentile (the one the sweep
judged) meets the target.

  --task     a task module (docs/task.md); the capacity experiment runs on it
  --server   strategies for that run (default: the experiment's)
  --quick    the experiment's --quick
  --from     a capacity report already made (its task or work is the rounds')
  --rounds   rounds at each rate (default ${HOLD.rounds})
  --amount   requests a round (default: ${HOLD.overPercentile} over the percentile, at least ${HOLD.minRequests})
  --out      the folder for the runs' reports, hold.json and hold.md (made if missing)
  -h, --help this text`

export function parseHoldArgs (argv) {
  let v
  try {
    v = parseArgs({
      args: argv,
      options: {
        task: { type: 'string' },
        server: { type: 'string' },
        quick: { type: 'boolean' },
        from: { type: 'string' },
        rounds: { type: 'string' },
        amount: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }).values
  } catch (err) {
    throw usageError(err.message)
  }
  if (v.help) return { help: true }
  if (!v.out) throw usageError('--out DIR is required')
  if (Boolean(v.task) === Boolean(v.from)) throw usageError('give --task FILE or --from REPORT.json, one of them')
  if (v.from && (v.server || v.quick)) throw usageError('--server and --quick go with --task, not --from')
  const whole = (name, text, min) => (text === undefined ? null : numberOption(name, text, { min, integer: true }))
  return {
    task: v.task ? resolve(v.task) : null,
    servers: v.server ?? null,
    quick: Boolean(v.quick),
    from: v.from ? resolve(v.from) : null,
    rounds: whole('rounds', v.rounds, 1) ?? HOLD.rounds,
    amount: whole('amount', v.amount, 20),
    out: resolve(v.out)
  }
}

// The requests a round needs at a percentile: HOLD.overPercentile over it, at least HOLD.minRequests.
export function amountFor (percentile) {
  return Math.max(HOLD.minRequests, Math.ceil(HOLD.overPercentile / (1 - percentile / 100)))
}

// The lab, run to a folder of its own; the one report it wrote there (its page removed).
async function lab (args, out) {
  await mkdir(out, { recursive: true })
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'loadtest', 'cli.js'), ...args, '--out', out], {
      stdio: ['ignore', 'ignore', 'inherit']
    })
    child.on('error', reject)
    child.on('exit', (c, s) => resolve(c ?? s))
  })
  // the JSON and the Markdown are kept; the pages (a megabyte or more each) would outgrow reports/reference/
  for (const f of await readdir(out)) if (f.endsWith('.html')) await rm(join(out, f))
  const files = (await readdir(out)).filter((f) => f.endsWith('.json'))
  if (files.length !== 1) throw new Error(`the lab (${args.join(' ')}) exited ${code} and wrote ${files.length} reports`)
  return readReportFile(join(out, files[0]))
}

// The rates a capacity result stated, each with the targets stated at it: [{ rps, targets: [{ sloMs, bound }] }].
export function ratesOf (result) {
  const byRate = new Map()
  for (const t of result.capacity?.targets ?? []) {
    if (!(t.rps > 0)) continue
    const at = byRate.get(t.rps) ?? { rps: t.rps, targets: [] }
    at.targets.push({ sloMs: t.sloMs, bound: t.bound })
    byRate.set(t.rps, at)
  }
  return [...byRate.values()]
}

// One round's percentile (ms) from its latency histogram, null where it kept none.
export function roundPercentile (round, percentile) {
  const text = round.histograms?.latency
  if (!text) return null
  const h = decodeHistogram(text)
  return h.totalCount ? roundTo(h.getValueAtPercentile(percentile) / 1000, 3) : null
}

// What the rounds at one rate say of each target there: the rounds' percentiles, their median, and whether it
// meets each target.
export function holdOf (at, rounds, percentile) {
  const values = rounds.map((r) => roundPercentile(r, percentile))
  const known = values.filter((x) => x !== null)
  const mid = known.length === rounds.length && known.length ? roundTo(median(known), 3) : null
  return {
    rps: roundTo(at.rps, 3),
    percentile,
    rounds: values,
    median: mid,
    targets: at.targets.map((t) => ({ ...t, holds: mid === null ? null : mid <= t.sloMs }))
  }
}

// The lab flags that run a result's server on the report's own work: its task (with the input it was given),
// else its work.
export function workFlags (report, result) {
  const t = report.method?.task
  if (t) {
    const flags = ['--task', `${t.path}${t.export && t.export !== 'default' ? `#${t.export}` : ''}`]
    if (t.inputFrom === 'module input export') return flags
    if (t.inputFrom !== 'command line') return [...flags, '--input', `@${t.inputFrom}`]
    if (t.input === null) throw usageError('the report\'s task input was given on its command line and not kept')
    return [...flags, '--input', JSON.stringify(t.input)]
  }
  const i = result.args?.indexOf('--work') ?? -1
  return i >= 0 ? ['--work', result.args[i + 1]] : []
}

async function holdsOfResult (report, result, opts, log) {
  const percentile = result.capacity.percentile
  const rows = []
  for (const at of ratesOf(result)) {
    const amount = opts.amount ?? amountFor(percentile)
    const name = `${result.server}-${roundTo(at.rps, 1)}`
    log(`${result.server}: ${opts.rounds} rounds of ${amount} requests at ${roundTo(at.rps, 1)} req/s`)
    const arrival = report.method?.arrival ? ['--arrival', report.method.arrival] : []
    const args = ['--server', result.server, ...workFlags(report, result), '--rate', String(at.rps), '--amount',
      String(amount), '--runs', String(opts.rounds), '--no-ruler', ...arrival]
    const rounds = await lab(args, join(opts.out, 'rounds', name))
    const r = rounds.results[0]
    const each = opts.rounds > 1 ? r.runs : [r]
    rows.push({ server: result.server, ...holdOf(at, each, percentile), trusted: r.trusted, amount })
  }
  return rows
}

export function renderHold (summary) {
  const lines = [`# Does the stated capacity hold? ${summary.held} of ${summary.judged} targets`, '',
    `Capacity report: ${summary.capacity}. At each rate the sweep stated, ${summary.rounds} rounds; a target ` +
    'holds when the median round\'s percentile (the one the sweep judged) is within it.', '',
    '| strategy | req/s | percentile | rounds (ms) | median (ms) | targets (ms) | trusted |', '|---|---|---|---|---|---|---|']
  for (const r of summary.rows) {
    const targets = r.targets.map((t) => `${t.sloMs} ${t.holds === null ? '?' : t.holds ? '✓' : '✗'}`).join(', ')
    lines.push(`| ${r.server} | ${r.rps} | p${r.percentile} | ${r.rounds.join(', ')} | ${r.median ?? '—'} | ` +
      `${targets} | ${r.trusted ? 'yes' : 'no'} |`)
  }
  return lines.join('\n') + '\n'
}

async function main (argv) {
  const opts = parseHoldArgs(argv)
  if (opts.help) {
    console.log(HELP)
    return 0
  }
  const log = (line) => process.stderr.write(`validate-hold: ${line}\n`)
  let report
  if (opts.from) {
    report = readReportFile(opts.from)
  } else {
    log('the capacity experiment on the task')
    const servers = opts.servers ? ['--server', opts.servers] : []
    report = await lab(['--experiment', 'capacity', '--task', opts.task, ...servers, ...(opts.quick ? ['--quick'] : [])],
      join(opts.out, 'capacity'))
  }
  if (report.experiment !== 'capacity') throw usageError(`${opts.from}: not a capacity report`)
  const rows = []
  for (const result of report.results.filter((r) => r.capacity?.targets)) {
    rows.push(...await holdsOfResult(report, result, opts, log))
  }
  const judged = rows.flatMap((r) => r.targets).filter((t) => t.holds !== null)
  const summary = {
    kind: 'loadlab-hold',
    capacity: opts.from ?? report.id,
    rounds: opts.rounds,
    judged: judged.length,
    held: judged.filter((t) => t.holds).length,
    rows
  }
  await writeAtomic(join(opts.out, 'hold.json'), JSON.stringify(summary, null, 2) + '\n')
  const md = renderHold(summary)
  await writeAtomic(join(opts.out, 'hold.md'), md)
  process.stdout.write(md)
  return 0
}

runMain(import.meta.url, 'validate-hold', main)
