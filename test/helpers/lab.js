// Shared helpers for the lab tests (not a test file): run the lab CLI, read its report, watch /proc.
import { execa } from 'execa'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import assert from 'node:assert/strict'
import { isAlive, processTree } from '../../loadtest/run/watch/sample.js'
import { runLab as runLabInProcess } from '../../loadtest/lab.js'
import { parseOptions } from '../../loadtest/options.js'
import { writeReport } from '../../loadtest/report/write.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { experimentFor } from '../../loadtest/experiments/index.js'
import { ROOT } from '../../loadtest/catalog.js'
import { LEAD_FACTOR } from '../../loadtest/fanout/fanout.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export { ROOT }
export const CLI = join(ROOT, 'loadtest', 'cli.js')
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'servers')

// A fresh temporary directory for reports; remove it with cleanup().
export async function tempDir (prefix = 'loadlab-test-') {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

// A --start-at for shards started now on this machine, as the fan-out sets one (fanout.js): LEAD_FACTOR × what a
// lab process takes to load here now (a busy machine's is seconds), at least `minMs` (a --url shard also probes
// and starts its generator after loading). A shard not ready by its start refuses: a fixed lead is eaten on a
// crowded machine.
export async function shardStartAt (minMs = 15000) {
  const started = performance.now()
  await execa(process.execPath, ['-e', `await import(${JSON.stringify(CLI)})`, '--input-type=module'], { cwd: ROOT })
  const loadMs = performance.now() - started
  return new Date(Date.now() + Math.max(minMs, LEAD_FACTOR * loadMs)).toISOString()
}

// Start `node loadtest/cli.js ...args` (the same as `npm run lab -- ...args`); returns the execa subprocess.
export function startLab (args, { env = {}, ...opts } = {}) {
  return execa(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOADLAB_EXTRA_SERVERS: FIXTURES, ...env },
    reject: false,
    stdin: 'ignore',
    ...opts
  })
}

// Run the lab to its end: { exitCode, signal, stdout, stderr }.
export async function runLab (args, opts) {
  const r = await startLab(args, opts)
  return { exitCode: r.exitCode, signal: r.signal, stdout: r.stdout, stderr: r.stderr }
}

// Run the lab in this process (runLab, as a script would) with the CLI's arguments, and write its report
// into --out as the CLI does; resolves the report as readReport gives it: { json, md, files }. For the
// tests that want a report; the CLI's own behaviour (exit codes, signals, output) keeps its CLI tests.
// `html: false` leaves out the page (its charts cost a vega render each) for a test that never reads it.
export async function labReport (args, { html = true } = {}) {
  const { out } = await labRun(args, { html })
  return readReport(out.dir)
}

// The same, resolving { report, out } (writeReport's answer: dir, id, paths) for a folder of several reports.
export async function labRun (args, { html = true } = {}) {
  process.env.LOADLAB_EXTRA_SERVERS ??= FIXTURES
  const opts = parseOptions(args)
  const report = await runLabInProcess(opts, { command: `node loadtest/cli.js ${args.join(' ')}` })
  const experiment = await experimentFor(report.experiment)
  const page = await import('../../loadtest/report/page.js')
  const out = await writeReport(report, {
    dir: opts.out,
    renderers: {
      md: (r) => renderMarkdown(r, experiment),
      ...(html && { html: (r) => page.renderReportHtml(r, { experiment }) })
    }
  })
  assert.deepEqual(out.errors, [], 'every file of the report was written')
  return { report, out }
}

// The one report in dir: { json, md, files }.
export async function readReport (dir) {
  const files = (await readdir(dir)).sort()
  const jsonFile = files.find((f) => f.endsWith('.json'))
  if (!jsonFile) throw new Error(`no report in ${dir}: ${files.join(', ')}`)
  const json = JSON.parse(await readFile(join(dir, jsonFile), 'utf8'))
  const md = await readFile(join(dir, jsonFile.replace(/\.json$/, '.md')), 'utf8')
  return { json, md, files }
}

// Is pid a live process (not a zombie)? The lab's own /proc reader.
export function alive (pid) {
  return isAlive({ pid })
}

// The command line of a pid ('' when gone).
export function cmdline (pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()
  } catch {
    return ''
  }
}

// Every live descendant pid of rootPid (not the root itself).
export function descendants (rootPid) {
  return processTree(rootPid)
    .filter((s) => s.state !== 'Z' && s.pid !== rootPid)
    .map((s) => s.pid)
}

// Sum of completed + failed (errors, timeouts, unanswered) of a result's requests.
export function accounted (requests) {
  return requests.completed + requests.errors + requests.timeouts + requests.unanswered
}

// One lab run that several tests of a file read, made on the first call and shared: () => Promise of
// { run, dir, json, md, files }; its exit code checked against `exitCode`; its folder removed when the
// file's tests end (`after` from node:test, passed in so the hook is the calling file's).
export function sharedLabRun (args, { after, exitCode = 0 }) {
  let shared = null
  let cleanupDir = null
  after(() => cleanupDir?.())
  return () => {
    shared ??= (async () => {
      const { dir, cleanup } = await tempDir()
      cleanupDir = cleanup
      const run = await runLab([...args, '--out', dir])
      assert.equal(run.exitCode, exitCode, run.stderr)
      return { run, dir, ...(await readReport(dir)) }
    })()
    return shared
  }
}
