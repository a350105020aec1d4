// `npm run compare -- A.json B.json [...] [--baseline FILE] [--html FILE] [--units ms|service] [--force]
// [--fail-on BOUND ...]`: reads loadlab reports, lines up the runs they share and prints a Markdown
// comparison to stdout; `--html FILE` also writes the page with charts. Refusals: one line on stderr,
// exit code 2; a --fail-on bound crossed: exit code 99 once everything is printed and written.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { anyRegressed, comparisonData, CompareError, FAIL_ON_GRAMMAR, parseFailOn, UNITS } from './compare.js'
import { compareReports, readReport } from './api.js'
import { jsonText, termCode, termText } from '../text/escape.js'
import { THRESHOLD_EXIT } from '../report/thresholds.js'
import { writeAtomic } from '../report/write.js'
import { pageFault, pageWriteText } from '../report/page-file.js'
import { userCwd } from '../paths.js'
import { runCli, runMain } from '../errors.js'
import { ruleText } from '../text/compare.js'
import { optionLines, parseArgsOptions, wrap } from '../flags.js'

// The options (loadtest/flags.js): the parser, the help and docs/reference/options.md read them.
export const FLAGS = [{
  title: 'options',
  flags: [
    {
      name: 'baseline',
      arg: 'FILE',
      default: 'the first',
      help: 'the report the ratios are to (one of the given files)'
    },
    {
      name: 'html',
      arg: 'FILE',
      help: 'also write an HTML page with the charts overlaid per machine'
    },
    {
      name: 'units',
      arg: UNITS.join('|'),
      initial: 'ms',
      help: 'latency in ms or in multiples of each machine\'s calibrated service time'
    },
    { name: 'force', help: 'overwrite the --html file if it exists' },
    {
      name: 'json',
      help: 'print the comparison as JSON (every figure: ratio, interval, verdict, share the ruler explains) ' +
        'instead of Markdown'
    },
    {
      name: 'fail-on',
      arg: 'BOUND',
      multiple: true,
      initial: [],
      help: `exit ${THRESHOLD_EXIT} when a run common to the baseline and another report regresses past BOUND, ` +
        `repeatable: ${FAIL_ON_GRAMMAR}. A change within noise does not fail; one put down to the machine by the ` +
        'rulers does'
    },
    {
      name: 'allow-machine',
      help: 'let a change past a bound that the rulers put down to the machine pass --fail-on'
    },
    { name: 'help', short: 'h', help: 'this text' }
  ]
}]
import { setAsideText } from '../text/ruler.js'

export const HELP = `usage: npm run compare -- A.json B.json [...] [options]
       npm run compare -- RUNTIMES.json [options]   (one report made under lab --node 20,24)

Lines up the runs the reports share (same server, variant, work and, under lab --node, runtime) with
one column group per report and the ratio to the baseline; Markdown to stdout. One report made under
several runtimes gets one column group per runtime.

${optionLines(FLAGS, 21)}

Verdicts, from one run each (docs/compare.md):
${wrap(ruleText(), 0)}`

const OPTIONS = parseArgsOptions(FLAGS)

// Parses argv into { files, baseline, html, units, force, help }; throws CompareError on bad flags.
function parseCompareArgs (argv) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true })
  } catch (err) {
    throw new CompareError(`${err.message.split('\n')[0]} (see --help)`, 'LAB_COMPARE_USAGE')
  }
  for (const name of ['baseline', 'html', 'units']) {
    const given = parsed.tokens.filter((t) => t.kind === 'option' && t.name === name).length
    if (given > 1) throw new CompareError(`--${name} given ${given} times: give it once`, 'LAB_COMPARE_USAGE')
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (!UNITS.includes(values.units)) {
    throw new CompareError(
      `--units must be one of ${UNITS.join(', ')}, got ${JSON.stringify(values.units)}`,
      'LAB_COMPARE_UNITS'
    )
  }
  if (values.html === '') throw new CompareError('--html needs a file name', 'LAB_COMPARE_USAGE')
  if (positionals.length < 1) {
    throw new CompareError(
      'compare needs at least two report files, or one made under lab --node with two runtimes (see --help)',
      'LAB_COMPARE_TOO_FEW'
    )
  }
  const failOn = values['fail-on'].map(parseFailOn)
  return {
    files: positionals,
    baseline: values.baseline ?? null,
    html: values.html ?? null,
    units: values.units,
    force: values.force,
    json: values.json,
    failOn,
    allowMachine: values['allow-machine'],
    help: false
  }
}

// Reading a report file (compare/api.js): for merge's CLI and the scripts, which read it from here too.
export { readReport }

