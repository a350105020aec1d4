// scripts/validate-capacity.js and its brute force, without servers: the search on synthetic strategies
// (each step's requests over the target drawn from a known curve) finds the knee the curve has, on a grid
// 8 % apart with 600 requests a rate; a strategy whose floor is over the target has no knee; the CLI
// refuses bad input with one line and exit 2, --dry-run plans a part without running it, and a second part
// in a folder where one runs is refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { execa } from 'execa'
import { GRID, bruteStep, extendGrid, failsAt, holdsAt, kneeBandOf, kneeOf, nextStep, pooledGrid, stepSec } from '../../scripts/capacity-brute-force.js'
import { FLOOR } from '../../loadtest/result/rules.js'
import { renderSummary, truthOf, verdictOf } from '../../scripts/validate-capacity.js'

const SCRIPT = join(import.meta.dirname, '../../scripts/validate-capacity.js')
const P99 = 0.01
const P95 = 0.05

// A synthetic strategy: the share of a step's requests over the target at a rate (`overAt`), and the p50
// of a lone request (ms), growing to seconds past `saturates` req/s.
function drive ({ serviceMs, overAt, p50Ms, saturates }) {
  const steps = []
  for (;;) {
    const next = nextStep(steps, { serviceMs, shares: [P99, P95] })
    if (next.rate === null) return { steps, located: next.located }
    const { rate, kind } = next
    const n = Math.round(stepSec(rate, kind) * rate)
    const p50 = rate > saturates ? 2000 : p50Ms
    steps.push({ rate, kind, n, over: Math.round(overAt(rate) * n), p50, fault: null, overlap: (rate * p50) / 1000 })
    assert.ok(steps.length <= 40, 'the search ends')
  }
}

// Adjacent grid rates are at most GRID.ratio apart around each knee, and each grid rate had its 600 requests.
function checkGrid (grid, knee) {
  const i = grid.findIndex((s) => s.rate === knee)
  assert.ok(grid[i + 1].rate / grid[i].rate <= GRID.ratio + 1e-9, `${grid[i].rate} → ${grid[i + 1].rate}`)
  for (const s of grid) assert.ok(s.n >= GRID.requests, `${s.rate} req/s: ${s.n} requests`)
}

test('the brute force finds each percentile\'s knee on one grid: p99 at 100 req/s, p95 at 130', () => {
  // 0 over to 100 req/s, 3 % over to 130 (p99 fails, p95 holds), then half over
  const overAt = (r) => (r <= 100 ? 0 : r <= 130 ? 0.03 : 0.5)
  const { steps } = drive({ serviceMs: 8, overAt, p50Ms: 9, saturates: 130 })
  const grid = steps.filter((s) => s.kind === 'grid').sort((a, b) => a.rate - b.rate)
  const k99 = kneeOf(grid, P99)
  const k95 = kneeOf(grid, P95)
  assert.ok(k99 <= 100 && k99 * GRID.ratio > 100, `p99 knee ${k99}`)
  assert.ok(k95 <= 130 && k95 * GRID.ratio > 130, `p95 knee ${k95}`)
  checkGrid(grid, k99)
  checkGrid(grid, k95)
  // the locating steps are short: the grid's requests are spent only around the knees
  const locating = steps.filter((s) => s.kind === 'locate')
  assert.ok(locating.every((s) => s.n < GRID.requests), locating.map((s) => s.n).join(' '))
})

test('a strategy at 1/20 of its ideal is found from its floor, not bounded by the ideal', () => {
  // service 1 ms on 2 cores: ideal 2000 req/s; a fork per request holds to 100 req/s only
  const overAt = (r) => (r <= 100 ? 0 : 0.6)
  const { steps } = drive({ serviceMs: 1, overAt, p50Ms: 60, saturates: 100 })
  const grid = steps.filter((s) => s.kind === 'grid')
  const knee = kneeOf(grid, P99)
  assert.ok(knee <= 100 && knee * GRID.ratio > 100, `knee ${knee}`)
  assert.equal(kneeOf(grid, P95), knee)
  // its first floor (at 200 req/s) overlapped and failed: it was lowered before the climb
  assert.ok(steps[1].rate < steps[0].rate, steps.slice(0, 3).map((s) => s.rate).join(' '))
})

