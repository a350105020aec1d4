// `npm run lab`: parse options, plan, calibrate, run each server, print the table, write the report.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HELP, parseOptions, checkWork } from './options.js'
import { ROOT, catalog } from './catalog.js'
import { experimentNames, loadExperiment } from './experiments/index.js'
import custom from './experiments/custom.js'
import { calibrate } from './run/calibrate.js'
import { runEntry } from './run/runner.js'
import { buildHttpResult, buildReport, machine, packageVersion } from './report/build.js'
import { reportTable, renderText } from './report/table.js'
import { renderMarkdown } from './report/markdown.js'
import { checkWritableDir, ensureDir, freeId, reportId, writeAtomic } from './report/write.js'
import { LabError, usageError } from './errors.js'
import { resolveLoad, entryLoad } from './run/load.js'
import { formatRoundProgress } from './progress.js'

const isTTY = process.stderr.isTTY
// Progress lines go to a terminal only; LOADLAB_PROGRESS=1 forces them (one plain line per step).
const progressLines = !isTTY && process.env.LOADLAB_PROGRESS === '1'

function shellQuote (a) {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`
}

// The exact command line, as the user typed it (npm run lab -- ... or node loadtest/cli.js ...).
function commandLine (argv) {
  const args = argv.map(shellQuote).join(' ')
  if (process.env.npm_lifecycle_event === 'lab') return `npm run lab${args ? ' -- ' + args : ''}`
  return `node loadtest/cli.js${args ? ' ' + args : ''}`
}

function listText () {
  const lines = ['Servers:']
  for (const s of catalog()) lines.push(`  ${s.name.padEnd(22)}${s.description}${s.available ? '' : ' (not built)'}`)
  lines.push('', 'Experiments:')
  return lines
}

async function list () {
  const lines = listText()
  for (const name of experimentNames()) {
    let title = ''
    try { title = (await loadExperiment(name)).title ?? '' } catch (err) { title = `(cannot load: ${err.message.split('\n')[0]})` }
    lines.push(`  ${name.padEnd(22)}${title}`)
  }
  process.stdout.write(lines.join('\n') + '\n')
}

// Progress of one server: step texts, and live round events (formatRoundProgress) refreshed in place on
// a terminal, or one plain line a second with LOADLAB_PROGRESS=1.
function makeProgress (index, total, name) {
  const prefix = `[${index}/${total}] ${name}`
  if (progressLines) {
    let last = ''
    let lastLive = -Infinity
    const line = (text) => {
      if (typeof text === 'object') {
        if (text.elapsedMs - lastLive < 1000) return
        lastLive = text.elapsedMs
        process.stderr.write(`${prefix}: ${formatRoundProgress(text)}\n`)
        return
      }
      const step = text.replace(/ \d+(\/\d+)?$/, '')
      if (step !== last) process.stderr.write(`${prefix}: ${step}\n`)
      last = step
    }
    return { update: line, done: line }
  }
  if (!isTTY) return { update () {}, done () {} }
  return {
    update (text) {
      process.stderr.write(`\r\x1b[K${prefix}: ${typeof text === 'object' ? formatRoundProgress(text) : text}`)
    },
    done (text) { process.stderr.write(`\r\x1b[K${prefix}: ${text}\n`) }
  }
}

async function main (argv) {
  const opts = parseOptions(argv)
  if (opts.help) { process.stdout.write(HELP); return 0 }
  if (opts.list) { await list(); return 0 }
  if (opts.work) await checkWork(opts.work)

  const experimentName = opts.experiment ?? (opts.url ? 'custom' : opts.server ? 'custom' : 'tour')
  const experiment = experimentName === 'custom' ? custom : await loadExperiment(experimentName)
  const load = resolveLoad(opts, experiment)
  const planOpts = { ...load, work: opts.work, servers: opts.server, quick: opts.quick, user: { connections: opts.connections, amount: opts.amount, durationSec: opts.duration, timeoutSec: opts.timeout, warmup: opts.warmup, work: opts.work } }
  const inProcess = typeof experiment.run === 'function'
  if (inProcess && opts.server) throw usageError(`--server: experiment ${experimentName} runs in-process, without servers`)
  let plan = []
  if (opts.url) {
    plan = [{ server: new URL(opts.url).host, variant: null, args: [], work: opts.work ?? null, key: null }]
  } else if (!inProcess) {
    plan = experiment.plan(planOpts)
    if (opts.server && experimentName !== 'custom') plan = plan.filter((e) => opts.server.includes(e.server))
    if (plan.length === 0) throw usageError(`--server: experiment ${experimentName} has no entry for ${opts.server?.join(', ') ?? 'any built server'}`)
  }
  const loads = plan.map((e) => entryLoad(e, load)) // may throw a usage error: before anything starts
  for (const e of plan) if (e.work) await checkWork(e.work, `work (${e.server})`)
  try {
    await checkWritableDir(opts.out)
  } catch (err) {
    throw usageError(`--out: cannot write reports into ${opts.out}: ${err.code ?? err.message}`)
  }

  const controller = new AbortController()
  let sigints = 0
  let exitOnSignal = 130
  const onSigint = (signal) => {
    sigints++
    exitOnSignal = signal === 'SIGTERM' ? 143 : 130
    if (sigints === 1) {
      process.stderr.write(`\ninterrupted (${signal}): stopping the current run and the server, writing what was measured (Ctrl-C again to quit now)\n`)
      controller.abort()
    } else {
      process.exit(exitOnSignal)
    }
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigint)

  const createdAt = new Date()
  const m = machine()
  const notes = []
  if (opts.url) notes.push(`outside sampling skipped: --url ${opts.url} (a server the lab did not start)`)
  let calibration = {}
  const results = []
  let htmlError = null
  let experimentError = null
  if (typeof experiment.notes === 'function') notes.push(...experiment.notes(planOpts))
  else if (Array.isArray(experiment.notes)) notes.push(...experiment.notes)
  try {
    if (inProcess) {
      const progress = makeProgress(1, 1, experimentName)
      try {
        const out = await experiment.run({ ...planOpts }, { signal: controller.signal, progress: (t) => progress.update(t) })
        results.push(...out)
        progress.done(controller.signal.aborted ? 'interrupted' : 'done')
      } catch (err) {
        progress.done(`FAILED: ${err.message.split('\n')[0]}`)
        if (!controller.signal.aborted) {
          experimentError = err
          notes.push(`experiment ${experimentName} failed: ${err.message.split('\n')[0]}`)
        }
      }
    } else {
      const specs = [...new Set(plan.map((e) => e.work).filter(Boolean))]
      if (specs.length && !controller.signal.aborted) {
        if (isTTY) process.stderr.write(`calibrating ${specs.join(', ')} …\n`)
        calibration = await calibrate(specs, { signal: controller.signal }).catch((err) => {
          if (controller.signal.aborted) return {}
          throw err
        })
      }
      const bootTimeoutMs = Number(process.env.LOADLAB_BOOT_TIMEOUT_MS) || 30000
      for (const [i, entry] of plan.entries()) {
        if (controller.signal.aborted) break
        const name = entry.variant ? `${entry.server}/${entry.variant}` : entry.server
        const progress = makeProgress(i + 1, plan.length, name)
        const raw = await runEntry(entry, loads[i], { signal: controller.signal, progress: progress.update, bootTimeoutMs, url: opts.url })
        results.push(raw)
        const summary = buildHttpResult(raw, { calibration, cores: m.availableParallelism })
        progress.done(raw.failure ? `FAILED: ${raw.failure.reason}` : raw.interrupted ? 'interrupted' : `done, ${summary.rps?.toFixed(1) ?? '-'} req/s${summary.trusted ? '' : ` (untrusted: ${summary.untrusted.join('; ')})`}`)
      }
      const missing = [...new Set(results.map((r) => r.workReported).filter((w) => w && !calibration[w]))]
      if (missing.length && !controller.signal.aborted) {
        // Work specs only the servers' ready lines named (a run without --work): calibrated last.
        try {
          Object.assign(calibration, await calibrate(missing, { signal: controller.signal }))
        } catch (err) {
          notes.push(`calibration of ${missing.join(', ')} failed: ${err.message.split('\n')[0]}`)
        }
      }
    }
  } catch (err) {
    // A lab error (not a server's fault): nothing more will be measured; servers are stopped by now.
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigint)
    throw err
  }
  // The handlers stay while the report is written: a Ctrl-C now is already taken as an interruption.
  const interrupted = controller.signal.aborted
  if (interrupted) notes.push(`interrupted (${exitOnSignal === 143 ? 'SIGTERM' : 'SIGINT'}): results hold what was measured before the interruption`)

  const finalResults = inProcess ? results : results.map((raw) => buildHttpResult(raw, { calibration, cores: m.availableParallelism }))
  const outDir = opts.out
  await ensureDir(outDir)
  const id = await freeId(outDir, reportId(createdAt, m.hostname, experimentName))
  const report = buildReport({
    id,
    createdAt: createdAt.toISOString(),
    finishedAt: new Date().toISOString(),
    interrupted,
    failed: experimentError !== null,
    experiment: experimentName,
    label: opts.label,
    machine: m,
    method: {
      tool: inProcess ? 'in-process' : 'autocannon',
      toolVersion: inProcess ? null : packageVersion('autocannon'),
      connections: inProcess ? null : load.connections,
      amount: inProcess ? null : load.amount,
      durationSec: inProcess ? null : load.durationSec,
      timeoutSec: inProcess ? null : load.timeoutSec,
      warmup: load.warmup > 0 ? { amount: load.warmup } : null,
      recovery: inProcess || load.recovery === false ? null : { timeoutSec: load.recoveryTimeoutSec ?? Math.max(10, load.timeoutSec) },
      runs: load.runs,
      url: opts.url ?? null,
      outsideSampling: !opts.url && !inProcess,
      command: commandLine(argv)
    },
    calibration,
    results: finalResults,
    notes
  })
  const table = reportTable(report, experiment)
  // An experiment's own table (the study's shape) travels in the report, so the HTML page shows it too.
  if (typeof experiment?.table === 'function') report.table = { title: experiment.title ?? experimentName, ...table }
  process.stderr.write('\n' + renderText(table))
  const base = join(outDir, id)
  await writeAtomic(`${base}.json`, JSON.stringify(report, null, 2) + '\n')
  await writeAtomic(`${base}.md`, renderMarkdown(report, experiment))
  try {
    const { renderReportHtml } = await import('./report/page.js')
    await writeAtomic(`${base}.html`, renderReportHtml(report))
  } catch (err) {
    htmlError = err
  }
  process.stderr.write(`report: ${base}.json (.md${htmlError ? '' : ', .html'})\n`)
  if (htmlError) process.stderr.write(`error: HTML report not written: ${htmlError.message.split('\n')[0]} (the JSON and Markdown are)\n`)
  if (experimentError) process.stderr.write(`error: experiment ${experimentName} failed: ${experimentError.stack ?? experimentError}\n`)
  if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  process.off('SIGINT', onSigint)
  process.off('SIGTERM', onSigint)
  if (interrupted) return exitOnSignal
  if (report.status === 'failed' || htmlError) return 1
  return 0
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code
}, (err) => {
  if (err instanceof LabError) {
    process.stderr.write(`${pkg.name} lab: ${err.message}\n`)
    process.exitCode = err.exitCode
  } else {
    process.stderr.write(`${pkg.name} lab: ${err.stack ?? err}\n`)
    process.exitCode = 1
  }
})
