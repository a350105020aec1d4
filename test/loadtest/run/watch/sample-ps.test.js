// The ps sampler source (loadtest/run/watch/sample-ps.js, for systems without /proc) checked on Linux against
// /proc: the same real server trees, sampled by both at the same moments, agree on CPU seconds, RSS and
// processes within the tolerance below; a lab run forced onto ps reports it; a bad LOADLAB_SAMPLER exits 2.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { readStat, sampleTree, samplerSource } from '../../../../loadtest/run/watch/sample.js'
import { parseCpuTime, psCapabilities } from '../../../../loadtest/run/watch/sample-ps.js'
import { runWork } from '../../../../servers/lib/workloads.js'
import { fire, startServer } from '../../../helpers/server.js'
import { labReport, runLab, tempDir } from '../../../helpers/lab.js'

const skip = existsSync('/proc/self/stat') ? false : 'needs /proc to compare against'

// Tolerance: procps prints CPU in whole seconds per process (truncated), so ps may read up to 1 s less
// per process than /proc, plus 10 % for what the tree burns between the two reads; RSS within 10 %.
const CPU_SLACK_PER_PROCESS = 1
const CPU_SLACK_SHARE = 0.1
const RSS_SHARE = 0.1

// Sample the tree with /proc, then ps, then /proc again: ps must fall within the two /proc reads, give or
// take the tolerance. Returns the differences seen, for the diagnostics.
function compareAt (pid, label) {
  const before = sampleTree(pid, { source: 'proc' })
  const ps = sampleTree(pid, { source: 'ps' })
  const after = sampleTree(pid, { source: 'proc' })
  assert.equal(ps.processes, before.processes, `${label}: processes (ps ${ps.processes}, /proc ${before.processes})`)
  const low = before.cpuSeconds - CPU_SLACK_PER_PROCESS * ps.processes - CPU_SLACK_SHARE * before.cpuSeconds
  const high = after.cpuSeconds * (1 + CPU_SLACK_SHARE)
  assert.ok(
    ps.cpuSeconds >= low && ps.cpuSeconds <= high,
    `${label}: ps CPU ${ps.cpuSeconds} s, /proc ${before.cpuSeconds}–${after.cpuSeconds} s ` +
      `(${ps.processes} processes)`
  )
  const rss = (before.rssBytes + after.rssBytes) / 2
  assert.ok(
    Math.abs(ps.rssBytes - rss) <= RSS_SHARE * rss,
    `${label}: ps RSS ${ps.rssBytes}, /proc ${before.rssBytes}–${after.rssBytes}`
  )
  assert.equal(typeof ps.threads, 'number', 'procps gives threads (nlwp)')
  return {
    label,
    processes: ps.processes,
    procCpu: Math.round(before.cpuSeconds * 100) / 100,
    psCpu: ps.cpuSeconds,
    cpuDiff: Math.round((ps.cpuSeconds - before.cpuSeconds) * 100) / 100,
    rssDiffPercent: Math.round(((ps.rssBytes - rss) / rss) * 1000) / 10
  }
}

test('ps CPU times parse in both formats (procps [DD-]HH:MM:SS, MMM:SS; BSD MMM:SS.cc)', () => {
  assert.equal(parseCpuTime('00:00:54'), 54)
  assert.equal(parseCpuTime('1-02:03:04'), 93784)
  assert.equal(parseCpuTime('138:04'), 8284)
  assert.equal(parseCpuTime('0:01.23'), 1.23)
  assert.equal(parseCpuTime('-'), null)
})

test('ps and /proc agree on a cluster tree under CPU load', { skip, timeout: 60000 }, async (t) => {
  assert.ok(psCapabilities().cumulative, 'this ps sums reaped children into CPU')
  // sized by this machine's speed: 300 requests of 10 ms of CPU, 3 s for the tree (ps counts whole seconds)
  const server = await startServer('cluster', ['--workers', '2', '--work', `loop:${loopFor(10)}`])
  try {
    const seen = []
    const load = fire(server.url, { connections: 2, amount: 300 })
    const state = { done: false }
    load.finally(() => {
      state.done = true
    })
    while (!state.done) {
      await delay(700)
      if (!state.done) seen.push(compareAt(server.pid, `under load ${seen.length + 1}`))
    }
    const r = await load
    assert.equal(r.ok, 300)
    const end = compareAt(server.pid, 'after the load')
    seen.push(end)
    assert.ok(end.procCpu >= 2, `the tree burnt enough CPU to compare: ${end.procCpu} s`)
    assert.equal(end.processes, 3, 'the primary and two workers')
    t.diagnostic(JSON.stringify(seen))
  } finally {
    await server.stop()
  }
})

