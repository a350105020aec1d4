// scripts/repeat-flips.js: the failures measured again, by their share over the target, and how often the rate
// ended a pass; on a synthetic sweep whose every verdict is known, and through its command line.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { flipCounts, repeatedFailures } from '../../scripts/repeat-flips.js'
import { createHistogram, encodeHistogram, recordMs } from '../../loadtest/result/histogram.js'
import { REPEAT } from '../../loadtest/result/rules.js'

const run = promisify(execFile)
const SCRIPT = new URL('../../scripts/repeat-flips.js', import.meta.url).pathname
const SLO = 50

// A step as a report keeps it: 300 requests, `over` of them ten times the target.
function step (rate, kind, over, disturbed = false) {
  const h = createHistogram()
  for (let i = 0; i < 300; i++) recordMs(h, i < over ? SLO * 10 : SLO / 5)
  const requests = { sent: 300, completed: 300, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const p99 = h.getValueAtPercentile(99) / 1000
  return { rate, kind, requests, histograms: { latency: encodeHistogram(h) }, p99, lagP99: 1, backlog: null, disturbed }
}

// The floor holds; at 20 req/s a failure 30 % over is measured again and holds twice (flipped); at 30, 40 % over
// and again (not flipped); at 40, 10 % over and again; at 50 a disturbed failure (left out) and one not measured
// again (left out).
const SWEEP = {
  sloMs: SLO,
  targetsMs: [SLO],
  share: 0.01,
  steps: [
    step(10, 'floor', 0),
    step(20, 'coarse', 90), step(20, 'repeat', 0), step(20, 'repeat', 0),
    step(30, 'coarse', 120), step(30, 'repeat', 120),
    step(40, 'coarse', 30), step(40, 'repeat', 30),
    step(50, 'coarse', 200, true), step(50, 'repeat', 200),
    step(60, 'over', 250)
  ]
}

test('a failure measured again counts by its share over the target; the rate that ended a pass flipped', () => {
  const failures = repeatedFailures(SWEEP)
  const expected = [{ share: 0.3, flipped: true }, { share: 0.4, flipped: false }, { share: 0.1, flipped: false }]
  assert.deepEqual(failures, expected)
  const counts = flipCounts(failures)
  const at = (from) => counts.buckets.find((b) => b.from === from)
  assert.deepEqual([at(0.1).repeated, at(0.1).flipped], [1, 0])
  assert.deepEqual([at(0.25).repeated, at(0.25).flipped], [2, 1])
  assert.deepEqual(counts.clear, { share: REPEAT.clearShare, repeated: 2, flipped: 1 })
  // steps without a histogram (reports from before it) give nothing to count
  assert.deepEqual(repeatedFailures({ ...SWEEP, steps: SWEEP.steps.map(({ histograms, ...s }) => s) }), [])
})

test('the command reads reports and folders; a path it cannot read or a named file not JSON: one line, exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'repeat-flips-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ results: [{ capacity: SWEEP }] }))
  writeFileSync(join(dir, 'other.json'), '{ not a report') // a folder's other file: skipped
  const { stdout } = await run(process.execPath, [SCRIPT, '--json', dir])
  const counts = JSON.parse(stdout)
  assert.equal(counts.sweeps, 1)
  assert.deepEqual(counts.clear, { share: REPEAT.clearShare, repeated: 2, flipped: 1 })
  const text = (await run(process.execPath, [SCRIPT, join(dir, 'run.json')])).stdout
  assert.match(text, /^1 sweeps;/)
  assert.match(text, /25 % or more \(REPEAT\.clearShare\): 1 of 2 flipped/)
  for (const args of [[join(dir, 'none')], [join(dir, 'other.json')], ['--nope', dir], []]) {
    const err = await run(process.execPath, [SCRIPT, ...args]).then(() => null, (e) => e)
    assert.equal(err?.code, 2, args.join(' '))
    assert.equal(err.stderr.trim().split('\n').length, 1, err.stderr)
    assert.match(err.stderr, /^repeat-flips: /)
  }
})
