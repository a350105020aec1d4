// One --fail-on grammar (compare/fail-on.js) and one which-way-is-better table (result/better.js), read by
// compare, history and the verdicts: bounds read or checked, never a prototype key; a library bound that is
// not one is a LAB_USAGE naming the option; a bound on a figure no report has is an error. Built data only.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { failOnBounds, FAIL_ON_METRICS, parseFailOn } from '../../../loadtest/compare/fail-on.js'
import { compareReports } from '../../../loadtest/compare/api.js'
import { figureKind, higherIsBetter } from '../../../loadtest/result/better.js'
import { FIGURE_KINDS, kindOf } from '../../../loadtest/result/verdict.js'
import { METRICS } from '../../../loadtest/report/thresholds.js'
import { usageError } from '../../../loadtest/errors.js'
import { ROOT } from '../../helpers/lab.js'
import { readBounded } from '../../../loadtest/report/read.js'

const REAL = JSON.parse(readBounded(join(ROOT, 'reports/reference/tours/2026-11-26T13-50-55Z-vm-tour.json.gz')))

test('better.js: rates and ratios are better higher, times lower; a prototype key is no figure', () => {
  for (const f of ['rps', 'capacity', 'efficiency', 'goodput']) assert.equal(higherIsBetter(f), true, f)
  for (const f of ['p50', 'p99', 'p99.9', 'max', 'meanMs']) assert.equal(higherIsBetter(f), false, f)
  for (const f of ['constructor', '__proto__', 'toString', 'hasOwnProperty', '', 'p', 5, null]) {
    assert.equal(figureKind(f), null, String(f))
    assert.equal(higherIsBetter(f), null, String(f))
  }
  // the verdicts read the same table: every kind agrees with it
  for (const [name, spec] of Object.entries(FIGURE_KINDS)) assert.equal(spec.higherIsBetter, higherIsBetter(name))
  assert.equal(kindOf('constructor'), null)
  // every metric a bound takes has a direction, and the threshold's kind agrees with it
  for (const m of FAIL_ON_METRICS) assert.equal(higherIsBetter(m), ['rate', 'ratio'].includes(METRICS[m].kind), m)
})

test('parseFailOn: a prototype key is an unknown metric; the option named is the one given', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'valueOf']) {
    assert.throws(() => parseFailOn(`${name}:+1%`), (err) => err.exitCode === 2 &&
      err.message.includes(`unknown metric "${name}"`) && !/is a count/.test(err.message))
  }
  assert.throws(() => parseFailOn('errors:+1%'), /errors is a count/)
  assert.throws(() => parseFailOn('p99:+1x', { option: '--fail-on-change', error: usageError }),
    (err) => err.code === 'LAB_USAGE' && err.message.startsWith('--fail-on-change "p99:+1x"'))
})

test('failOnBounds: strings read, objects checked, anything else a named error', () => {
  const ok = failOnBounds(['p99:+10%', { metric: 'rps', sign: '-', bound: 0.05 }])
  assert.deepEqual(ok.map((b) => [b.metric, b.sign, b.bound]), [['p99', '+', 0.1], ['rps', '-', 0.05]])
  const bad = [
    ['p99:+10%', /failOn: expected an array of bounds/],
    [{ length: 1, map () { throw new Error('never called') } }, /failOn: expected an array/],
    [[{ metric: 'constructor', sign: '+', bound: 0.1 }], /failOn\[0\]: unknown metric "constructor"/],
    [[{ metric: 'p99', sign: '+', bound: NaN }], /failOn\[0\]: bound: expected a finite fraction/],
    [[{ metric: 'p99', sign: '+', bound: -1 }], /failOn\[0\]: bound: expected a finite fraction/],
    [[{ metric: 'p99', sign: '-', bound: 0.1 }], /failOn\[0\]: for p99 a regression is sign '\+'/],
    [[{ metric: 'errors', sign: '+', bound: 0.1 }], /errors is a count/],
    [[null], /failOn\[0\]: expected 'METRIC:±N%'/],
    [[7], /failOn\[0\]: expected/]
  ]
  for (const [list, message] of bad) {
    assert.throws(() => failOnBounds(list, { error: usageError }), (err) => err.code === 'LAB_USAGE' &&
      message.test(err.message), String(message))
  }
})

test('compareReports: hostile failOn options are LAB_USAGE naming failOn; a bound on a figure no report has fails', () => {
  const B = { ...structuredClone(REAL), id: 'other' }
  for (const failOn of ['p99:+10%', [{ metric: 'constructor', sign: '+', bound: 0.1 }],
    [{ metric: 'p99', sign: '+', bound: NaN }]]) {
    assert.throws(() => compareReports([REAL, B], { failOn }), (err) => err.code === 'LAB_USAGE' &&
      /^compareReports: failOn/.test(err.message))
  }
  assert.throws(() => compareReports([REAL, B], { failOn: ['capacity:-5%'] }),
    (err) => err.exitCode === 2 && /capacity:-5% matches no run: no report has the figure capacity/.test(err.message))
  const gated = compareReports([REAL, B], { failOn: ['p99:+10%'] })
  assert.ok(gated.gates[0].runs.length > 0)
})
