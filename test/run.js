// Runs the node:test suites under test/ and then checks that they left no process behind.
//
// Every process the suites start inherits LOADLAB_TEST_MARK; after the run, any live process whose
// environment still carries this run's mark is a leak: it is listed, killed by its pid, and the
// suite fails. Usage: node test/run.js [--times FILE] [file-or-dir ...] (default: every *.test.js under
// test/); --times writes each file's seconds to FILE, longest first (helpers/times-reporter.js).
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isAlive } from '../loadtest/run/watch/sample.js'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const mark = randomUUID()

// The files of 12 s and more, longest first, by their seconds in a whole run (`node test/run.js --times F`,
// Node 20): a long file started last would run on alone while the other slots idle, and the short files
// after them fill every slot to about the same end. Most of the suite waits on time rather than CPU (a
// sweep's steps, a round's rate, a timeout), so four files run at once on 2 cores (three left the cores
// about a tenth idle). Measure again when a file's cost moves.
const LONGEST_FIRST = [
  'test/loadtest/run/watch/runtimes.test.js',
  'test/loadtest/experiments/capacity.test.js',
  'test/loadtest/experiments/studies.test.js',
  'test/bench.test.js',
  'test/loadtest/hardening-hostile.test.js',
  'test/loadtest/mix-url.test.js',
  'test/servers/fleet-cpu.test.js',
  'test/pack.test.js',
  'test/loadtest/report/browser.test.js',
  'test/examples.test.js',
  'test/loadtest/lab-tour.test.js',
  'test/dockerfile.test.js',
  'test/loadtest/lab-run.test.js',
  'test/servers/task.test.js',
  'test/loadtest/fanout/trust.test.js',
  'test/loadtest/compare/gates.test.js',
  'test/loadtest/lab-task.test.js',
  'test/servers/limits.test.js',
  'test/loadtest/lab-timeline.test.js',
  'test/loadtest/run/watch/sample-ps.test.js',
  'test/servers/failures.test.js',
  'test/loadtest/fanout/netns.test.js',
  'test/loadtest/experiments/overload.test.js',
  'test/loadtest/compare/compare.test.js',
  'test/loadtest/phases-real.test.js',
  'test/servers/shedding.test.js',
  'test/servers/fleet-studies.test.js',
  'test/loadtest/lab-failures.test.js',
  'test/loadtest/merge/merge.test.js',
  'test/servers/shutdown.test.js',
  'test/examples-kubernetes.test.js',
  'test/loadtest/compare/hostile.test.js',
  'test/scripts/capacity-cost.test.js',
  'test/api/docs.test.js',
  'test/loadtest/fanout/fanout.test.js',
  'test/scripts/validate-hold.test.js',
  'test/loadtest/merge/merge-mix.test.js',
  'test/api/api.test.js',
  'test/loadtest/lab-signals.test.js',
  'test/servers/process-pool-hardening.test.js',
  'test/loadtest/report/thresholds.test.js',
  'test/loadtest/run/generate/http1-protocol.test.js',
  'test/loadtest/experiments/dispatch.test.js',
  'test/scripts/validate-capacity.test.js',
  'test/loadtest/report/write.test.js',
  'test/loadtest/lab-env.test.js',
  'test/loadtest/run/watch/task.test.js',
  'test/loadtest/ab/cli.test.js',
  'test/loadtest/lab-request.test.js',
  'test/servers/task-pool.test.js',
  'test/servers/hardening.test.js',
  'test/loadtest/lab-rounds.test.js',
  'test/loadtest/history/history.test.js',
  'test/loadtest/paths.test.js',
  'test/loadtest/experiments/decision.test.js',
  'test/loadtest/channels/paths.test.js',
  'test/loadtest/run/generate/open-loop.test.js',
  'test/loadtest/hardening-mix.test.js',
  'test/loadtest/hardening-studies.test.js',
  'test/loadtest/run/watch/noise.test.js',
  'test/loadtest/history/hardening.test.js',
  'test/api/types.test.js',
  'test/loadtest/result/redact.test.js',
  'test/servers/cli.test.js',
  'test/loadtest/run/ruler/measure.test.js',
  'test/loadtest/run/generate/arrivals.test.js'
]

// The files in run order: the longest first, then the rest sorted, so runs are reproducible.
function inRunOrder (files) {
  const rank = (f) => {
    const i = LONGEST_FIRST.indexOf(relative(root, f))
    return i === -1 ? LONGEST_FIRST.length : i
  }
  return [...files].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}

// Every *.test.js below dir, sorted so runs are reproducible.
function findTests (dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...findTests(path))
    else if (entry.name.endsWith('.test.js')) out.push(path)
  }
  return out.sort()
}

// Pids of live processes (other than this one) whose environment carries this run's mark.
export function markedProcesses (needle = `LOADLAB_TEST_MARK=${mark}`) {
  const found = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    let env
    try {
      env = readFileSync(`/proc/${name}/environ`, 'latin1')
    } catch {
      continue
    }
    if (!env.split('\0').includes(needle)) continue
    let cmd = ''
    try {
      cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()
    } catch {}
    if (!isAlive({ pid: Number(name) })) continue // gone, or a zombie its parent reaps
    found.push({ pid: Number(name), cmd })
  }
  return found
}

const args = process.argv.slice(2)
const times = args[0] === '--times' ? resolve(args.splice(0, 2)[1] ?? '') : null
const files = args.length
  ? args.flatMap((a) => (statSync(a).isDirectory() ? findTests(resolve(a)) : [resolve(a)]))
  : findTests(join(root, 'test'))
if (files.length === 0) {
  console.error('test/run.js: no *.test.js files found')
  process.exit(2)
}

const concurrency = process.env.LOADLAB_TEST_CONCURRENCY ?? '4'
const reporters = times
  ? [`--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`, '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'test', 'helpers', 'times-reporter.js')}`, `--test-reporter-destination=${times}`]
  : []
const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...inRunOrder(files)], {
  cwd: root,
  stdio: 'inherit',
  // the lab's runs read no ruler (two readings of about a second each, in every run of the suite) unless
  // LOADLAB_RULER is set; the tests of the ruler set it themselves (test/loadtest/run/ruler.test.js)
  env: { ...process.env, LOADLAB_TEST_MARK: mark, LOADLAB_RULER: process.env.LOADLAB_RULER ?? 'off' }
})
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code, signal) => {
  let status = code ?? (signal ? 1 : 0)
  const left = markedProcesses()
  if (left.length > 0) {
    console.error(`test/run.js: ${left.length} process(es) left behind by the suites:`)
    for (const p of left) {
      console.error(`  pid ${p.pid}: ${p.cmd}`)
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {}
    }
    status = 1
  } else {
    console.error(
      `test/run.js: no process left behind (${files.length} files: ${files.map((f) => relative(root, f)).join(', ')})`
    )
  }
  process.exitCode = status
})
