// Produces REAL loadlab reports for the HTML, browser and compare tests: runs the lab on a small
// bounded load (2 connections, 20 requests of loop:1e5) and returns the written files.
// Not a test file.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../../loadtest/catalog.js'
import { labRun } from './lab.js'

export { ROOT }

// Runs the lab (runLab, in this process) on --server simple,queued-threads into `outDir` and returns
// { json, html, md, report } (json, html, md: file paths; html null with `html: false`, for a test that
// reads no page). Rejects if a run failed.
export async function makeRealReport (outDir, extraArgs = [], { html = true } = {}) {
  const args = ['--server', 'simple,queued-threads', '--connections', '2', '--amount', '20', '--work', 'loop:1e5', '--out', outDir, ...extraArgs]
  const { report, out } = await labRun(args, { html })
  if (report.status !== 'complete') throw new Error(`lab run ${report.status}: ${JSON.stringify(report.notes)}`)
  const base = join(out.dir, out.id)
  return { json: `${base}.json`, html: html ? `${base}.html` : null, md: `${base}.md`, report: JSON.parse(await readFile(`${base}.json`, 'utf8')) }
}

// A compare ratio cell, "45.73× better": the ratio B / A to two decimals and its verdict, one of `words` (a
// regular expression's alternatives). The verdict keeps the ratio to four decimals, so the shown figure is
// within half a hundredth (and that rounding) of the true ratio.
export function assertRatio (cell, ratio, words) {
  const m = new RegExp(`^([\\d,]+\\.\\d\\d)× (${words})$`).exec(cell ?? '')
  assert.ok(m, `${cell}: not a ratio with one of ${words}`)
  assert.ok(Math.abs(Number(m[1].replace(/,/g, '')) - ratio) <= 0.005 + 1e-4, `${cell} for a ratio of ${ratio}`)
}

// compare's CLI (cli.js `run`: what `npm run compare` runs once the process started) on each argv in turn, in
// ONE node process: [{ exitCode, stdout, stderr }] as each case wrote them. For the cases past the first of a
// kind, which each started a process (and loaded the charts) only to print one line.
export async function cliEach (argvs) {
  const script = `import { run } from ${JSON.stringify(join(ROOT, 'loadtest', 'compare', 'cli.js'))}
const out = []
for (const argv of JSON.parse(process.argv[1])) {
  const got = { stdout: '', stderr: '' }
  const write = { stdout: process.stdout.write, stderr: process.stderr.write }
  for (const k of ['stdout', 'stderr']) process[k].write = (c) => { got[k] += c; return true }
  try {
    got.exitCode = await run(argv)
  } finally {
    for (const k of ['stdout', 'stderr']) process[k].write = write[k]
  }
  out.push(got)
}
process.stdout.write(JSON.stringify(out))`
  const r = await execa(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(argvs)],
    { cwd: ROOT, stdin: 'ignore' })
  // each case's output as execa gives a process's: without its final newline
  const strip = (text) => text.replace(/\r?\n$/, '')
  return JSON.parse(r.stdout).map((got) => ({ ...got, stdout: strip(got.stdout), stderr: strip(got.stderr) }))
}
