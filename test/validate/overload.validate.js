// A validation (npm run validate), not a test: the shares one real overload run gives on this machine. At
// 2 × C the deadline pool keeps more goodput than the unbounded pool and sheds what it cannot serve in
// time, and the unbounded queue keeps little of C; after the burst the deadline pool is back within the
// watch, and no later than the unbounded queue (docs/overload.md). A disturbed run is no evidence: skipped.
// test/loadtest/experiments/overload.test.js checks the wiring and what the rules guarantee.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labReport, tempDir } from '../helpers/lab.js'
import { SCHEMA } from '../../loadtest/result/build.js'

const WORK = 'sleep-sync:20'
const SLO = 200
// The shares the reference run gave at 2 × C (reports/reference/2026-11-25T03-15-52Z-vm-overload.md): the
// deadline pool sheds more than a fifth, the unbounded queue keeps at most three tenths of C.
const SHED_AT_LEAST = 0.2
const UNBOUNDED_AT_MOST = 0.3

test('overload --quick at 2 × C on this machine: the deadline pool keeps goodput and sheds, the unbounded pool loses it', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const from = join(dir, 'capacity.json')
  const capacity = { serviceMs: 20, capacity: { rps: 90, sloMs: SLO, bound: 'refined' } }
  const results = [{ kind: 'http', server: 'queued-threads', variant: null, work: WORK, capacity, runtime: null }]
  await writeFile(from, JSON.stringify({ kind: 'loadlab-report', schema: SCHEMA, experiment: 'capacity', results }))
  const { json } = await labReport([
    '--experiment', 'overload', '--quick', '--server', 'queued-threads/deadline', '--work', WORK,
    '--capacity-from', from, '--out', join(dir, 'out')
  ])
  const run = (variant) => json.results.find((r) => r.variant === variant)
  const two = (variant) => run(variant).overload.steps.find((s) => s.multiple === 2)
  const deadline = two('deadline')
  const unbounded = two(null)
  const disturbed = [run('deadline'), run(null)].flatMap((r) => r.untrusted.filter((x) => /^disturbed past capacity/.test(x)))
  if (disturbed.length) return t.skip(`a disturbed run measures the machine's neighbours (${disturbed.join('; ')}): run again quiet`)
  t.diagnostic(`2 × C: deadline goodput ${deadline.goodputShare} of C, shed ${deadline.shedShare}; ` +
    `unbounded goodput ${unbounded.goodputShare} of C`)
  assert.ok(deadline.goodputShare > unbounded.goodputShare)
  assert.ok(deadline.shedShare > SHED_AT_LEAST)
  assert.ok(deadline.shedP50 < SLO, 'the deadline pool refuses before the target')
  assert.ok(unbounded.goodputShare <= UNBOUNDED_AT_MOST)
  const back = (r) => (r.overload.recovery.metastable ? Infinity : r.overload.recovery.ms) // never back: Infinity
  t.diagnostic(`back after the burst: deadline ${back(run('deadline'))} ms, unbounded ${back(run(null))} ms`)
  assert.ok(back(run('deadline')) < Infinity, 'the deadline pool is back within the watch')
  assert.ok(back(run('deadline')) <= back(run(null)))
})
