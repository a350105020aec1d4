// scripts/validate-history.js real: on tours built from a reference one (a code step, then a one-core
// machine), the known change is found within one tested report, the machine change is named, and a step
// where there is none is counted as another change: the check can fail. Built data only (CPU, seconds).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { built, counts, real } from '../../scripts/validate-history.js'

const take = [['baseline', 6], ['changed', 6], ['taskset', 3]]

test('the real check on built tours: the code change found, the machine named, nothing else called', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vh-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const phases = counts(built(join(dir, 'built')), 'phases')
  const s = await real({ from: join(dir, 'built'), phases, take, out: join(dir, 'out') })
  assert.deepEqual(s.checks, {
    codeChangeFound: true, machineChangeNamed: true, noOtherChange: true, gateExits99: true, gateCutExits0: true
  })
  assert.ok(s.codeAtChange.every((c) => Math.abs(c.late) <= 1 && c.cause === 'code'))
})

test('the real check: a step in the middle of the baseline is another change, not the known one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vh-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const from = join(dir, 'built')
  const phases = counts(built(from), 'phases')
  // the last 3 of the 6 kept baseline tours run 1.5 x slower: a step 3 tested reports before the known one
  const files = readdirSync(from).filter((f) => f.endsWith('.json')).sort()
  for (const f of files.slice(5, 8)) {
    const r = JSON.parse(readFileSync(join(from, f), 'utf8'))
    for (const x of r.results) {
      x.latency.p50 *= 1.5
      x.latency.p99 *= 1.5
      for (const p of Object.keys(x.latency.percentiles)) x.latency.percentiles[p] *= 1.5
      x.rps /= 1.5
      delete x.histograms
    }
    writeFileSync(join(from, f), JSON.stringify(r))
  }
  const s = await real({ from, phases, take, out: join(dir, 'out') })
  assert.equal(s.checks.noOtherChange, false)
  assert.ok(s.others.some((c) => c.cause === 'code' && c.late <= -2), JSON.stringify(s.others))
})
