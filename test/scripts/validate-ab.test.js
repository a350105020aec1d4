// scripts/validate-ab.js: its replay on built rounds (identical arms are seldom called different, a
// clear change is called), and the docs' quote of the kept summary is the summary's own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MARK, QUOTED, replayServer } from '../../scripts/validate-ab.js'
import { normals } from '../../loadtest/ab/decide.js'
import { abValidationText } from '../../loadtest/text/ab.js'
import { AB } from '../../loadtest/result/rules.js'
import { ROOT } from '../helpers/lab.js'

// Built rounds of A, A2 (the same) and H (`factor` × the work): each block's log figures with a shared
// drift per round and noise of its own; 5 s a block.
function rounds (n, factor, seed = 1) {
  const noise = normals(seed)
  return Array.from({ length: n }, (_, i) => {
    const drift = 0.3 * noise()
    const block = (arm, f) => {
      const e = Math.exp(drift + 0.08 * noise())
      return { arm, status: 'ok', seconds: 5, rps: (100 / f) * e, p50: 20 * f / e, p99: 60 * f / e }
    }
    return { round: i + 1, blocks: [block('A', 1), block('A2', 1), block('H', factor)] }
  })
}

test('validate-ab replay: identical arms seldom called different, a × 2 work called worse', () => {
  const out = replayServer({ server: 'built', rounds: rounds(40, 2) }, 3)
  assert.equal(out.rounds, 40)
  for (const [f, v] of Object.entries(out.identical.figures)) {
    assert.ok(v.falseAlarms.share <= 2 * AB.falseAlarms, `${f}: ${v.falseAlarms.share}`)
    assert.ok(v.falseAlarms.low <= v.falseAlarms.share && v.falseAlarms.share <= v.falseAlarms.high)
  }
  for (const [f, v] of Object.entries(out.heavier.figures)) assert.ok(v.power.share >= 0.9, `${f}: ${v.power.share}`)
  assert.ok(out.heavier.medianSeconds <= AB.maxTimeSec)
})

test('validate-ab: the docs quote the kept summary as the summary says it', () => {
  const summary = JSON.parse(readFileSync(join(ROOT, 'reports/reference/validate-ab/summary.json'), 'utf8'))
  for (const { page, short } of QUOTED) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    assert.ok(text.includes(`${MARK[0]}\n${abValidationText(summary, { short })}\n${MARK[1]}`), page)
  }
})
