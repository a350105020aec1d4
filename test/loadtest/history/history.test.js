// loadlab history: the change-point rules on built series (a step found at its index, a spike not a change,
// a series too short says so), the machine change named so (by the machine block, never by the ruler alone),
// runs marked disturbed tested and said, bad files left out with one line each, folders below read, the
// gate's exit codes, and the page in headless Chromium. Built data only: no run, nothing timed.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { chromium } from 'playwright-core'
import { changePoints } from '../../../loadtest/result/changepoint.js'
import { CHANGE } from '../../../loadtest/result/rules.js'
import { MAX_DEPTH, buildHistory, gateFailures, history, parseBound, passedDisturbed } from '../../../loadtest/history/history.js'
import { historyCsv, renderHistoryHtml } from '../../../loadtest/history/render.js'
import { changeText, gateText } from '../../../loadtest/text/history.js'
import { CHROMIUM, CHROMIUM_ARGS } from '../../../scripts/chromium.js'
import { ROOT } from '../../helpers/lab.js'

// A seeded noise: the same series every run.
function noise (seed) {
  let s = seed
  const u = () => (s = (s * 16807) % 2147483647) / 2147483647
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())
}
const series = (n, level, seed = 7, sd = 0.03) => {
  const g = noise(seed)
  return Array.from({ length: n }, (_, i) => level(i) * (1 + sd * g()))
}

test('changePoints: a 20 % step is found at its index, with its p-value, means and relative change', () => {
  const xs = series(24, (i) => (i < 14 ? 100 : 120))
  const { status, points } = changePoints(xs)
  assert.equal(status, 'tested')
  assert.equal(points.length, 1)
  assert.equal(points[0].index, 14)
  assert.ok(points[0].pValue <= CHANGE.maxPValue)
  assert.ok(Math.abs(points[0].before.mean - 100) < 3 && Math.abs(points[0].after.mean - 120) < 4)
  assert.ok(Math.abs(points[0].change - 0.2) < 0.05)
})

test('changePoints: a single spike, or two, is not a change; quiet noise gives none', () => {
  for (const spikes of [[9], [9, 10], [0], [23]]) {
    const xs = series(24, (i) => (spikes.includes(i) ? 200 : 100))
    assert.deepEqual(changePoints(xs).points, [], `spikes at ${spikes}`)
  }
  assert.deepEqual(changePoints(series(60, () => 100, 11)).points, [])
})

test('changePoints: two steps both found; a series shorter than 2 × minSegment says it is too short', () => {
  const xs = series(30, (i) => (i < 10 ? 100 : i < 20 ? 130 : 90))
  assert.deepEqual(changePoints(xs).points.map((p) => p.index), [10, 20])
  const short = changePoints([1, 2, 3, 4, 5].slice(0, 2 * CHANGE.minSegment - 1))
  assert.equal(short.status, 'too-short')
  assert.deepEqual(short.points, [])
})

// A kept report as readReports makes it: one run, its p99 and rps.
function kept (i, p99, { machine = 'A', ruler = null, trusted = true, parallel = null, disturbed = false } = {}) {
  const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()
  return {
    id: `r${String(i).padStart(3, '0')}`,
    file: `r${i}.json`,
    at,
    experiment: 'tour',
    commit: `c${i}`,
    ruler,
    machine: { cpuModel: machine, cores: 2, availableParallelism: parallel ?? (machine === 'A' ? 2 : 1), arch: 'x64' },
    results: [{
      key: 'simple@loop:1e7',
      server: 'simple',
      variant: null,
      work: 'loop:1e7',
      trusted: trusted && !disturbed,
      disturbed,
      values: { p99, rps: 1000 / p99 }
    }]
  }
}

// A ruler of the agreed shape whose single-thread loop takes `loopMs`.
const F = (value) => ({ value, spreadPct: 2, n: 5 })
const ruler = (loopMs, cores) => ({
  start: {
    at: '2026-01-01T00:00:00Z',
    durationMs: 900,
    single: { loop: F(loopMs), hash: F(1), json: F(1), render: F(1) },
    cores: { offered: cores, effective: F(cores * 0.95), scaling: [{ threads: 1, speedup: 1 }] },
    loopback: { rttMs: F(0.1), rps: F(10000), connections: 4 },
    spawn: { workerMs: F(20), processMs: F(40) },
    timerLagMs: F(1)
  },
  end: null,
  drift: [],
  moved: false
})