// Writes the --html page atomically; an existing file (without --force) or a folder that cannot take
// it is a refusal, not a stack trace.
async function writePage (file, text, { force }) {
  try {
    await writeAtomic(file, text, { force })
  } catch (err) {
    throw new CompareError(pageWriteText(err, file), err.code === 'EEXIST' ? 'LAB_COMPARE_EXISTS' : 'LAB_COMPARE_WRITE')
  }
}

// The codes of report/page-file.js's refusals, as compare has always given them.
const PAGE_CODES = { folder: 'LAB_COMPARE_WRITE', input: 'LAB_COMPARE_USAGE', exists: 'LAB_COMPARE_EXISTS' }

// Runs compare for argv; returns { stdout, wrote, pageError, regressions, exitCode } or throws (CompareError
// for user errors).
async function runCompare (argv) {
  const opts = parseCompareArgs(argv)
  if (opts.help) return { stdout: HELP + '\n', wrote: null }
  let baseline = 0
  if (opts.baseline !== null) {
    baseline = opts.files.findIndex((f) => resolve(f) === resolve(opts.baseline))
    if (baseline === -1) {
      throw new CompareError(
      `--baseline ${opts.baseline} is not one of the given reports`,
      'LAB_COMPARE_BASELINE'
      )
    }
  }
  const fault = opts.html === null ? null : await pageFault(opts.html, opts.files, { force: opts.force })
  if (fault) throw new CompareError(fault.message, PAGE_CODES[fault.code])
  const reports = []
  for (const file of opts.files) reports.push(await readReport(file))
  const cmp = compareReports(reports, {
    baseline, units: opts.units, failOn: opts.failOn, names: opts.files, allowMachine: opts.allowMachine
  })
  // loaded here, not at the top: the renderers bring the charts' vega (about 0.5 s to load), which a
  // refusal, --help or a module reading readReport never needs
  const { gateLine, renderCompareHtml, renderCompareMarkdown } = await import('./render.js')
  const stdout = opts.json ? `${jsonText(comparisonData(cmp))}\n` : renderCompareMarkdown(cmp)
  const pageError = opts.html === null ? null : await writeComparePage(opts.html, cmp, { ...opts, renderCompareHtml })
  const regressions = cmp.gates.flatMap((g) =>
    g.runs.filter((r) => r.fails).map((r) => gateLine(cmp, g, r, { code: termCode }))
  )
  // each ruler set aside, in its one line (the Markdown's notes say it too)
  const setAside = cmp.machines.rulers
    .flatMap((r, i) => (r?.setAside ? [setAsideText(cmp.reports[i].letter, r.setAside)] : []))
  return {
    stdout,
    wrote: opts.html !== null && !pageError ? opts.html : null,
    pageError,
    regressions,
    setAside,
    exitCode: anyRegressed(cmp) ? THRESHOLD_EXIT : pageError ? 2 : 0
  }
}

// Renders and writes the --html page; returns null, or the CompareError saying why there is no page
// (the Markdown is printed all the same: it is never lost to the page).
async function writeComparePage (file, cmp, { force, renderCompareHtml }) {
  let text
  try {
    text = renderCompareHtml(cmp)
  } catch (err) {
    return new CompareError(
      `--html: the page could not be rendered (${err.message}); ${file} not written`,
      'LAB_COMPARE_WRITE'
    )
  }
  return writePage(file, text, { force }).then(() => null, (err) => err)
}

// One line on stderr; every free text in it (file names, keys, a parser's quote of a file) is made safe
// for a terminal: no control sequence, no line break.
function say (text) {
  process.stderr.write(`compare: ${termText(text)}\n`)
}

// compare from argv; resolves the exit code.
export async function main (argv = process.argv.slice(2)) {
  const { stdout, wrote, pageError, regressions = [], setAside = [], exitCode = 0 } = await runCompare(argv)
  process.stdout.write(stdout)
  if (wrote) say(`wrote ${wrote}`)
  if (pageError) say(pageError.message)
  for (const line of setAside) say(line)
  for (const line of regressions) say(`--fail-on: ${line}`)
  if (regressions.length) say(`${regressions.length} regression(s) past a --fail-on bound: exit ${exitCode}`)
  return exitCode
}

// main, with an error as one line (a stack for a bug) and its exit code; resolves the exit code.
export function run (argv) {
  return runCli('compare', () => main(argv))
}

runMain(import.meta.url, 'compare', (argv) => {
  process.chdir(userCwd()) // npm run compare: the files and --html are from the user's directory
  return main(argv)
})
