// Produces REAL loadlab reports for the HTML, browser and compare tests: runs the lab on a small
// bounded load (2 connections, 20 requests of loop:1e5) and returns the written files.
// Not a test file.
import assert from 'node:assert/strict'
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

// A compare ratio cell, "45.73× better": the ratio B / A to two decimals and its verdict, one of `words` (a
// regular expression's alternatives). The verdict keeps the ratio to four decimals, so the shown figure is
// within half a hundredth (and that rounding) of the true ratio.
export function assertRatio (cell, ratio, words) {
  const m = new RegExp(`^([\\d,]+\\.\\d\\d)× (${words})$`).exec(cell ?? '')
  assert.ok(m, `${cell}: not a ratio with one of ${words}`)
  assert.ok(Math.abs(Number(m[1].replace(/,/g, '')) - ratio) <= 0.005 + 1e-4, `${cell} for a ratio of ${ratio}`)
}
