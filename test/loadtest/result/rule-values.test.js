// The rule book holds what it says: each value once, with why, the computed ones from their source
// (its page, docs/reference/rules.md, is held by test/scripts/reference-docs.test.js).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  BACKLOG, FLOOR, GRID, HOLD, QUICK, RULE_BOOK, SAMPLE, SWEEP_LIMITS, requestsToShow
} from '../../../loadtest/result/rules.js'
import { GRID as BRUTE_GRID, LOCATE } from '../../../scripts/capacity-brute-force.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

test('the rule book: a value once, with why; a value that follows from another computed from it', () => {
  for (const r of RULE_BOOK) {
    assert.ok(r.statement.length > 40, `${r.id}: a statement`)
    for (const v of r.values) assert.ok(v.why.length > 10, `${r.id}.${v.name}: why`)
  }
  // the hold's excess is the brute force's grid ratio less one, and the brute force reads that ratio
  assert.equal(HOLD.excess, Math.round((GRID.ratio - 1) * 1e9) / 1e9)
  assert.equal(BRUTE_GRID.ratio, GRID.ratio)
  assert.equal(BRUTE_GRID.requests, BACKLOG.horizon, 'the backlog rule judges a step as the grid judges its own')
  assert.equal(BRUTE_GRID.minSec, SWEEP_LIMITS.minDurationSec)
  assert.equal(LOCATE.floorFirst, undefined, 'the brute force\'s first floor is the sweep\'s (firstFloorRate)')
  assert.equal(FLOOR.dropMin, 1 / FLOOR.margin)
  assert.equal(HOLD.minSec, SWEEP_LIMITS.minDurationSec)
  // the samples come from the binomial rule: 299 for p99 at 95 %, 230 for --quick's p99 at 90 %
  assert.equal(SAMPLE.minRequests, requestsToShow(0))
  assert.equal(SAMPLE.minRequests, 299)
  assert.equal(QUICK.minRequests, requestsToShow(0, { confidence: QUICK.confidence }))
  assert.equal(QUICK.minRequests, 230)
  assert.equal(QUICK.share, undefined, '--quick judges the same percentile: only its confidence is looser')
  // no two rules define the same name
  const names = RULE_BOOK.map((r) => r.id)
  assert.equal(new Set(names).size, names.length)
})

test('the verdict\'s files define no values of their own: they read the rule book', () => {
  for (const file of ['loadtest/result/sweep.js', 'loadtest/result/capacity.js', 'loadtest/result/trust.js',
    'loadtest/experiments/capacity.js']) {
    const text = readFileSync(`${ROOT}/${file}`, 'utf8')
    assert.deepEqual(text.split('\n').filter((l) => /^(export )?const [A-Z_0-9]+ =/.test(l)), [], file)
  }
})
