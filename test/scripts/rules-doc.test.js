// docs/rules.md is generated from the rule book: it fails here when the two differ, so the explanation
// cannot drift from the values the verdict reads. And the rule book holds what it says: each value once,
// the computed ones from their source.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { DOC, rulesDoc } from '../../scripts/rules-doc.js'
import {
  BACKLOG, FLOOR, GRID, HOLD, QUICK, RULE_BOOK, SAMPLE, SWEEP_LIMITS, requestsToShow
} from '../../loadtest/result/rules.js'
import { GRID as BRUTE_GRID, LOCATE } from '../../scripts/capacity-brute-force.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

test('docs/rules.md is what scripts/rules-doc.js makes from the rule book', () => {
  assert.equal(readFileSync(DOC, 'utf8'), rulesDoc(), 'run node scripts/rules-doc.js')
  // every rule and every value on the page
  const md = rulesDoc()
  for (const r of RULE_BOOK) {
    assert.ok(md.includes(`. ${r.title}\n`), r.title)
    for (const v of r.values) assert.ok(md.includes(`.${v.name}\``), `${r.id}.${v.name}`)
  }
  const run = (...args) => execFileSync(process.execPath, ['scripts/rules-doc.js', ...args], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(run('--check'), '', '--check: exit 0 when the page holds')
})

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