test('history: a code change found at its report; a move to another machine named a change of machine', () => {
  const g = noise(3)
  const reports = []
  for (let i = 0; i < 6; i++) reports.push(kept(i, 50 * (1 + 0.03 * g()), { ruler: ruler(10, 2) }))
  for (let i = 6; i < 12; i++) reports.push(kept(i, 65 * (1 + 0.03 * g()), { ruler: ruler(10, 2) }))
  // taskset -c 0: one core to use (the machine block) and the ruler's cores
  for (let i = 12; i < 15; i++) reports.push(kept(i, 130 * (1 + 0.03 * g()), { ruler: ruler(10, 1), parallel: 1 }))
  const h = buildHistory(reports)
  assert.deepEqual(h.machines.map((m) => [m.id, m.reports]), [['m1', 12], ['m2', 3]])
  const p99 = h.series.find((s) => s.figure === 'p99')
  assert.deepEqual(p99.changes.map((c) => [c.report, c.cause]), [['r006', 'code'], ['r012', 'machine']])
  const [code, moved] = p99.changes
  assert.ok(code.worse && code.pValue <= CHANGE.maxPValue && Math.abs(code.change - 0.3) < 0.08)
  assert.equal(code.commit, 'c6')
  assert.deepEqual([moved.from, moved.machine], ['m1', 'm2'])
  assert.ok(moved.figures.includes('cores.effective'), moved.figures.join())
  assert.deepEqual(p99.tests, [
    { machine: 'm1', status: 'tested', points: 12, withDisturbed: false },
    { machine: 'm2', status: 'too-short', points: 3, withDisturbed: false }
  ])
  // the same machine block with a ruler beyond its spread on one figure only: the same machine
  const one = buildHistory([kept(0, 50, { ruler: ruler(10, 2) }), kept(1, 50, { ruler: ruler(10, 1) })])
  assert.equal(one.machines.length, 1)
  // rps falls where p99 rises: worse too
  assert.ok(h.series.find((s) => s.figure === 'rps').changes[0].worse)
  // the CSV: one row per report, Otava's columns first
  const csv = historyCsv(h).trim().split('\n')
  assert.equal(csv.length, 16)
  assert.deepEqual(csv[0].split(',').slice(0, 4), ['time', 'commit', 'report', 'machine'])
})

test('history: reports are placed by their machine block, with a ruler or without; untrusted points not tested', () => {
  const reports = [...Array(8)].map((_, i) => kept(i, i === 7 ? 500 : i < 4 ? 50 : 80, {
    machine: i < 4 ? 'A' : 'B', trusted: i !== 7, ruler: i % 2 ? ruler(10, 2) : null
  }))
  const h = buildHistory(reports)
  assert.deepEqual(h.machines.map((m) => [m.cpuModel, m.reports]), [['A', 4], ['B', 4]])
  const p99 = h.series.find((s) => s.figure === 'p99')
  assert.equal(p99.status, 'too-short')
  assert.deepEqual(p99.changes.map((c) => c.cause), ['machine'])
  // a move to another machine where the figure stays is no change
  const same = buildHistory([...Array(8)].map((_, i) => kept(i, 50, { machine: i < 4 ? 'A' : 'B' })))
  assert.deepEqual(same.series.flatMap((s) => s.changes), [])
})

test('history: a change after untrusted reports is dated at the first tested one and spans them (since)', () => {
  const g = noise(5)
  const reports = []
  for (let i = 0; i < 6; i++) reports.push(kept(i, 50 * (1 + 0.03 * g())))
  // the first report after the change was disturbed: untrusted, not tested
  reports.push(kept(6, 400, { trusted: false }))
  for (let i = 7; i < 13; i++) reports.push(kept(i, 65 * (1 + 0.03 * g())))
  const h = buildHistory(reports)
  const p99 = h.series.find((s) => s.figure === 'p99')
  assert.deepEqual(p99.changes.map((c) => [c.report, c.since, c.cause]), [['r007', 'r005', 'code']])
  assert.match(changeText(p99, p99.changes[0]), /at r007 \(c7\) \(after r005: the reports between were untrusted, not tested\)/)
})

test('history: a task whose code changed (its hash) stays one series; the hash goes with each point', () => {
  const reports = [...Array(12)].map((_, i) => {
    const r = kept(i, i < 6 ? 50 + (i % 2) : 70 + (i % 2))
    const hash = i < 6 ? 'ab12' : 'cd34'
    r.results[0] = { ...r.results[0], key: `queued-threads@task:render#default@${hash}#c4`, work: `task:render#default@${hash}` }
    return r
  })
  const p99 = buildHistory(reports).series.filter((s) => s.figure === 'p99')
  assert.deepEqual(p99.map((s) => [s.id, s.work]), [['tour queued-threads@task:render#default#c4 p99', 'task:render#default']])
  assert.deepEqual(p99[0].changes.map((c) => [c.report, c.cause]), [['r006', 'code']])
  assert.deepEqual([p99[0].points[0].taskHash, p99[0].points[11].taskHash], ['ab12', 'cd34'])
})

