// The ruler never passes a gate (result/ruler-trust.js, the rule book's RULER_TRUST): a ruler that moved during
// its run (by its readings, whatever its file says), or that its own report contradicts, is set aside and compare
// says so in one line; a change put down to the machine fails --fail-on unless --allow-machine. Built reports
// only: a real 13 × regression of queued-threads behind each forged or disturbed ruler.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { anyRegressed, compareReports, parseFailOn } from '../../../loadtest/compare/compare.js'
import { gateLine, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { rulerSetAside } from '../../../loadtest/result/ruler-trust.js'
import { RULER_TRUST } from '../../../loadtest/result/rules.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { httpReport, httpResult, rulerFixture, rulerReading } from '../../fixtures/reports.js'
import { execa } from 'execa'
import { ROOT } from '../../helpers/lab.js'

// A closed-loop run whose requests took `ms` (± 4 %), `perWindow` completing in each 100 ms window.
function run (server, { ms = 10, perWindow = 40, n = 600 } = {}) {
  const h = createHistogram()
  const lat = Array.from({ length: n }, (_, i) => ms * (1 + 0.04 * Math.sin(i * 1.7))).sort((a, b) => a - b)
  for (const v of lat) recordMs(h, v)
  const at = (q) => lat[Math.ceil(q * n) - 1]
  const points = Array.from({ length: Math.ceil(n / perWindow) }, (_, i) => ({
    t: i * 100, phase: 'round', completed: Math.round(perWindow * (1 + 0.03 * Math.cos(i * 2.3))), ok: perWindow
  }))
  return {
    kind: 'http',
    key: `${server}@loop:1e7`,
    server,
    variant: null,
    work: 'loop:1e7',
    loop: 'closed',
    status: 'ok',
    trusted: true,
    untrusted: [],
    requests: { total: n, ok: n },
    rps: perWindow * 10,
    latency: { count: n, p50: at(0.5), p99: at(0.99), max: lat[n - 1], percentiles: { 50: at(0.5), 99: at(0.99) } },
    histograms: { latency: encodeHistogram(h) },
    timeline: { intervalMs: 100, endMs: points.length * 100, points }
  }
}

// A tour on a 2-core machine: one event loop at 100 req/s, a pool and cluster at 180; its calibration of
// loop:1e7 is the ruler's loop (0.512 ms per 5e5) at 1e7. `regressed`: the pool 13 × slower.
function tour (id, ruler, { regressed = false, machine = {} } = {}) {
  return {
    schema: 1,
    kind: 'loadlab-report',
    id,
    createdAt: '2026-11-22T04:31:07.000Z',
    status: 'complete',
    experiment: 'tour',
    machine: { hostname: 'vm', cores: 2, availableParallelism: 2, ...machine },
    method: {},
    calibration: { 'loop:1e7': { serviceMs: 10.24, method: 'measured' } },
    ruler,
    results: [run('simple', { perWindow: 10 }),
      run('queued-threads', regressed ? { ms: 130, perWindow: 1.4 } : { perWindow: 18 }), run('cluster', { perWindow: 18 })]
  }
}

const quiet = () => rulerFixture(rulerReading(), rulerReading())
const bounds = ['rps:-10%', 'p99:+10%'].map(parseFailOn)
const cmpOf = (a, b, opts = {}) => compareReports([{ file: 'A.json', report: a }, { file: 'B.json', report: b }],
  { failOn: bounds, ...opts })
const gateOf = (cmp) => cmp.gates[0].runs.find((r) => r.key === 'queued-threads@loop:1e7')

// B's ruler read 0.1 effective cores on a machine whose own pool ran 13 × faster than that allows, and so on:
// each forged or disturbed ruler with the code it is set aside by.
const forged = {
  // the cores and the whole scaling forged alike: the report's own runs show more
  runs: () => {
    const r = rulerReading({ cores: 0.1 })
    return rulerFixture(r, r)
  },
  // only `effective` forged: its own scaling's speedup at 2 threads says 1.96
  scaling: () => {
    const r = rulerReading()
    r.cores = { ...r.cores, effective: { value: 0.1, spreadPct: 5, n: 3 } }
    return rulerFixture(r, r)
  },
  // disturbed at its start (0.6 cores, 1.96 at the end), its file saying it did not move
  moved: () => ({ ...rulerFixture(rulerReading({ cores: 0.6 }), rulerReading()), drift: [], moved: false })
}

test('a forged or disturbed ruler is set aside: the real regression behind it fails the gate, with one line why', () => {
  const a = tour('A', quiet())
  assert.equal(rulerSetAside(a), null, 'a quiet ruler that its report agrees with explains')
  for (const [code, make] of Object.entries(forged)) {
    const b = tour('B', make(), { regressed: true })
    assert.equal(rulerSetAside(b)?.code, code)
    const cmp = cmpOf(a, b)
    assert.equal(cmp.machines.rulers[1].setAside.code, code)
    const g = gateOf(cmp)
    assert.equal(g.noise.verdict, 'worse', `${code}: judged raw, not put down to the machine`)
    assert.equal(g.fails, true)
    assert.equal(anyRegressed(cmp), true, `${code}: exit 99`)
    const lines = renderCompareMarkdown(cmp).split('\n').filter((l) => /ruler is set aside/.test(l))
    assert.equal(lines.length, 1, `${code}: one line`)
    assert.match(lines[0], /B's ruler is set aside: .+; it explains no change/)
  }
  // the same regression behind the same machine's ruler: worse, as it should be
  assert.equal(gateOf(cmpOf(a, tour('B', quiet(), { regressed: true }))).noise.verdict, 'worse')
})

test('a moved ruler is recomputed from its readings: a file that marks a quiet ruler moved is not believed', () => {
  const said = { ...quiet(), moved: true }
  assert.equal(rulerSetAside(tour('A', said)), null)
  assert.equal(compareReports([{ file: 'A', report: tour('A', said) }, { file: 'B', report: tour('B', quiet()) }])
    .machines.rulers[0].moved, false)
})

test('a baseline claiming more cores than its machine block: set aside, the regression is worse, never better', () => {
  const r = rulerReading({ cores: 63.5, offered: 64 })
  const a = tour('A', rulerFixture(r, r))
  const cmp = cmpOf(a, tour('B', quiet(), { regressed: true }))
  assert.deepEqual(cmp.machines.rulers[0].setAside, { code: 'offered', offered: 64, machine: 2 })
  assert.equal(gateOf(cmp).noise.verdict, 'worse')
  assert.equal(anyRegressed(cmp), true)
})

test('the runs check reads the rule book: a pool past coresShown × the effective cores sets the ruler aside', () => {
  const at = (cores) => {
    const r = rulerReading({ cores })
    return rulerSetAside(tour('A', rulerFixture(r, r)))
  }
  // the tour's pool and cluster run 1.8 × its event loop
  assert.equal(at(1.8 / RULER_TRUST.coresShown * 1.05), null)
  assert.equal(at(1.8 / RULER_TRUST.coresShown * 0.95)?.code, 'runs')
})

test('a change put down to the machine fails --fail-on unless --allow-machine, and the line names the flag', () => {
  // B: the same code on a machine with one core given (a ruler that agrees with its runs): the pool halves
  const one = rulerReading({ cores: 1 })
  const a = tour('A', quiet())
  const b = tour('B', rulerFixture(one, one))
  b.results[1] = run('queued-threads', { ms: 20, perWindow: 9 })
  b.results[2] = run('cluster', { ms: 20, perWindow: 9 })
  assert.equal(rulerSetAside(b), null)
  const strict = cmpOf(a, b)
  const g = gateOf(strict)
  assert.equal(g.status, 'machine')
  assert.equal(g.fails, true)
  assert.equal(anyRegressed(strict), true)
  assert.match(gateLine(strict, strict.gates[0], g), /put down to the machine \(fails without --allow-machine\)/)
  const allowed = cmpOf(a, b, { allowMachine: true })
  assert.equal(anyRegressed(allowed), false)
  assert.match(gateLine(allowed, allowed.gates[0], gateOf(allowed)), /passed by --allow-machine/)
})

test('compare CLI: a disturbed ruler fails the gate (exit 99) with its one line on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-ruler-'))
  try {
    const b = { ...httpReport(), ruler: forged.moved() }
    b.results[1] = httpResult('queued-threads', { rps: 24, base: 40, tail: 200 })
    writeFileSync(join(dir, 'A.json'), JSON.stringify({ ...httpReport(), ruler: quiet() }))
    writeFileSync(join(dir, 'B.json'), JSON.stringify(b))
    const res = await execa(process.execPath, ['loadtest/compare/cli.js', join(dir, 'A.json'), join(dir, 'B.json'),
      '--fail-on', 'rps:-10%'], { cwd: ROOT, reject: false, stdin: 'ignore' })
    assert.equal(res.exitCode, 99, res.stderr)
    const lines = res.stderr.split('\n').filter((l) => /set aside/.test(l))
    assert.equal(lines.length, 1)
    assert.match(lines[0], /^compare: B's ruler is set aside: it moved during its run, by its own two readings/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
