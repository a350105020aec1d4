// `npm run merge -- A.json B.json … [--out DIR]`: one report from the reports of the shards of one plan
// (lab --shard I/N --start-at T), written as the lab writes its own (JSON, Markdown, page). Refusals:
// one line on stderr, exit 2 (reports that are not every shard of one plan, once each, or whose counts
// disagree with their histograms or their slice of the plan).
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readReportFile } from '../report/read.js'
import { experimentFor } from '../experiments/index.js'
import { writeReportFiles } from '../report/files.js'
import { checkWritableDir } from '../report/write.js'
import { userCwd } from '../paths.js'
import { defaultReportsDir } from '../settings.js'
import { ROOT } from '../catalog.js'
import { runCli, runMain } from '../errors.js'
import { mergeError } from './merge.js'
import { mergeReports } from './api.js'
import { commandText } from '../result/command.js'
import { optionLines, parseArgsOptions } from '../flags.js'

// The options (loadtest/flags.js): the parser, the help and docs/reference/options.md read them.
export const FLAGS = [{
  title: 'options',
  flags: [
    {
      name: 'out',
      arg: 'DIR',
      default: 'reports/; ./loadlab-reports/ outside the lab\'s checkout',
      help: 'where the merged report goes'
    },
    { name: 'gzip', help: 'write its JSON compressed, as .json.gz (the shards may be .json or .json.gz)' },
    { name: 'help', short: 'h', help: 'this text' }
  ]
}]

export const HELP = `usage: npm run merge -- A.json B.json [...] [--out DIR] [--gzip]

Writes one report from the reports of the shards of one plan (npm run lab -- --url URL --rate R
--shard I/N --start-at T, one per shard): histograms added, counts summed, rates added, timelines
aligned on the common start, the method naming the shards. The merged report compares and gates
like any other. Refuses (exit 2) reports that are not every shard of one plan exactly once: a
different url, rate, arrival, seed, amount, duration or start, a shard missing or given twice, or a
shard whose counts disagree with its own histograms or its slice of the plan (rate × duration ÷ N,
less what was in flight), or whose rate, percentiles, classes or timeline are not those of its own
counts and histograms. Every merged figure is computed from the counts and histograms; trust is
judged again.

${optionLines(FLAGS, 15)}`

// argv → { files, out, help }; a bad flag is a refusal.
function parseMergeArgs (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: parseArgsOptions(FLAGS)
    })
  } catch (err) {
    throw mergeError(`${err.message.split('\n')[0]} (see --help)`)
  }
  const { values, positionals } = parsed
  if (!values.help && positionals.length < 2) {
    throw mergeError('expected the reports of at least two shards (see --help)')
  }
  const out = values.out === undefined ? defaultReportsDir(userCwd(), ROOT) : resolve(values.out)
  return { files: positionals, out, help: values.help, gzip: values.gzip }
}

// Read, check, merge and write; returns { report, out } (out: writeReport's answer).
async function runMerge (argv, { command = null } = {}) {
  const opts = parseMergeArgs(argv)
  if (opts.help) return { help: HELP }
  const reports = []
  for (const file of opts.files) {
    try {
      reports.push(readReportFile(file)) // checked by mergeReports, shard by shard
    } catch (err) {
      throw mergeError(err.message)
    }
  }
  const report = mergeReports(reports, { names: opts.files, command })
  await checkWritableDir(opts.out).catch((err) => {
    throw mergeError(`--out: cannot write reports into ${opts.out}: ${err.code ?? err.message}`)
  })
  const experiment = await experimentFor(report.experiment)
  const out = await writeReportFiles(report, { dir: opts.out, experiment, gzip: opts.gzip })
  return { report, out }
}

// merge from argv to exit code (`prog`: how the command line is shown in the report).
export async function main (argv, { prog = 'npm run merge --' } = {}) {
  const { help, out, report } = await runMerge(argv, { command: commandText(prog.split(' '), argv) })
  if (help) {
    process.stdout.write(help + '\n')
    return 0
  }
  const r = report.results[0]
  process.stderr.write(
    `merged ${report.method.shards.length} shards: ${r.requests.sent} requests, ${r.rps} req/s, ` +
      `p99 ${r.latency.p99} ms` +
      `${r.trusted ? '' : ` (untrusted: ${r.untrusted.join('; ')})`}\nreport: ${out.paths.join(', ')}\n`
  )
  for (const e of out.errors) process.stderr.write(`error: ${e.file} not written: ${e.message} (the JSON is)\n`)
  return out.fallback || out.errors.length ? 1 : 0
}

// main, with an error as one line (a stack for a bug) and its exit code; resolves the exit code.
export function run (argv, opts) {
  return runCli('merge', () => main(argv, opts))
}

runMain(import.meta.url, 'merge', (argv) => {
  process.chdir(userCwd()) // npm run merge: the files and --out are from the user's directory
  return main(argv)
})