const REAPED = 'ps sums reaped children into CPU as /proc does (child-process forks one per request)'
test(REAPED, { skip, timeout: 60000 }, async (t) => {
  // 12 children of 150 ms of CPU each (sized by this machine's speed) besides their boot: few forks, since a
  // fork's boot costs more than its work and a busy machine stretches each
  const server = await startServer('child-process', ['--work', `loop:${loopFor(150)}`])
  try {
    const r = await fire(server.url, { connections: 2, amount: 12 })
    assert.equal(r.ok, 12)
    await delay(200) // the last child reaped
    const own = readStat(server.pid)
    const d = compareAt(server.pid, 'after 12 forked children')
    assert.equal(d.processes, 1)
    // the check has power: a ps that left the reaped children out would fall below compareAt's low bound
    const total = own.cpuSeconds + own.childCpuSeconds
    const low = total - CPU_SLACK_PER_PROCESS - CPU_SLACK_SHARE * total
    assert.ok(own.cpuSeconds < low, `the children burnt more than the slack: ${own.childCpuSeconds} s of ${total} s`)
    t.diagnostic(JSON.stringify(d))
  } finally {
    await server.stop()
  }
})

// The loop work's N for `cpuMs` of CPU a request on this machine and runtime: loop:1e7 timed in CPU time
// (process.cpuUsage), the fastest of three, scaled.
function loopFor (cpuMs) {
  let fastest = Infinity
  for (let i = 0; i < 3; i++) {
    const before = process.cpuUsage()
    runWork('loop:1e7')
    const used = process.cpuUsage(before)
    fastest = Math.min(fastest, (used.user + used.system) / 1000)
  }
  return Math.min(1e9, Math.ceil((cpuMs / fastest) * 1e7))
}

// ps shows a process's CPU only in whole seconds, so the round's work is sized by this machine's speed for
// each of cluster's two workers to burn 1.5 s (50 requests each, round robin): at least one whole second.
test('a lab run forced onto ps (LOADLAB_SAMPLER=ps) says so and has CPU and RSS', { timeout: 180000 }, async () => {
  const out = await tempDir()
  const before = process.env.LOADLAB_SAMPLER
  process.env.LOADLAB_SAMPLER = 'ps'
  try {
    assert.equal(samplerSource(), 'ps')
    const work = `loop:${loopFor(1500 / 50)}`
    const { json } = await labReport([
      ...['--server', 'cluster', '--work', work, '--amount', '100', '--connections', '2', '--warmup', '0'],
      ...['--out', out.dir]
    ], { html: false })
    assert.equal(json.method.sampler, 'ps')
    const r = json.results[0]
    assert.equal(r.status, 'ok', JSON.stringify(r.failure))
    assert.equal(typeof r.outside.cpuSeconds, 'number')
    assert.ok(r.outside.cpuSeconds >= 1, `CPU seen: ${r.outside.cpuSeconds} (${work})`)
    assert.ok(r.outside.peakRssBytes > 0)
    assert.equal(r.outside.peakProcesses, 3)
    assert.equal(typeof r.outside.peakThreads, 'number')
  } finally {
    if (before === undefined) delete process.env.LOADLAB_SAMPLER
    else process.env.LOADLAB_SAMPLER = before
    await out.cleanup()
  }
})

// A ps as poor as can be: no threads (nlwp, as on macOS), no CPU with reaped children (neither `S` with
// bsdtime nor `-S`): the lab reports those figures as null and every writer copes.
// It hands everything else to the real ps by its path (the wrapper itself comes first on PATH).
const realPs = () =>
  (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, 'ps'))
    .find((path) => existsSync(path))
const poorPs = (real) => `#!/bin/sh
for a in "$@"; do
  case "$a" in *nlwp*|*bsdtime*|-S|S) echo "ps: unsupported: $a" >&2; exit 1;; esac
done
exec '${real}' "$@"
`

const POOR = 'a ps without threads or reaped CPU: the run reports them as null and still writes'
test(POOR, { timeout: 180000 }, async (t) => {
  const out = await tempDir()
  t.after(() => out.cleanup())
  const real = realPs()
  assert.ok(real && !real.startsWith(out.dir), 'the real ps is on PATH')
  await writeFile(join(out.dir, 'ps'), poorPs(real))
  await chmod(join(out.dir, 'ps'), 0o755)
  const reports = join(out.dir, 'reports')
  const args = ['--server', 'simple', '--work', 'loop:1e6', '--amount', '50', '--warmup', '0', '--out', reports]
  const r = await runLab(args, {
    env: { LOADLAB_SAMPLER: 'ps', PATH: `${out.dir}:${process.env.PATH}` },
    timeout: 170000
  })
  assert.equal(r.exitCode, 0, r.stderr)
  const files = await readdir(reports)
  const json = JSON.parse(await readFile(join(reports, files.find((f) => f.endsWith('.json'))), 'utf8'))
  assert.equal(json.method.sampler, 'ps')
  const o = json.results[0].outside
  assert.equal(o.cpuSeconds, null)
  assert.equal(o.cpuMsPerRequest, null)
  assert.equal(o.peakThreads, null)
  assert.ok(o.peakRssBytes > 0 && o.peakProcesses === 1)
  for (const f of files) assert.doesNotMatch(await readFile(join(reports, f), 'utf8'), /NaN/, f)
})

test('LOADLAB_SAMPLER=bogus exits 2 with one line, before anything starts', async () => {
  const r = await runLab(['--server', 'simple', '--amount', '5'], { env: { LOADLAB_SAMPLER: 'bogus' } })
  assert.equal(r.exitCode, 2)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr, /LOADLAB_SAMPLER: expected one of proc, ps, got `bogus`/)
})