test('a floor over the target where requests do not overlap: no knee, no grid', () => {
  const { steps, located } = drive({ serviceMs: 8, overAt: () => 0.9, p50Ms: 60, saturates: 1e9 })
  assert.equal(steps.filter((s) => s.kind === 'grid').length, 0)
  assert.equal(located[P99].pass, null)
  assert.equal(located[P95].pass, null)
  const low = steps.reduce((a, s) => (s.rate < a.rate ? s : a))
  assert.ok(low.overlap <= FLOOR.overlap, `the lowest step overlapped ${low.overlap}`)
})

test('a step holds at a percentile only without a fault and within its share', () => {
  assert.equal(holdsAt({ n: 600, over: 6, fault: null }, P99), true)
  assert.equal(holdsAt({ n: 600, over: 7, fault: null }, P99), false)
  assert.equal(holdsAt({ n: 600, over: 7, fault: null }, P95), true)
  assert.equal(holdsAt({ n: 600, over: 0, fault: 'backlog grew' }, P95), false)
})

test('a brute-force step keeps judgeStep\'s fault in words: failed requests never hold, however fast', () => {
  const fig = (errors) => ({
    requests: { sent: 600, completed: 600 - errors, errors, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
    latency: { p50: 5, p99: 9 },
    open: { rate: 100, lag: { p99: 0 } }
  })
  const bad = bruteStep(fig(3), 100)
  assert.equal(bad.fault, '3 failed requests')
  assert.equal(holdsAt(bad, 0.01), false)
  const good = bruteStep(fig(0), 100)
  assert.equal(good.fault, null)
})

test('the verdict: the bracket contains the knee band within one grid step; no knee agrees only with "cannot meet"', () => {
  const knee = (lo, hi = lo) => ({ lo, hi })
  assert.equal(verdictOf(knee(111), { bracket: { pass: 118.8, fail: 123.3 } }), true)
  assert.equal(verdictOf(knee(100), { bracket: { pass: 120, fail: 130 } }), false)
  assert.equal(verdictOf(knee(100, 114.2), { bracket: { pass: 120, fail: 130 } }), true, 'within a grid step of the band\'s top')
  assert.equal(verdictOf(knee(100), { bracket: { pass: 80, fail: 90 } }), false)
  // one grid step under the knee, reached by another product of rates: the same rate to 4e-6, not a miss
  assert.equal(verdictOf(knee(211.222), { bracket: { pass: 176.0176, fail: 195.57511 } }), true)
  assert.equal(verdictOf(knee(211.222), { bracket: { pass: 176.0176, fail: 195.5 } }), false, '0.04 % under it is')
  assert.equal(verdictOf(null, { rps: null, bound: 'cannot-meet' }), true)
  assert.equal(verdictOf(null, { rps: null, bound: 'undecided', undecided: { code: 'budget-spent' }, bracket: { pass: null, fail: 40 } }), false)
  // the brute force's truth, from its grid: a knee, none (a true floor failed), or unknown (its grid showed none)
  const range = { pass: 98, fail: 116 }
  const g = (rate, n, over) => ({ rate, n, over, fault: null })
  // p95 holds to 105.7 and fails 114.2; p99 holds everywhere it was measured: no p99 knee
  const brute = { grid: [g(97.9, 600, 0), g(105.7, 600, 5), g(114.2, 600, 60)], located: { 0.01: range, 0.05: range } }
  assert.deepEqual(truthOf(brute, 0.05), { truth: 'knee', band: { lo: 105.7, hi: 105.7 } })
  assert.deepEqual(truthOf({ ...brute, grid: brute.grid.slice(0, 2) }, 0.01), { truth: 'unknown', band: null })
  assert.deepEqual(truthOf({ grid: [], located: { 0.01: { pass: null, fail: 2 } } }, 0.01), { truth: 'none', band: null })
  const cell = { server: 'simple', work: 'loop:1e7', mode: 'default', percentile: 99, sloMs: 41, bracket: null, width: null }
  const quickSec = { bruteForce: 90, sweep: 30 }
  const md = renderSummary([
    { ...cell, knee: null, truth: 'unknown', bound: 'refined', holds: null, seconds: { bruteForce: 90, sweep: 60 } },
    { ...cell, mode: 'quick', knee: 90, kneeHi: 97.2, truth: 'knee', bound: 'refined', holds: false, seconds: quickSec }
  ])
  // a cell from before the stated confidence was kept: the default's bracket confidence
  assert.match(md, /0 of 1 cells with a verdict.*, 0 % of them against the 90 % their brackets state .*; 1 without one/)
  assert.match(md, /the sweeps took 90 s in all/)
  // each cell's own stated confidence (--quick's bracket: 80 %), averaged over the cells with a verdict
  const stated = renderSummary([
    { ...cell, knee: 90, truth: 'knee', bound: 'refined', holds: true, stated: 0.9, seconds: quickSec },
    { ...cell, mode: 'quick', knee: 90, truth: 'knee', bound: 'refined', holds: true, stated: 0.8, seconds: quickSec }
  ])
  assert.match(stated, /2 of 2 cells with a verdict.*, 100 % of them against the 85 % their brackets state/)
  assert.match(md, /\| unknown \|.*\| no verdict \|/)
  assert.match(md, /\| 90–97\.2 \|/, 'a band where it differs from the knee')
})

test('the knee band: 1.3 % over at p99 on 600 requests is not shown to fail; a rate measured again is pooled; rounded rates stay neighbours', () => {
  const g = (rate, n, over) => ({ rate, n, over, fault: null })
  // the quiet grid of simple on loop:1e7 (p99 ≤ 40.9 ms): 0, 0, 8 and 528 of about 605 over
  const grid = [g(97.872, 607, 0), g(105.702, 603, 0), g(114.158, 606, 8), g(123.291, 605, 528)]
  assert.equal(failsAt(grid[2], P99), false, '8 of 606 (1.3 %): as likely from a p99 within the target')
  assert.equal(failsAt(grid[3], P99), true)
  assert.equal(failsAt({ n: 600, over: 0, fault: 'backlog grew' }, P99), true)
  assert.deepEqual(kneeBandOf(grid, P99), { lo: 105.702, hi: 114.158 })
  // 114.158 × 1.08 = 123.29064, kept as 123.291: still the next grid rate (the rate measured six times over)
  assert.equal(kneeOf(grid, P95), 114.158)
  // a rate measured again pools its requests: 18, 51, 21 and 9 of 601 over are 4.1 %, over p99 and within p95
  const again = [g(13.184, 602, 3), ...[18, 51, 21, 9].map((over) => g(14.239, 601, over))]
  const pooled = pooledGrid(again).map((s) => [s.rate, s.n, s.over, s.steps])
  assert.deepEqual(pooled, [[13.184, 602, 3, 1], [14.239, 2404, 99, 4]])
  assert.equal(kneeOf(again, P99), 13.184)
  assert.equal(kneeOf(again, P95), null, 'p95 holds at the top rate: no knee')
  assert.equal(extendGrid(again, [P95]), 14.239 * GRID.ratio, 'the grid goes on above, never the same rate again')
})

test('bad input: one line and exit 2, before anything starts; --dry-run plans a part and runs nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'validate-'))
  try {
    const run = (...args) => execa(process.execPath, [SCRIPT, ...args], { reject: false })
    for (const [args, message] of [
      [['--work', 'loop:1e7', '--out', dir], /--server: give at least one strategy/],
      [['--server', 'nope', '--work', 'loop:1e7', '--out', dir], /--server: nope is not a CPU strategy/],
      [['--server', 'simple', '--work', 'loop:1e7', '--mode', 'fast', '--out', dir], /--mode: expected default, quick/],
      [['--server', 'simple', '--work', 'loop:1e7'], /--out: give the folder/],
      [['--server', 'simple', '--work', 'bogus:1', '--out', dir], /bad work spec/],
      [['--server', 'simple', '--work', 'loop:1e7', '--out', dir, '--bogus'], /Unknown option '--bogus'/]
    ]) {
      const r = await run(...args)
      assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, message)
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    }
    // a cell already in summary.json is skipped, the others planned with their expected times
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ cells: [{ name: 'simple-loop_1e7-default', holds: true }] }))
    const r = await run('--server', 'simple,cluster', '--work', 'loop:1e7', '--mode', 'default,quick', '--out', dir, '--dry-run')
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /simple loop:1e7 default: done, skipped/)
    assert.match(r.stderr, /cluster loop:1e7 quick: about \d/)
    assert.match(r.stderr, /3 cells to run, about \d+ min/)
    // one part at a time in a folder: a lock held by a live process refuses a second, before anything runs
    writeFileSync(join(dir, '.lock'), String(process.pid))
    const second = await run('--server', 'cluster', '--work', 'loop:1e7', '--out', dir)
    assert.equal(second.exitCode, 2, second.stderr)
    assert.match(second.stderr, new RegExp(`a part is already running in .* \\(pid ${process.pid}\\)`))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// A folder --out cannot write in: a chmod'd one, or (root ignores modes) a kernel folder no one writes in.
