// scripts/validate-rounds.js on its kept folder (reports/reference/rounds): the judgement is what
// its summary says, and what docs/compare.md quotes of it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { judged } from '../../scripts/validate-rounds.js'
import { ROOT } from '../../loadtest/catalog.js'

const DIR = join(ROOT, 'reports', 'reference', 'rounds')

test('validate-rounds: the kept folder judges as its summary says, and compare.md quotes it', async () => {
  const { summary } = await judged(DIR)
  assert.deepEqual(summary, JSON.parse(readFileSync(join(DIR, 'summary.json'), 'utf8')))
  const doc = readFileSync(join(ROOT, 'docs', 'compare.md'), 'utf8').replace(/\s+/g, ' ')
  const { identical: i, replay: r } = summary
  assert.ok(doc.includes(`identical tours called ${i.called} of ${i.compared} ratios different`))
  assert.ok(doc.includes(`called ${r.called} of ${r.compared} (${(r.share * 100).toFixed(1)} %`))
  assert.equal(r.pairs, 126, 'every split of 10 rounds into two halves of 5, each once')
  assert.ok(r.share <= 0.05, 'identical halves: at most 5 % of ratios called different')
})
