// compare on capacity reports: a capacity's interval is its bracket (never the steps of one sweep), and
// capacities judged against targets too far apart are not called better or worse.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareReports, parseFailOn } from '../../../loadtest/compare/compare.js'
import { COMPARE } from '../../../loadtest/result/rules.js'
import { renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { httpReport } from '../../fixtures/reports.js'

// A capacity report of one server: its sweeps' capacities (the median shown), its target, and its steps.
function capacityReport ({ label, sloMs, sweeps }) {
  const report = httpReport({ label })
  const [r] = report.results
  const sorted = sweeps.slice().sort((a, b) => a - b)
  const median = sorted[(sorted.length - 1) >> 1]
  const cap = (rps) => ({ sloMs, rps, bound: 'refined', bracket: { pass: rps, fail: rps * 1.05 } })
  // ten steps of one sweep, spread wide: if compare took them for rounds, every change would be noise
  const steps = Array.from({ length: 10 }, (_, i) => ({ index: i, rate: median * (0.3 + i * 0.1) }))
  r.key = 'simple#capacity'
  r.capacity = { sloMs, steps, capacity: cap(median), ...(sweeps.length > 1 ? { runs: sweeps.map(cap) } : {}) }
  r.runs = undefined
  report.results = [r]
  report.experiment = 'capacity'
  return report
}

const entries = (...reports) => reports.map((report, i) => ({ file: `r${i}.json`, report }))
const cellB = (cmp) => cmp.rows[0].cells[1]

test('compare: a capacity is judged on its bracket and the capacity floor, never on the steps of a sweep', () => {
  const a = capacityReport({ label: 'A', sloMs: 150, sweeps: [60, 62, 61] }) // 61, bracket 61–64.05
  // 90 over 61 (bracket 90–94.5): apart by more than the bracket and the floor: better
  const far = compareReports(entries(a, capacityReport({ label: 'B', sloMs: 150, sweeps: [90] })))
  assert.equal(cellB(far).verdicts.capacity.verdict, 'better')
  assert.match(renderCompareMarkdown(far), /1\.48× better/)
  // 71 over 61: the brackets are apart, but 1.16 is inside the between-run floor (COMPARE.floorCapacity)
  const near = compareReports(entries(a, capacityReport({ label: 'C', sloMs: 150, sweeps: [70, 72, 71] })))
  assert.equal(cellB(near).capacityRatio, 71 / 61)
  assert.equal(cellB(near).verdicts.capacity.verdict, 'within-noise', 'ten steps of one sweep are not rounds')
  assert.match(renderCompareMarkdown(near), /1\.16× within noise/)
  const worse = compareReports(entries(a, capacityReport({ label: 'D', sloMs: 150, sweeps: [40] })))
  assert.equal(cellB(worse).verdicts.capacity.verdict, 'worse')
})

test('compare: capacities judged against targets too far apart are refused, in one line', () => {
  const a = capacityReport({ label: 'A', sloMs: 150, sweeps: [60, 62, 61] })
  const far = capacityReport({ label: 'B', sloMs: 150 * (1 + COMPARE.targetTolerance * 2), sweeps: [90, 92, 91] })
  const cmp = compareReports(entries(a, far), { failOn: [parseFailOn('capacity:-5%')] })
  assert.equal(cellB(cmp).capacityRatio, null, 'no ratio')
  assert.match(cellB(cmp).capacityRefused, /^capacity not compared: judged against targets 20 % apart/)
  const line = cmp.notes.find((n) => n.includes('capacity not compared'))
  assert.ok(line && !line.includes('\n'), 'one line in the notes')
  assert.match(renderCompareMarkdown(cmp), /targets differ/)
  const gate = cmp.gates[0].runs[0]
  assert.equal(gate.status, 'not comparable')
  assert.match(gate.why, /targets 20 % apart/)
  const near = capacityReport({ label: 'C', sloMs: 150 * (1 + COMPARE.targetTolerance / 2), sweeps: [90, 92, 91] })
  assert.equal(cellB(compareReports(entries(a, near))).capacityRefused, null, 'within the tolerance: compared')
})

test('compare: a capacity that is a lower bound or "cannot meet" is never divided as a measurement', () => {
  const a = capacityReport({ label: 'A', sloMs: 150, sweeps: [60] })
  const bound = (report, bound, rps) => {
    const c = report.results[0].capacity.capacity
    Object.assign(c, { bound, rps })
    return report
  }
  // this run's is a lower bound over a measured baseline: the ratio is at least this much
  const atLeast = compareReports(entries(a, bound(capacityReport({ label: 'B', sloMs: 150, sweeps: [90] }), 'at-least', 90)))
  assert.equal(cellB(atLeast).capacityRatio, 90 / 60)
  assert.equal(cellB(atLeast).capacityRatioSign, '≥')
  assert.match(renderCompareMarkdown(atLeast), /\| ≥90\.0 \| 150 \| ≥1\.50×/)
  // the baseline's is a lower bound: a ratio to it would only be an upper bound, so none, with the reason
  const baseBound = compareReports(entries(bound(capacityReport({ label: 'A', sloMs: 150, sweeps: [60] }), 'at-least', 60),
    capacityReport({ label: 'B', sloMs: 150, sweeps: [90] })))
  assert.equal(cellB(baseBound).capacityRatio, null)
  assert.match(cellB(baseBound).capacityRefused, /the baseline's is a lower bound \(≥ 60 req\/s\)/)
  assert.ok(baseBound.notes.some((n) => n.includes("the baseline's is a lower bound")))
  assert.match(renderCompareMarkdown(baseBound), /\| 90\.0 \| 150 \| - \|/)
  // a run that met its target at no rate has no capacity to divide
  const none = compareReports(entries(a, bound(capacityReport({ label: 'B', sloMs: 150, sweeps: [90] }), 'cannot-meet', null)))
  assert.equal(cellB(none).capacityRatio, null)
  assert.match(cellB(none).capacityRefused, /this run cannot meet its target at any rate tried/)
})

test('compare --fail-on capacity: a lower bound on either side is not gated as a measurement', () => {
  const atLeast = (label, rps) => {
    const report = capacityReport({ label, sloMs: 150, sweeps: [rps] })
    report.results[0].capacity.capacity.bound = 'at-least'
    return report
  }
  const gate = (a, b) => compareReports(entries(a, b), { failOn: [parseFailOn('capacity:-5%')] }).gates[0].runs[0]
  // ≥ 40 against 60 would read as a 33 % fall, but the run only showed it holds at least 40
  const lower = gate(capacityReport({ label: 'A', sloMs: 150, sweeps: [60] }), atLeast('B', 40))
  assert.equal(lower.status, 'not comparable')
  assert.match(lower.why, /^this run's capacity is a lower bound \(≥ 40 req\/s\), not a measurement$/)
  const base = gate(atLeast('A', 60), capacityReport({ label: 'B', sloMs: 150, sweeps: [40] }))
  assert.equal(base.status, 'not comparable')
  assert.match(base.why, /^the baseline's capacity is a lower bound/)
  // two measurements apart are gated as before
  const measured = gate(capacityReport({ label: 'A', sloMs: 150, sweeps: [60] }), capacityReport({ label: 'B', sloMs: 150, sweeps: [40] }))
  assert.equal(measured.status, 'regressed')
})
