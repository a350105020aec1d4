// scripts/validate-compare.js: the figures compare and docs/compare.md print are those of the kept summary
// (or the line saying none is kept yet), and the judge counts the verdicts as its summary says. Built data
// only: the validation's tours are run by hand (docs/compare.md gives the command).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { VALIDATED } from '../../loadtest/compare/validated.js'
import { COMPARE } from '../../loadtest/result/rules.js'
import { validationText } from '../../loadtest/text/compare.js'
import { judgeKept } from '../../scripts/validate-compare.js'
import { ROOT } from '../helpers/lab.js'

test('compare and docs/compare.md print the kept validation\'s figures, as its summary holds them', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'compare.md'), 'utf8')
  assert.ok(doc.includes(validationText(VALIDATED)), 'docs/compare.md: node scripts/validate-compare.js --judge-only DIR')
  if (!VALIDATED) return
  const summary = JSON.parse(readFileSync(join(ROOT, VALIDATED.folder, 'summary.json'), 'utf8'))
  assert.deepEqual(VALIDATED.falseAlarms, summary.falseAlarms)
  assert.deepEqual(VALIDATED.power, summary.power)
  assert.deepEqual(VALIDATED.setting, summary.setting)
  assert.deepEqual(VALIDATED.machine_pairs, summary.machine_pairs.map(({ residuals, ...m }) => m))
  assert.ok(existsSync(join(ROOT, VALIDATED.folder, 'summary.md')))
  // the rule book's floors per strategy are the kept validation's fit (scripts/validate-compare.js prints them)
  assert.deepEqual(COMPARE.serverFloors, summary.serverFloors)
})

test('the judge: identical pairs give the false alarms, changed runs the power, by the rule\'s own verdicts', () => {
  const r = (label, rps) => ({
    file: `${label}.json`,
    report: {
      schema: 1,
      kind: 'loadlab-report',
      label,
      machine: {},
      method: {},
      calibration: {},
      results: [{
        kind: 'http',
        key: 'simple@loop:1e7',
        server: 'simple',
        work: 'loop:1e7',
        status: 'ok',
        rps,
        latency: { count: 100 }
      }]
    }
  })
  const kept = {
    baseline: [r('baseline 1', 100), r('baseline 2', 100)],
    changed: [r('changed 1', 50)],
    taskset: [],
    hog: [],
    setting: []
  }
  const s = judgeKept(kept)
  assert.equal(s.falseAlarms.pairs, 1)
  assert.equal(s.power.pairs, 1)
  assert.deepEqual(s.machine_pairs, [])
})
