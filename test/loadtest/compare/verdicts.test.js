// compare's verdict from one run each (result/interval.js, result/verdict.js, result/machine.js): reports
// built with known histograms and timelines give the verdict the rule says, the ruler puts a change down to
// the machine, a report without one says the machine cannot be told apart, several machines get their
// rankings and flips, and --json is the data the types describe. Built data only: unit-fast, no machine's figures.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { comparisonData, compareReports } from '../../../loadtest/compare/compare.js'
import { renderCompareHtml, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { percentileInterval, quantileRanks, rateInterval } from '../../../loadtest/result/interval.js'
import { floorOf, judge } from '../../../loadtest/result/verdict.js'
import { predict, strategyModel } from '../../../loadtest/result/machine.js'
import { COMPARE } from '../../../loadtest/result/rules.js'
import { rulerFixture, rulerReading } from '../../fixtures/reports.js'
import { ROOT } from '../../helpers/lab.js'

// A closed-loop run of `server` whose requests took `ms` × (1 ± 4 %) in a fixed pattern (n of them), over
// windows of 100 ms each completing `perWindow` × (1 ± 3 %): its figures, histogram and timeline agree.
function run (server, { ms = 10, n = 600, perWindow = 40, work = 'loop:1e7' } = {}) {
  const h = createHistogram()
  const lat = []
  for (let i = 0; i < n; i++) {
    const v = ms * (1 + 0.04 * Math.sin(i * 1.7))
    lat.push(v)
    recordMs(h, v)
  }
  lat.sort((a, b) => a - b)
  const at = (q) => lat[Math.min(n - 1, Math.ceil(q * n) - 1)]
  const windows = Math.ceil(n / perWindow)
  const points = Array.from({ length: windows }, (_, i) => ({
    t: i * 100, phase: 'round', completed: Math.round(perWindow * (1 + 0.03 * Math.cos(i * 2.3))), ok: perWindow
  }))
  const rps = perWindow * 10
  return {
    kind: 'http',
    key: `${server}@${work}`,
    server,
    variant: null,
    work,
    loop: 'closed',
    rate: null,
    status: 'ok',
    trusted: true,
    untrusted: [],
    requests: { total: n, ok: n },
    rps,
    latency: { count: n, p50: at(0.5), p99: at(0.99), max: lat[n - 1], percentiles: { 50: at(0.5), 99: at(0.99) } },
    histograms: { latency: encodeHistogram(h) },
    timeline: { intervalMs: 100, endMs: windows * 100, points },
    ideal: { rps: 500 },
    efficiency: rps / 500
  }
}

// A report of runs, with a ruler (a reading's options) or none.
function report (label, runs, ruler = null) {
  return {
    schema: 1,
    kind: 'loadlab-report',
    id: label,
    label,
    createdAt: '2026-11-22T04:31:07.000Z',
    experiment: 'tour',
    machine: { hostname: label, cores: 2 },
    method: { tool: 'autocannon', connections: 4 },
    calibration: { 'loop:1e7': { serviceMs: 8 } },
    results: runs,
    ...(ruler ? { ruler: rulerFixture(rulerReading(ruler), rulerReading(ruler)) } : {})
  }
}

const entries = (...reports) => reports.map((r, i) => ({ file: `${r.label}.json`, report: r }))
const verdictsOf = (cmp, key, i = 1) => {
  const c = cmp.rows.find((r) => r.key === key).cells[i]
  return Object.fromEntries(Object.entries(c.verdicts).map(([k, v]) => [k, v.verdict]))
}

test('intervals: order statistics bracket a percentile, batch means a rate; a longer run narrows them', () => {
  assert.deepEqual(quantileRanks(1000, 0.5), { lo: 469, hi: 532, openLow: false, openHigh: false })
  assert.deepEqual(quantileRanks(100, 0.99), { lo: 97, hi: 100, openLow: false, openHigh: true })
  const short = run('simple', { n: 300 })
  // 300 requests cannot bound p99 from above: that side is open, and no rise of p99 is called from them
  const tail = percentileInterval(short.histograms.latency, 99, short.latency.p99)
  assert.equal(tail.high, Infinity)
  assert.equal(judge('p99', tail, { ...tail, value: tail.value * 10, low: tail.low * 10 }).verdict, 'within-noise')
  const long = run('simple', { n: 3000 })
  const width = (iv) => iv.high / iv.low
  const p50s = [short, long].map((r) => percentileInterval(r.histograms.latency, 50, r.latency.p50))
  for (const iv of p50s) assert.ok(iv.low <= iv.value && iv.value <= iv.high)
  assert.ok(width(p50s[1]) < width(p50s[0]))
  const rates = [short, long].map((r) => rateInterval(r.timeline, r.rps))
  assert.equal(rates[0].method, 'batch-means')
  assert.ok(rates[0].low < 400 && rates[0].high > 400)
  assert.ok(width(rates[1]) < width(rates[0]))
  assert.equal(rateInterval({ intervalMs: 100, endMs: 200, points: [] }, 100), null, 'no window: no interval')
})

test('the rule: within noise, better and worse from one run each, with no ruler the machine cannot be told', () => {
  const a = report('A', [run('simple')])
  const same = compareReports(entries(a, report('B', [run('simple', { ms: 10.1 })])))
  assert.deepEqual(verdictsOf(same, 'simple@loop:1e7'),
    { rps: 'within-noise', p50: 'within-noise', p99: 'within-noise', efficiency: 'within-noise' })
  // 3 × slower: each figure beyond its intervals and the floor (p99's, the widest: × 1.67)
  const slower = compareReports(entries(a, report('B', [run('simple', { ms: 30, perWindow: 13 })])))
  assert.deepEqual(verdictsOf(slower, 'simple@loop:1e7'), { rps: 'worse', p50: 'worse', p99: 'worse', efficiency: 'worse' })
  const faster = compareReports(entries(a, report('B', [run('simple', { ms: 3, perWindow: 130 })])))
  assert.deepEqual(verdictsOf(faster, 'simple@loop:1e7'),
    { rps: 'better', p50: 'better', p99: 'better', efficiency: 'better' })
  // a change inside the floor is within noise even with tight intervals; just past it, it is called
  const tight = (x) => ({ value: x, low: x * 0.999, high: x * 1.001 })
  const inside = 100 * Math.exp(0.9 * COMPARE.floorRate)
  const past = 100 * Math.exp(1.1 * COMPARE.floorRate)
  assert.equal(judge('rps', tight(100), tight(inside)).verdict, 'within-noise')
  assert.equal(judge('rps', tight(100), tight(past)).verdict, 'better')
  // beyond the band on a run the lab marked disturbed: no call, unless past what a disturbance moves a figure by
  assert.equal(judge('rps', tight(100), tight(past), null, { disturbed: true }).verdict, 'disturbed')
  const farPast = 100 * Math.exp(1.1 * Math.hypot(COMPARE.floorRate, COMPARE.floorDisturbed))
  assert.equal(judge('rps', tight(100), tight(farPast), null, { disturbed: true }).verdict, 'better')
  assert.equal(judge('rps', tight(100), tight(inside), null, { disturbed: true }).verdict, 'within-noise')
  // without a ruler: judged raw, and said so
  const told = slower.rows[0].cells[1].verdicts.rps
  assert.equal(told.machine, 'unknown')
  assert.equal(told.predicted, null)
  assert.deepEqual(slower.machines.noRuler, [0, 1])
  const md = renderCompareMarkdown(slower)
  assert.match(md, /- A \(A\.json\) carries no ruler: the machine cannot be told apart for it/)
  assert.match(md, /\| 0\.3\d× worse \|/)
  assert.doesNotMatch(md, /no noise estimate/)
})

test('the ruler: a change the machine accounts for is put down to it; what it leaves is better or worse', () => {
  const a = report('A', [run('simple'), run('cluster')], {})
  // B's single thread is 3 × slower (every time × 3): simple runs 3 × slower there
  const slowB = report('B', [run('simple', { ms: 30, perWindow: 13 }), run('cluster', { ms: 30, perWindow: 13 })],
    { scale: 3 })
  const cmp = compareReports(entries(a, slowB))
  const v = cmp.rows[0].cells[1].verdicts.rps
  assert.equal(v.machine, 'told')
  assert.equal(v.verdict, 'machine')
  assert.ok(Math.abs(v.predicted - 1 / 3) < 0.05, `predicted ${v.predicted}`)
  assert.ok(v.explained > 0.8 && v.explained < 1.2, `explained ${v.explained}`)
  assert.deepEqual(verdictsOf(cmp, 'simple@loop:1e7'), { rps: 'machine', p50: 'machine', p99: 'machine', efficiency: 'machine' })
  // the same machine (rulers equal) and the same slowdown: the code, worse
  const sameMachine = compareReports(entries(a, report('B', [run('simple', { ms: 30, perWindow: 13 })], {})))
  assert.equal(verdictsOf(sameMachine, 'simple@loop:1e7').rps, 'worse')
  // 20 × slower where the ruler explains 3 ×: beyond the machine (its band widened by the ruler figures'
  // own floors: a loop reading moves × 1.4 between quiet runs), with the residual
  const beyond = compareReports(entries(a, report('B', [run('simple', { ms: 200, perWindow: 2 })], { scale: 3 })))
  const w = beyond.rows[0].cells[1].verdicts.rps
  assert.equal(w.verdict, 'worse')
  assert.ok(w.residual < 0.2 && w.residual > 0.1, `residual ${w.residual}`)
  assert.match(renderCompareMarkdown(beyond), /0\.05× worse \(0\.33× predicted\)/)
})

test('the machine model: one core under taskset halves cluster and the pools, not the event loop', () => {
  assert.equal(strategyModel('simple').parallel, 'one')
  assert.equal(strategyModel('cluster').parallel, 'cores')
  assert.equal(strategyModel('child-process').spawn, 'processMs')
  const two = rulerFixture(rulerReading({ cores: 1.96 }))
  const one = rulerFixture(rulerReading({ cores: 1 }))
  const of = (server, args = []) => predict({
    rulerA: two, rulerB: one, runA: { server, work: 'loop:1e7', loop: 'closed', args }, workMs: 8
  })
  assert.ok(Math.abs(of('simple').throughput - 1) < 1e-9, 'one event loop: one core is all it used')
  assert.ok(Math.abs(of('cluster').throughput - 1 / 1.96) < 1e-9)
  assert.ok(Math.abs(of('queued-threads', ['--threads', '1']).throughput - 1) < 1e-9, 'a pool of one: bounded by it')
  assert.ok(Math.abs(of('cluster').latency - 1.96) < 1e-9, 'a closed loop: latency as one over throughput')
  // a report pair under taskset: cluster's req/s halves and the ruler says so
  const a = report('A', [run('cluster'), run('simple')], { cores: 1.96 })
  const b = report('B', [run('cluster', { ms: 19.6, perWindow: 20.4 }), run('simple')], { cores: 1 })
  const cmp = compareReports(entries(a, b))
  assert.equal(verdictsOf(cmp, 'cluster@loop:1e7').rps, 'machine')
  assert.equal(verdictsOf(cmp, 'simple@loop:1e7').rps, 'within-noise')
  assert.ok(COMPARE.modelError > 0 && COMPARE.floorTail >= COMPARE.floorP50)
})

test('several machines: a column per machine with its ruler line, its ranking, and where the ranking flips', () => {
  const runs = (simpleMs, clusterMs) => [
    run('simple', { ms: simpleMs, perWindow: 400 / simpleMs }), run('cluster', { ms: clusterMs, perWindow: 400 / clusterMs })
  ]
  const a = report('A', runs(10, 5), { cores: 1.96 })
  const b = report('B', runs(10, 10.2), { cores: 1 }) // one core: cluster no better than simple
  const c = report('C', runs(10, 20)) // cluster behind simple: the decision flips
  const cmp = compareReports(entries(a, b, c))
  const m = cmp.machines
  assert.deepEqual(m.rankings.map((r) => r.order), [
    ['cluster@loop:1e7', 'simple@loop:1e7'], ['simple@loop:1e7', 'cluster@loop:1e7'],
    ['simple@loop:1e7', 'cluster@loop:1e7']
  ])
  assert.deepEqual(m.rankings.map((r) => r.figure), ['rps', 'rps', 'rps'])
  assert.deepEqual(m.flips.map((f) => [f.report, f.above, f.below, f.sure]), [
    [1, 'cluster@loop:1e7', 'simple@loop:1e7', false], [2, 'cluster@loop:1e7', 'simple@loop:1e7', true]
  ])
  assert.deepEqual(m.decisions.map((d) => [d.report, d.now, d.sure]), [[1, 'simple@loop:1e7', false], [2, 'simple@loop:1e7', true]])
  assert.equal(m.rulers[1]['cores.effective'].value, 1)
  assert.equal(m.rulers[2], null)
  const md = renderCompareMarkdown(cmp)
  assert.match(md, /## Machines/)
  assert.match(md, /\| \*\*B\*\* \| 1 of 2 cores · loop /)
  assert.match(md, /- decision flips on C: `simple@loop:1e7` comes first \(on A: `cluster@loop:1e7`\)\n/)
  assert.match(md, /ranking flips on B: .*; within noise on one machine at least/)
  // reports with a decision block: their own decisions, not the top of a ranking (a tie broken otherwise)
  const decided = (r, key) => ({ ...r, decision: { ...r.decision, key } })
  const same = compareReports(entries(decided(a, 'cluster@loop:1e7'), decided(c, 'cluster@loop:1e7'))).machines
  assert.equal(same.flips.length, 1, 'the ranking still flips')
  assert.deepEqual(same.decisions, [], 'both decided cluster')
  const other = compareReports(entries(decided(a, 'cluster@loop:1e7'), decided(b, 'simple@loop:1e7'))).machines
  assert.deepEqual(other.decisions.map((d) => [d.was, d.now]), [['cluster@loop:1e7', 'simple@loop:1e7']])
  const html = renderCompareHtml(cmp)
  assert.match(html, /data-section="machines"/)
  assert.match(html, /data-chart="cores"/, 'the chart against the ruler\'s cores (A and B carry a ruler)')
})

test('--json: the comparison as data, every figure with its ratio, interval and verdict, as index.d.ts types it', () => {
  const a = report('A', [run('simple')], {})
  const b = report('B', [run('simple', { ms: 15, perWindow: 27 })], { scale: 1.5 })
  const data = comparisonData(compareReports(entries(a, b)))
  assert.equal(JSON.stringify(data), JSON.stringify(JSON.parse(JSON.stringify(data))), 'plain JSON')
  const cell = data.rows[0].cells[1]
  assert.equal(cell.timeline, undefined, 'timelines are the page\'s, not the data\'s')
  const dts = readFileSync(join(ROOT, 'index.d.ts'), 'utf8')
  const fields = (name) => {
    const body = new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(dts)?.[1] ?? ''
    return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((x) => x[1]).sort()
  }
  assert.deepEqual(Object.keys(data).sort(), fields('Comparison'))
  assert.deepEqual(Object.keys(data.machines).sort(), fields('ComparisonMachines'))
  for (const v of Object.values(cell.verdicts)) assert.deepEqual(Object.keys(v).sort(), fields('FigureVerdict'))
  for (const iv of Object.values(cell.intervals).filter(Boolean)) {
    for (const k of Object.keys(iv)) assert.ok(fields('FigureInterval').includes(k), k)
  }
  assert.equal(cell.verdicts.rps.verdict, 'machine')
})

test('a strategy the validation measured is judged by its own floor, any other run by its kind\'s', () => {
  const tight = (x) => ({ value: x, low: x * 0.999, high: x * 1.001 })
  const own = floorOf('rps', 'simple')
  assert.equal(own, COMPARE.serverFloors.simple.rps)
  assert.equal(floorOf('rps', 'a-server-of-mine'), COMPARE.floorRate)
  assert.equal(floorOf('p99.9', 'simple'), COMPARE.serverFloors.simple.p99) // the tail's floor, as kindOf reads it
  assert.equal(floorOf('goodput', 'simple'), COMPARE.serverFloors.simple.rps)
  assert.ok(own < COMPARE.floorRate, 'simple varies less between runs than the strategies together')
  // a change between the two floors: called for simple, within noise for a server the validation never ran
  const between = 100 * Math.exp((own + COMPARE.floorRate) / 2)
  assert.equal(judge('rps', tight(100), tight(between), null, { server: 'simple' }).verdict, 'better')
  assert.equal(judge('rps', tight(100), tight(between), null, { server: 'a-server-of-mine' }).verdict, 'within-noise')
  // the validation judges with floors it fitted, handed in; without them the rule book's stand
  const wide = { simple: { rps: 1 } }
  assert.equal(judge('rps', tight(100), tight(between), null, { server: 'simple', floors: wide }).verdict,
    'within-noise')
  assert.equal(judge('rps', tight(100), tight(between), null, { server: 'simple', floors: null }).verdict,
    'within-noise', 'no strategy floors: the kind\'s')
  assert.equal(floorOf('rps', 'simple'), own)
})

test('a closed-loop run loaded at different connection counts is named: -c is not in the key', () => {
  const at = (c, extra = {}) => ({ ...run('simple'), connections: c, ...extra })
  const notes = (a, b) => compareReports(entries(report('A', [a]), report('B', [b]))).notes
    .filter((n) => /connection counts/.test(n))
  assert.deepEqual(notes(at(4), at(8)), ['simple@loop:1e7 ran at different connection counts (A -c 4, B -c 8): a ' +
    "closed loop's req/s and latency depend on them, so its ratios mix that change with any other"])
  assert.deepEqual(notes(at(4), at(4)), [])
  // an open loop's load is its rate: its connections are the generator's own, not the load
  assert.deepEqual(notes(at(4, { loop: 'open', rate: 100 }), at(8, { loop: 'open', rate: 100 })), [])
})
