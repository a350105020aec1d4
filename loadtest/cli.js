// `npm run lab`: parse the options, run the lab (lab.js runLab), show progress and the table, write
// the report, set the exit code. Importing this module runs nothing.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HELP, parseOptions } from './options.js'
import { ROOT, catalog, variants } from './catalog.js'
import { experimentFor, experimentNames } from './experiments/index.js'
import { runLab } from './lab.js'
import { reportTable, renderText, whyLines } from './report/table.js'
import { pairedTable } from './text/paired.js'
import { decisionText } from './report/decision.js'
import { termText } from './text/escape.js'
import { experimentTitle } from './text/sentences.js'
import { writeReportFiles } from './report/files.js'
import { commandText } from './result/command.js'
import { secretArgs } from './fanout/secrets.js'
import { interruptions, runCli, runMain } from './errors.js'
import { formatRoundProgress, formatRulerProgress } from './progress.js'
import { THRESHOLD_EXIT, anyCrossed, thresholdRows, thresholdSummary } from './report/thresholds.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

// The exact command line, as the user typed it (npm run lab -- ..., node loadtest/cli.js ... or `prog` ...).
function commandLine (argv, prog) {
  // a password or a token never reaches the report (result/redact.js)
  if (prog) return commandText(prog.split(' '), argv)
  if (process.env.npm_lifecycle_event === 'lab') {
    return commandText(['npm', 'run', 'lab', ...(argv.length ? ['--'] : [])], argv)
  }
  return commandText(['node', 'loadtest/cli.js'], argv)
}

// An experiment's load defaults as the flags that change them (`-c 10 -a 200 --warmup 20`), then --quick's;
// '' for an experiment whose cases are its own (dispatch, ssr-offload).
export function defaultsText ({ defaults = {}, quick = {} }) {
  const flags = [['connections', '-c'], ['amount', '-a'], ['durationSec', '-d'], ['timeoutSec', '-t'],
    ['runs', '--runs'], ['warmup', '--warmup'], ['work', '--work']]
  const words = (d) => flags.filter(([k]) => d[k] !== null && d[k] !== undefined).map(([k, f]) => `${f} ${d[k]}`)
  const own = words(defaults)
  if (!own.length) return ''
  const q = words(quick)
  return `${own.join(' ')}${q.length ? `; --quick: ${q.join(' ')}` : ''}`
}

async function list () {
  const lines = ['Servers:']
  for (const s of catalog()) lines.push(`  ${s.name.padEnd(22)}${s.description}${s.available ? '' : ' (not built)'}`)
  lines.push('', 'Variants (the experiment that runs them; shedding: docs/overload.md):')
  for (const v of variants()) lines.push(`  ${v.key.padEnd(30)}${v.description} [${v.experiment}]`)
  lines.push('', 'Experiments, each with its defaults (a flag given wins; custom: --server, --url or --task alone):')
  for (const name of ['custom', ...experimentNames()]) {
    let title = ''
    let given = ''
    try {
      const experiment = await experimentFor(name)
      title = experimentTitle(experiment)
      given = defaultsText(experiment)
    } catch (err) {
      title = `(cannot load: ${err.message.split('\n')[0]})`
    }
    lines.push(`  ${name.padEnd(22)}${title}`)
    if (given) lines.push(`  ${''.padEnd(22)}${given}`)
  }
  process.stdout.write(lines.join('\n') + '\n')
}