test('history: a ruler that moved on one machine block flags a change of code, never splits it; the gate fails', () => {
  const g = noise(9)
  // the changed reports' rulers say a machine twice as slow on one thread (and fewer cores): the block is the same
  const reports = [...Array(14)].map((_, i) => kept(i, (i < 8 ? 50 : 80) * (1 + 0.03 * g()), {
    ruler: i < 8 ? ruler(10, 2) : ruler(20, 1)
  }))
  const h = buildHistory(reports)
  assert.equal(h.machines.length, 1)
  const rps = h.series.find((s) => s.figure === 'rps')
  assert.deepEqual(rps.changes.map((c) => [c.report, c.cause]), [['r008', 'code']])
  assert.ok(rps.changes[0].ruler.includes('single.loop'), rps.changes[0].ruler.join())
  assert.match(changeText(rps, rps.changes[0]), /worse, on machine m1 \(its ruler moved too: .*a change of code\)/)
  const failures = gateFailures(h, [parseBound('rps:-10%')])
  assert.deepEqual(failures.map((f) => [f.why, f.change.report]), [['change', 'r008']])
  assert.match(gateText(failures[0]), /its ruler moved too \(.*single\.loop.*\), not its machine block/)
  // a change of machine block is the machine's, and never fails the gate
  const moved = buildHistory(reports.map((r, i) => (i < 8 ? r : { ...r, machine: { ...r.machine, cores: 1 } })))
  assert.deepEqual(moved.series.find((s) => s.figure === 'rps').changes.map((c) => c.cause), ['machine'])
  assert.deepEqual(gateFailures(moved, [parseBound('rps:-10%')]), [])
})

test('history: runs marked disturbed are tested and said; the gate does not pass them without --allow-disturbed', () => {
  const g = noise(13)
  // a busy machine throughout: every run disturbed, the work 1.6 × heavier from the 5th of 8
  const busy = [...Array(8)].map((_, i) => kept(i, (i < 4 ? 50 : 80) * (1 + 0.03 * g()), { disturbed: true }))
  const h = buildHistory(busy)
  const rps = h.series.find((s) => s.figure === 'rps')
  assert.equal(rps.status, 'tested')
  assert.equal(rps.disturbed, 8)
  assert.equal(rps.tests[0].withDisturbed, true, 'no quiet run: the disturbed ones are read, and said')
  assert.deepEqual(rps.changes.map((c) => [c.report, c.cause]), [['r004', 'code']])
  const bound = [parseBound('rps:-10%')]
  assert.deepEqual(gateFailures(h, bound).map((f) => f.why), ['change'])
  // no change, the newest runs disturbed: not passed, with its reason; --allow-disturbed passes it, said
  const flat = buildHistory([...Array(8)].map((_, i) => kept(i, 50 * (1 + 0.03 * g()), { disturbed: i >= 6 })))
  const [f] = gateFailures(flat, bound)
  assert.deepEqual([f.why, f.disturbed, f.newest], ['disturbed', 2, CHANGE.minSegment])
  assert.match(gateText(f), /not passed: 2 of its newest 3 runs on m1 marked disturbed .*--allow-disturbed/)
  assert.deepEqual(gateFailures(flat, bound, { allowDisturbed: true }), [])
  assert.equal(passedDisturbed(flat, bound, { allowDisturbed: true }).length, 1)
  // disturbed runs long before the newest ones: the gate passes
  const old = buildHistory([...Array(8)].map((_, i) => kept(i, 50 * (1 + 0.03 * g()), { disturbed: i < 2 })))
  assert.deepEqual(gateFailures(old, bound), [])
})

// A real report (the reference tour), as a file with its id, time and simple's p99 set.
const REAL = JSON.parse(readFileSync(join(ROOT, 'reports/reference/tours/2026-11-26T13-50-55Z-vm-tour.json'), 'utf8'))
function realReport (i, scale) {
  const r = structuredClone(REAL)
  r.id = `2026-01-01T00-${String(i).padStart(2, '0')}-00Z-ci-tour`
  r.createdAt = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()
  r.label = `commit-${i}`
  const g = noise(100 + i)
  r.results = r.results.slice(0, 2)
  for (const x of r.results) {
    delete x.histograms // its p99 is changed below: the histogram would contradict it (the run untrusted)
    x.latency.p99 = x.latency.p99 * scale * (1 + 0.02 * g())
    x.latency.percentiles['99'] = x.latency.p99
    x.rps = x.rps / scale
  }
  return r
}

