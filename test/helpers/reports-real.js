// Produces REAL loadlab reports for the HTML, browser and compare tests: runs the lab on a small
// bounded load (2 connections, 20 requests of loop:1e5) and returns the written files.
// Not a test file.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labRun } from './lab.js'

export { ROOT } from '../../loadtest/catalog.js'

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