// Renders runLab's progress events on stderr: refreshed in place on a terminal, one plain line per
// step (and a live round line a second) with LOADLAB_PROGRESS=1, nothing otherwise. A step's text is a
// string; a live round event's `round` ({ elapsedMs, … }) is turned into one line by formatRoundProgress.
function progressRenderer (stream = process.stderr) {
  const lines = !stream.isTTY && process.env.LOADLAB_PROGRESS === '1'
  let last = ''
  let lastLive = -Infinity
  return (e) => {
    if (e.type === 'runtime' || e.type === 'note') {
      // installing a runtime takes a while; a note (a mode left out, and why) is the report's too: always said
      stream.write(`${stream.isTTY ? '\r\x1b[K' : ''}${termText(e.text)}\n`)
      return
    }
    if (e.type === 'ruler') { // the machine read before and after the run (run/ruler/), said as it is read
      const text = formatRulerProgress(e)
      if (stream.isTTY) stream.write(`\r\x1b[K${text}${e.reading ? '\n' : ''}`)
      else if (lines) stream.write(`${text}\n`)
      return
    }
    if (e.type === 'calibrating') {
      const on = e.runtime ? ` on ${e.runtime}` : ''
      if (stream.isTTY || lines) stream.write(`calibrating ${e.specs.join(', ')}${on} …\n`)
      return
    }
    const prefix = `[${e.index}/${e.total}] ${termText(e.name)}`
    const live = e.type === 'round'
    const text = live ? formatRoundProgress(e.round) : termText(e.text)
    if (lines) {
      if (live) {
        if (e.round.elapsedMs - lastLive < 1000) return
        lastLive = e.round.elapsedMs
        stream.write(`${prefix}: ${text}\n`)
        return
      }
      const step = `${prefix}: ${text.replace(/ \d+(\/\d+)?$/, '')}`
      if (step !== last) stream.write(`${step}\n`)
      last = step
    } else if (stream.isTTY) {
      stream.write(`\r\x1b[K${prefix}: ${text}${e.type === 'done' ? '\n' : ''}`)
    }
  }
}

// The lab from argv to exit code; `prog` names the command in the report (the bin: loadlab).
export async function main (given, { prog = null } = {}) {
  const argv = [...given, ...secretArgs(process.env)] // a fan-out's shard: its --url and -H, never on its command line
  const opts = parseOptions(argv)
  if (opts.help) { // under the bin (npx loadlab), its own usage line and examples
    const npx = () => HELP.replace('Usage: npm run lab -- [options]', 'Usage: npx loadlab [options]')
      .replace(/^( {2})npm run lab -- (.*?)( {2,})/gm, '$1npx loadlab $2$3   ') // an example's words stay in line
      .replace(/npm run (-s )?lab -- /g, 'npx loadlab ')
    process.stdout.write(prog === 'loadlab' ? npx() : HELP)
    return 0
  }
  if (opts.list) {
    await list()
    return 0
  }
  const stop = interruptions()
  try {
    const report = await runLab(opts, {
      signal: stop.signal,
      onProgress: progressRenderer(),
      command: commandLine(argv, prog)
    })
    const experiment = await experimentFor(report.experiment)
    process.stderr.write('\n' + renderText(reportTable(report, experiment)))
    for (const line of whyLines(report)) process.stderr.write(termText(line) + '\n') // each ! and ✗, why
    const paired = pairedTable(report.paired) // --runs N: each server's figures over the baseline's, by round
    if (paired) process.stderr.write(`\n${termText(paired.title)}\n${renderText(paired)}`)
    if (report.thresholds) process.stderr.write('\n' + renderText(thresholdRows(report.thresholds)))
    const out = await writeReportFiles(report, { dir: opts.out, experiment, gzip: opts.gzip })
    const base = join(out.dir, out.id)
    process.stderr.write(
      `report: ${out.paths[0]} (${
        out.paths
          .slice(1)
          .map((p) => p.slice(base.length))
          .join(', ') || 'no .md or .html'
      })\n`
    )
    if (out.fallback) {
      process.stderr.write(
        `error: could not write into ${out.fallback.from} (${out.fallback.reason}): the report went to ${out.dir}\n`
      )
    }
    if (report.thresholds) process.stderr.write(thresholdSummary(report.thresholds) + '\n')
    for (const e of out.errors) process.stderr.write(`error: ${e.file} not written: ${e.message} (the JSON is)\n`)
    // The decision (capacity experiment) is the terminal's last block: what stays on screen.
    if (report.decision) process.stderr.write('\n' + decisionText(report.decision, report.results))
    if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
    if (stop.exitCode !== null) return stop.exitCode
    if (report.status === 'failed' || out.fallback || out.errors.length) return 1
    return anyCrossed(report.thresholds) ? THRESHOLD_EXIT : 0
  } finally {
    stop.off()
  }
}

// main, with an error as one line (a stack for a bug) and its exit code; resolves the exit code.
export function run (argv, opts) {
  return runCli(`${pkg.name} lab`, () => main(argv, opts))
}

runMain(import.meta.url, `${pkg.name} lab`, main)
