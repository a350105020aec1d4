// scripts/capacity-cost.js: the default capacity run's plan, replayed against the quiet reference runs,
// stays within 15 minutes; and the estimate is not optimistic: replayed with the settings those runs were
// made with, it is at least what they measured.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ROOT } from '../helpers/lab.js'
import { readBounded } from '../../loadtest/report/read.js'
import { DEFAULT_RUN_BOUND_SEC, estimateRun, measuredSec, settingsOf } from '../../scripts/capacity-cost.js'

const DIR = join(ROOT, 'reports', 'reference')

// The default capacity runs with --confirm and their probes (no --quick, no server list), newest first.
async function defaultRuns () {
  const names = (await readdir(DIR)).filter((f) => /-capacity\.json(\.gz)?$/.test(f)).sort().reverse()
  const runs = []
  for (const name of names) {
    const report = JSON.parse(readBounded(join(DIR, name))) // kept compressed
    const cmd = report.method?.command ?? ''
    const plain = /--experiment capacity --confirm/.test(cmd) && !/--quick|--server|--slo|--tune|--work|--task/.test(cmd)
    if (plain && report.results.some((r) => r.pastCapacity)) runs.push({ name, report })
  }
  return runs
}

test('capacity-cost: the default run with --confirm, replayed against the reference runs, within 15 minutes', async () => {
  const runs = await defaultRuns()
  assert.ok(runs.length >= 2, `two reference runs to replay (${runs.map((r) => r.name).join(', ')})`)
  for (const { name, report } of runs.slice(0, 2)) {
    const e = estimateRun(report)
    assert.ok(e.probes.length > 0 && e.sweeps.length > 0, `${name}: sweeps and probes estimated`)
    assert.ok(e.totalSec <= DEFAULT_RUN_BOUND_SEC, `${name}: ${Math.round(e.totalSec)} s estimated, over ${DEFAULT_RUN_BOUND_SEC} s`)
  }
})

test('capacity-cost: with the settings a reference run was made with, the estimate is at least what it measured', async () => {
  for (const { name, report } of (await defaultRuns()).slice(0, 2)) {
    const made = settingsOf(report)
    assert.equal(made.sweep.budgetSec, report.results.find((r) => r.capacity?.budget).capacity.budget.sec)
    assert.equal(made.cost.confirmSec, report.decision.confirm.durationSec)
    const e = estimateRun(report, made)
    assert.ok(e.totalSec >= measuredSec(report), `${name}: ${Math.round(e.totalSec)} s estimated, ${measuredSec(report)} s measured`)
  }
})