const dir = mkdtempSync(join(tmpdir(), 'loadlab-history-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const loadlab = (args) => execa(process.execPath, [join(ROOT, 'bin/loadlab.js'), 'history', ...args], { reject: false })

test('loadlab history: bad files each one line and left out; the gate exits 99 past its bound, 0 before the change', async () => {
  const folder = join(dir, 'reports')
  const before = join(dir, 'before')
  for (const d of [folder, before]) mkdirSync(d)
  for (let i = 0; i < 12; i++) {
    const r = realReport(i, i < 6 ? 1 : 1.4)
    writeFileSync(join(folder, `${r.id}.json`), JSON.stringify(r))
    if (i < 6) writeFileSync(join(before, `${r.id}.json`), JSON.stringify(r))
  }
  writeFileSync(join(folder, 'notes.json'), '{ not json')
  writeFileSync(join(folder, 'old.json'), JSON.stringify({ ...REAL, id: 'old', schema: 0 }))
  writeFileSync(join(folder, 'zz-copy.json'), JSON.stringify(realReport(3, 1)))
  const run = await loadlab([folder, '--fail-on-change', 'p99:+10%'])
  assert.equal(run.exitCode, 99, run.stderr)
  const left = run.stderr.split('\n').filter((l) => l.startsWith('history: left out:'))
  assert.equal(left.length, 3, run.stderr)
  assert.match(left.join('\n'), /notes\.json is not JSON/)
  assert.match(left.join('\n'), /old\.json is a schema 0 report/)
  assert.match(left.join('\n'), /zz-copy\.json has the id .* of .*: left out/)
  assert.match(run.stdout, /tour simple@loop:1e7 p99:\n {2}\+\d+\.\d% at 2026-01-01T00-06-00Z-ci-tour \(commit-6\), p /)
  assert.equal((await loadlab([folder, '--fail-on-change', 'p99:+60%'])).exitCode, 0)
  const cut = await loadlab([before, '--fail-on-change', 'p99:+10%'])
  assert.equal(cut.exitCode, 0, cut.stderr)
  assert.match(cut.stdout, /no change found/)
  const json = JSON.parse((await loadlab([folder, '--json'])).stdout)
  assert.equal(json.kind, 'loadlab-history')
  assert.equal(json.skipped.length, 3)
  assert.equal((await loadlab([join(dir, 'nope')])).exitCode, 2)
  // folders below are read, MAX_DEPTH deep; one deeper is named, not read; none long enough is said so
  let deep = join(dir, 'tree')
  for (let d = 0; d <= MAX_DEPTH + 1; d++) {
    deep = join(deep, `d${d}`)
    mkdirSync(deep, { recursive: true })
    const r = realReport(20 + d, 1)
    writeFileSync(join(deep, `${r.id}.json`), JSON.stringify(r))
  }
  const tree = await loadlab([join(dir, 'tree')])
  assert.equal(tree.exitCode, 0, tree.stderr)
  assert.match(tree.stdout, new RegExp(`^history: ${MAX_DEPTH} reports`)) // d0 … d${MAX_DEPTH - 1}
  assert.match(tree.stdout, /no series long enough for the test/)
  assert.doesNotMatch(tree.stdout, /no change found/)
  assert.match(tree.stderr, new RegExp(`d${MAX_DEPTH}: more than ${MAX_DEPTH} folders down, not read`))
  assert.equal((await loadlab([folder, '--fail-on-change', 'p99:10%'])).exitCode, 2)

  const all = await history([folder])
  const page = join(dir, 'history.html')
  writeFileSync(page, renderHistoryHtml(all))
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  try {
    const tab = await browser.newPage()
    const requests = []
    tab.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()) })
    await tab.goto(pathToFileURL(page).href)
    const charts = await tab.$$eval('figure[data-chart="series"]', (fs) => fs.map((f) => ({
      series: f.dataset.series, changes: Number(f.dataset.changes), svg: Boolean(f.querySelector('svg'))
    })))
    assert.equal(charts.length, all.series.length)
    assert.ok(charts.every((c) => c.svg))
    assert.ok(charts[0].changes >= 1, 'a series with a change comes first')
    assert.deepEqual(requests, [])
  } finally {
    await browser.close()
  }
})
