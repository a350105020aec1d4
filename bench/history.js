// The history's bench: a folder of `reports` copies of one real report (the reference tour, each with its
// own id, time and a figure moved by a seeded noise) read by `loadlab history` in a child process of its own,
// its wall time and peak RSS (goal: 1,000 reports in ≤ 10 s and ≤ 300 MB). The folder is made in a temp dir
// and removed after.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readBounded } from '../loadtest/report/read.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ROOT } from '../loadtest/catalog.js'

export const HISTORY_SOURCE = 'reports/reference/tours/2026-11-26T13-50-55Z-vm-tour.json.gz'

// The child: reads the folder with history(), prints { ms, maxRssBytes, series, reports }.
const CHILD = `
import { history } from ${JSON.stringify(join(ROOT, 'index.js'))}
const t0 = performance.now()
const h = await history([process.argv[1]])
const ms = performance.now() - t0
const cpu = process.cpuUsage()
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssBytes: process.resourceUsage().maxRSS * 1024,
  series: h.series.length,
  reports: h.reports.length, changes: h.series.reduce((a, s) => a + s.changes.length, 0) }))
`

// Builds the folder and measures one read of it: { reports, sourceBytes, ms, cpuMs (the child's CPU time,
// start included: what a busy machine does not inflate as much), maxRssBytes, series, changes }.
export async function runHistory ({ reports }, { signal, progress = () => {} } = {}) {
  const text = readBounded(join(ROOT, HISTORY_SOURCE)) // kept compressed
  const base = JSON.parse(text)
  const dir = await mkdtemp(join(tmpdir(), 'loadlab-bench-history-'))
  try {
    progress(`history: writing ${reports} reports (copies of ${HISTORY_SOURCE}) to ${dir}`)
    let s = 7
    const u = () => (s = (s * 16807) % 2147483647) / 2147483647
    for (let i = 0; i < reports; i++) {
      signal?.throwIfAborted()
      const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000)
      const id = `${at.toISOString().slice(0, 19).replaceAll(':', '-')}Z-bench-tour`
      const r = { ...base, id, createdAt: at.toISOString() }
      r.results = base.results.map((x) => ({ ...x, rps: x.rps * (0.95 + 0.1 * u()) }))
      await writeFile(join(dir, `${id}.json`), JSON.stringify(r))
    }
    progress(`history: reading ${reports} reports`)
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD, dir],
      { signal, maxBuffer: 1 << 20 })
    return { reports, source: HISTORY_SOURCE, sourceBytes: Buffer.byteLength(text), ...JSON.parse(stdout) }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
