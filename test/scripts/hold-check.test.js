// scripts/hold-check.js: would the hold rule add a step to a sweep measured without it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { holdLine } from '../../scripts/hold-check.js'

const SCRIPT = fileURLToPath(new URL('../../scripts/hold-check.js', import.meta.url))

// A sweep of a 122.6 ms target from a floor of p50 27 ms (the hold asks 3 × 95.6 / 0.08 ms: 3.6 s), its
// capacity at 76.5 req/s, that step's length given by its requests sent.
function sweep (sentAtCapacity, call = 'pass') {
  const step = (rate, sent, c, kind = 'coarse') => ({ rate, kind, call: c, n: sent, requests: { sent } })
  return {
    longestStepSec: 30,
    steps: [step(8, 80, 'undecided', 'floor'), step(76.5, sentAtCapacity, call), step(91.8, 299, 'fail')],
    capacity: { rps: 76.5, sloMs: 122.6, floor: { p50: 27 } }
  }
}

test('hold-check: a step at the capacity as long as the hold is "held", a shorter one "would hold"', () => {
  assert.match(holdLine(sweep(306)), /capacity 76\.5 req\/s, steps there 4 s, hold 3\.6 s: held$/)
  assert.match(holdLine(sweep(200)), /steps there 2\.7 s, hold 3\.6 s: would hold$/)
  assert.match(holdLine(sweep(306, 'undecided')), /held$/, 'an undecided step pooled into the pass held too')
  assert.match(holdLine({ steps: [], capacity: { rps: null, bound: 'cannot-meet' } }), /^no capacity \(cannot meet the target\)/)
})

test('hold-check: no file is a usage error, one line and exit 2', async () => {
  const run = promisify(execFile)
  const err = await run(process.execPath, [SCRIPT]).then(() => null, (e) => e)
  assert.equal(err?.code, 2)
  assert.equal(err.stderr.trim().split('\n').length, 1)
  assert.match(err.stderr, /hold-check: give one or more/)
})
