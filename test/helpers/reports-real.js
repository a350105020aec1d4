// Produces REAL loadlab reports for the HTML, browser and compare tests: spawns the lab CLI on a
// small bounded load (2 connections, 20 requests of loop:1e5) and returns the written files.
// Not a test file.
import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

// Runs `node loadtest/cli.js --server simple,queued-threads ...` into `outDir` and returns
// { json, html, md, report }. Rejects (with the CLI's stderr) if the lab exits non-zero.
export async function makeRealReport (outDir, extraArgs = []) {
  const before = new Set(await readdir(outDir))
  const args = [
    'loadtest/cli.js',
    '--server',
    'simple,queued-threads',
    '--connections',
    '2',
    '--amount',
    '20',
    '--work',
    'loop:1e5',
    '--out',
    outDir,
    ...extraArgs
  ]
  const child = await execa(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env },
    reject: false,
    timeout: 180_000
  })
  if (child.exitCode !== 0) { throw new Error(`lab exited ${child.exitCode}: ${child.stderr.split('\n').slice(-8).join('\n')}`) }
  const made = (await readdir(outDir)).filter((f) => !before.has(f) && f.endsWith('.json'))
  if (made.length !== 1) throw new Error(`expected one new JSON report in ${outDir}, found ${made.length}`)
  const json = join(outDir, made[0])
  const base = json.slice(0, -'.json'.length)
  return { json, html: `${base}.html`, md: `${base}.md`, report: JSON.parse(await readFile(json, 'utf8')) }
}