function readOnlyFolder (dir) {
  if (process.getuid?.() !== 0) {
    const ro = join(dir, 'ro')
    mkdirSync(ro)
    chmodSync(ro, 0o500)
    return ro
  }
  return existsSync('/sys/kernel') ? '/sys/kernel' : null
}

test('--out a file or a read-only folder, a corrupt or empty summary.json or brute force: one line, exit 2, nothing overwritten', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'validate-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const run = (out, ...more) => execa(process.execPath, [SCRIPT, '--server', 'simple', '--work', 'loop:1e5', '--out', out, ...more],
    { reject: false, timeout: 60000 })
  const refused = async (r, message) => {
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, message)
    assert.equal(r.stderr.trim().split('\n').filter((l) => !/about|cells to run|starting/.test(l)).length, 1, r.stderr)
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
  }
  const file = join(dir, 'afile')
  writeFileSync(file, 'mine')
  await refused(await run(file), /--out: .*afile is a file, not a folder/)
  assert.equal(readFileSync(file, 'utf8'), 'mine')
  const ro = readOnlyFolder(dir)
  if (ro) await refused(await run(ro), /--out: cannot (write in|make)/)
  // summary.json corrupt, empty, or without its cells: refused before anything is written (--dry-run too)
  for (const [name, text, message] of [['corrupt', '{bad', /summary\.json: not JSON/], ['empty', '', /summary\.json: empty/],
    ['shape', '{"cells": 3}', /summary\.json: no cells list/]]) {
    const out = join(dir, name)
    mkdirSync(out)
    writeFileSync(join(out, 'summary.json'), text)
    await refused(await run(out), message)
    await refused(await run(out, '--dry-run'), message)
    assert.equal(readFileSync(join(out, 'summary.json'), 'utf8'), text, 'nothing overwritten')
    assert.deepEqual(readdirSync(out), ['summary.json'])
  }
  // a kept brute force that is corrupt: refused before calibrating or measuring, and left as it was
  const out = join(dir, 'brute')
  mkdirSync(out)
  writeFileSync(join(out, 'simple-loop_1e5-brute.json'), '{"x"')
  await refused(await run(out), /simple-loop_1e5-brute\.json: not JSON/)
  assert.equal(readFileSync(join(out, 'simple-loop_1e5-brute.json'), 'utf8'), '{"x"')
})

test('the brute forces alone: validate-capacity.js --brute-only, its options checked as a part\'s', async () => {
  const args = [SCRIPT, '--brute-only', '--server', 'nope', '--work', 'loop:1e5', '--out', 'x']
  const bad = await execa(process.execPath, args, { reject: false })
  assert.equal(bad.exitCode, 2)
  assert.match(bad.stderr, /--server: nope is not a CPU strategy/)
})
