// `npm run ab -- A B [options]` (loadlab ab): parse, run abCompare, print the table on stderr (the
// report on stdout with --json), write the report, set the exit code: 0, 2 for a usage error, 1 for
// a failed block, 99 when a --fail-on bound is crossed, 130/143 when interrupted (the blocks
// measured are written).
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { HELP, parseAbArgs } from './options.js'

// The table its parser, --help and docs/reference/options.md read (loadtest/flags.js).
export { FLAGS, HELP } from './options.js'
import { abCompare } from './ab.js'
import { abHeading, abRuleText, abTable, blockLine } from '../text/ab.js'
import { renderText } from '../report/table.js'
import { termText } from '../text/escape.js'
import { writeAtomic } from '../report/write.js'
import { defaultReportsDir } from '../settings.js'
import { ROOT } from '../catalog.js'
import { THRESHOLD_EXIT } from '../report/thresholds.js'
import { userCwd, userPath } from '../paths.js'
import { interruptions, runCli, runMain, usageError } from '../errors.js'

const say = (text) => process.stderr.write(`${termText(text)}\n`)

// The report's folder, made before any block runs (the lab's reports folder unless --out): one
// line, exit 2.
async function reportsDir (out) {
  const dir = out === undefined ? defaultReportsDir(userCwd(), ROOT) : userPath(out, userCwd())
  await mkdir(dir, { recursive: true }).catch((err) => {
    throw usageError(`--out: cannot write reports into ${dir}: ${err.code ?? err.message}`)
  })
  return dir
}

// ab from argv; resolves the exit code.
export async function main (argv) {
  const options = parseAbArgs(argv)
  if (options.help) {
    process.stdout.write(HELP)
    return 0
  }
  // Ctrl-C or SIGTERM once: stop the block, keep what was measured; twice: quit now
  const stop = interruptions((sig) =>
    say(`interrupted (${sig}): stopping the block, writing the blocks measured (again to quit now)`))
  try {
    const { json, out, ...rest } = options
    const dir = await reportsDir(out)
    const report = await abCompare(rest, { signal: stop.signal, onBlock: (b) => say(blockLine(b)) })
    say('')
    say(abHeading(report))
    process.stderr.write(renderText(abTable(report)))
    say(abRuleText(report.settings.effect))
    const file = join(dir, `${report.id}.json`)
    say(`report: ${await writeAtomic(file, JSON.stringify(report, null, 2) + '\n')}`)
    if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
    if (stop.exitCode !== null) return stop.exitCode
    if (report.stopped === 'failed') return 1
    return report.failOn.some((b) => b.crossed) ? THRESHOLD_EXIT : 0
  } finally {
    stop.off()
  }
}

// main with an error as one line and its exit code (bin/loadlab.js); resolves the exit code.
export function run (argv) {
  return runCli('ab', () => main(argv))
}

runMain(import.meta.url, 'ab', (argv) => {
  process.chdir(userCwd()) // npm run ab: task files and --out from the user's directory
  return main(argv)
})
