// `npm run compare -- A.json B.json [...] [--baseline FILE] [--html FILE] [--units ms|service] [--force]
// [--fail-on BOUND ...]`: reads loadlab reports, lines up the runs they share and prints a Markdown
// comparison to stdout; `--html FILE` also writes the page with charts. Refusals: one line on stderr,
// exit code 2; a --fail-on bound crossed: exit code 99 once everything is printed and written.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { anyRegressed, comparisonData, CompareError, FAIL_ON_GRAMMAR, FAILING, parseFailOn, UNITS } from './compare.js'
import { compareReports, readReport } from './api.js'
import { jsonText, termCode, termText } from '../text/escape.js'
import { THRESHOLD_EXIT } from '../report/thresholds.js'
import { writeAtomic } from '../report/write.js'
import { pageFault, pageWriteText } from '../report/page-file.js'
import { userCwd } from '../paths.js'
import { runCli, runMain } from '../errors.js'
import { ruleText } from '../text/compare.js'

export const HELP = `usage: npm run compare -- A.json B.json [...] [options]
       npm run compare -- RUNTIMES.json [options]   (one report made under lab --node 20,24)

Lines up the runs the reports share (same server, variant, work and, under lab --node, runtime) with
one column group per report and the ratio to the baseline; Markdown to stdout. One report made under
several runtimes gets one column group per runtime.

options:
  --baseline FILE    the report the ratios are to (one of the given files; default: the first)
  --html FILE        also write an HTML page with the charts overlaid per machine
  --units ms|service latency in ms (default) or in multiples of each machine's calibrated service time
  --force            overwrite the --html file if it exists
  --json             print the comparison as JSON (every figure: ratio, interval, verdict, share the ruler
                     explains) instead of Markdown
  --fail-on BOUND    exit ${THRESHOLD_EXIT} when a run common to the baseline and another report regresses past
                     BOUND, repeatable: ${wrap(FAIL_ON_GRAMMAR, 21, 40)}.
                     A change within noise, or put down to the machine by the rulers, does not fail
  -h, --help         this text

Verdicts, from one run each (docs/compare.md):
${wrap(ruleText(), 0)}`

// Words wrapped at 110 columns, each line after the first indented by `indent` spaces, the first line
// starting at column `start`.
function wrap (text, indent, start = indent) {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]
    const at = lines.length === 1 ? start : indent
    if (last && at + last.length + word.length + 1 > 110) lines.push(word)
    else lines[lines.length - 1] = last ? `${last} ${word}` : word
  }
  return lines.join(`\n${' '.repeat(indent)}`)
}

const OPTIONS = {
  json: { type: 'boolean', default: false },
  baseline: { type: 'string' },
  html: { type: 'string' },
  units: { type: 'string', default: 'ms' },
  force: { type: 'boolean', default: false },
  'fail-on': { type: 'string', multiple: true, default: [] },
  help: { type: 'boolean', short: 'h', default: false }
}

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
  const cmp = compareReports(reports, { baseline, units: opts.units, failOn: opts.failOn, names: opts.files })
  // loaded here, not at the top: the renderers bring the charts' vega (about 0.5 s to load), which a
  // refusal, --help or a module reading readReport never needs
  const { gateLine, renderCompareHtml, renderCompareMarkdown } = await import('./render.js')
  const stdout = opts.json ? `${jsonText(comparisonData(cmp))}\n` : renderCompareMarkdown(cmp)
  const pageError = opts.html === null ? null : await writeComparePage(opts.html, cmp, { ...opts, renderCompareHtml })
  const regressions = cmp.gates.flatMap((g) =>
    g.runs.filter((r) => FAILING.includes(r.status)).map((r) => gateLine(cmp, g, r, { code: termCode }))
  )
  return {
    stdout,
    wrote: opts.html !== null && !pageError ? opts.html : null,
    pageError,
    regressions,
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
  const { stdout, wrote, pageError, regressions = [], exitCode = 0 } = await runCompare(argv)
  process.stdout.write(stdout)
  if (wrote) say(`wrote ${wrote}`)
  if (pageError) say(pageError.message)
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
