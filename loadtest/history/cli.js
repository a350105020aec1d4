// `loadlab history DIR… [--json | --csv] [--html FILE] [--force] [--fail-on-change BOUND …]` (npm run
// history): reads every report in the folders, prints each series with a change, newest first; a report
// left out is one line on stderr. Refusals: one line, exit 2; a --fail-on-change bound crossed: exit 99.
import { parseArgs } from 'node:util'
import { THRESHOLD_EXIT } from '../report/thresholds.js'
import { writeAtomic } from '../report/write.js'
import { pageFault, pageWriteText } from '../report/page-file.js'
import { jsonText, termText } from '../text/escape.js'
import { gateText, historyText, passedDisturbedText } from '../text/history.js'
import { userCwd } from '../paths.js'
import { runCli, runMain, usageError } from '../errors.js'
import { history, MAX_DEPTH, parseBound, reportFiles } from './history.js'
import { optionLines, parseArgsOptions } from '../flags.js'

// The options (loadtest/flags.js): the parser, the help and docs/reference/options.md read them.
export const FLAGS = [{
  title: 'options',
  flags: [
    { name: 'json', help: 'print the whole history as JSON' },
    {
      name: 'csv',
      help: 'print one row per report: time, commit, report, machine, then one column per series (the layout ' +
        'Apache Otava\'s CSV importer reads)'
    },
    {
      name: 'html',
      arg: 'FILE',
      help: 'also write a page: one chart per series, changes marked, machines shaded'
    },
    { name: 'force', help: 'overwrite the --html file if it exists' },
    {
      name: 'fail-on-change',
      arg: 'BOUND',
      multiple: true,
      initial: [],
      help: `exit ${THRESHOLD_EXIT} when the newest segment of a series on some machine is worse than the one ` +
        'before past BOUND and significant, whatever moved the ruler, repeatable: e.g. \'p99:+10%\', ' +
        '\'rps:-5%\'; also when any of a machine\'s newest runs of a series were marked disturbed'
    },
    { name: 'allow-disturbed', help: 'let --fail-on-change pass such series (each still named on stderr)' },
    { name: 'help', short: 'h', help: 'this text' }
  ]
}]

export const HELP = `usage: loadlab history DIR… [options]      (npm run history -- DIR… [options])

Reads every report (*.json) in the folders given and groups its figures into series: per
experiment, run (server, variant, work, runtime), figure (p50, p99, rps, capacity; an in-process
case's meanMs) and machine (its machine block: CPU model, cores, memory, kernel); folders below
those given are read ${MAX_DEPTH} deep. Each machine's part of a series is tested for change points:
E-divisive means with a Welch t-test and a minimum segment length (docs/history.md). A move to
another machine block is a change of machine, not of code; a ruler that moved beside a change of
code flags it, and runs marked disturbed are said.

${optionLines(FLAGS, 26)}`

const OPTIONS = parseArgsOptions(FLAGS)

function parse (argv) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    throw usageError(`history: ${err.message.split('\n')[0]} (see --help)`)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (values.json && values.csv) throw usageError('history: --json and --csv both print to stdout: give one')
  if (values.html === '') throw usageError('history: --html needs a file name')
  if (!positionals.length) throw usageError('history: expected one or more folders of reports (see --help)')
  return { paths: positionals, ...values, bounds: values['fail-on-change'].map(parseBound) }
}

// history from argv: resolves the exit code (0, or 99 past a --fail-on-change bound); an error a user
// caused is one line, exit 2 (report/page-file.js, history.js).
export async function main (argv) {
  const opts = parse(argv)
  if (opts.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  if (opts.html) { // never a page over an input report, through a link either; its folder there
    const fault = await pageFault(opts.html, reportFiles(opts.paths), { force: opts.force })
    if (fault) throw usageError(`history: ${fault.message}`)
  }
  const leftOut = (skipped) => {
    for (const s of skipped) process.stderr.write(`history: left out: ${termText(s.message)}\n`)
  }
  const h = await history(opts.paths, {
    failOnChange: opts.bounds, allowDisturbed: opts['allow-disturbed']
  }).catch((err) => {
    leftOut(err.skipped ?? []) // no report to follow: each file left out still says why
    throw err
  })
  const { failures } = h
  leftOut(h.skipped)
  if (opts.json) process.stdout.write(jsonText(h) + '\n')
  else if (opts.csv) {
    const { historyCsv } = await import('./render.js')
    process.stdout.write(historyCsv(h))
  } else process.stdout.write(historyText(h, { failures }).split('\n').map(termText).join('\n'))
  if (opts.html) {
    const { renderHistoryHtml } = await import('./render.js')
    await writeAtomic(opts.html, renderHistoryHtml(h), { force: opts.force }).catch((err) => {
      throw usageError(`history: ${pageWriteText(err, opts.html)}`)
    })
    process.stderr.write(`history: wrote ${termText(opts.html)}\n`)
  }
  const say = (line) => process.stderr.write(`history: ${termText(line)}\n`)
  for (const p of h.passedDisturbed) say(passedDisturbedText(p))
  if (failures.length) {
    for (const f of failures) say(gateText(f))
    say(`${failures.length} series failed a --fail-on-change bound: exit ${THRESHOLD_EXIT}`)
    return THRESHOLD_EXIT
  }
  return 0
}

// main, with an error as one line and its exit code.
export function run (argv) {
  return runCli('history', () => main(argv))
}

runMain(import.meta.url, 'history', (argv) => {
  process.chdir(userCwd()) // npm run history: the folders are from the user's directory
  return main(argv)
})
