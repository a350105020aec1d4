// The tour (`npm run lab` with no option) covers every server; its --quick version runs here in full.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import tour from '../../loadtest/experiments/tour.js'
import { experimentView, resolvePlan } from '../../loadtest/plan.js'
import { parseOptions } from '../../loadtest/options.js'
import { allServerNames } from '../../loadtest/catalog.js'
import { runLab, readReport, tempDir } from '../helpers/lab.js'

// One request a connection (the quick tour's 4) and no warm-up: every body is still verified against the
// calibration's (the warm-up is checked in the plan above and runs in lab-run.test.js)
const AMOUNT = 4

test('the tour plans every server with light work and a light load', () => {
  const load = resolvePlan(parseOptions([]), tour).load
  assert.equal(load.connections, 4)
  assert.equal(load.amount, 150)
  const plan = tour.plan(experimentView(resolvePlan(parseOptions([]), tour)))
  assert.deepEqual(
    plan.map((e) => e.server),
    allServerNames()
  )
  for (const e of plan) assert.match(e.work, /^(loop:1e7|sleep-sync:20|ssr:1125)$/)
  const quick = resolvePlan(parseOptions(['--quick']), tour).load
  assert.deepEqual([quick.connections, quick.amount, quick.warmup], [4, 40, 8], 'the quick tour: 40 requests after 8')
  const withWork = tour.plan(experimentView(resolvePlan(parseOptions(['--work', 'fib:20', '--server', 'simple']), tour)))
  assert.deepEqual(
    withWork.map((e) => [e.server, e.work, e.args]),
    [['simple', 'fib:20', ['--work', 'fib:20']]]
  )
})

// The quick tour with fewer requests (its load is checked above): every server runs, answers and is verified.
// The timeout guards against a hang only (a crowded CI run passed 120 s).
test('npm run lab -- --quick: a tour of every server, all answered and verified', { timeout: 300000 }, async (t) => {
  const out = await tempDir()
  t.after(() => out.cleanup())
  const r = await runLab(['--quick', '--amount', String(AMOUNT), '--warmup', '0', '--out', out.dir])
  assert.equal(r.exitCode, 0, r.stderr)
  const { json, files } = await readReport(out.dir)
  assert.equal(files.length, 3)
  assert.equal(json.experiment, 'tour')
  assert.equal(json.status, 'complete')
  assert.match(files[0], /-tour\.(html|json|md)$/)
  assert.deepEqual(
    json.results.map((x) => x.server),
    allServerNames()
  )
  for (const res of json.results) {
    assert.equal(res.status, 'ok', `${res.key}: ${JSON.stringify(res.failure)}`)
    assert.equal(res.requests.sent, AMOUNT, res.key)
    assert.equal(res.requests.completed, AMOUNT, res.key)
    assert.equal(res.requests.mismatches, 0, res.key)
    assert.ok(json.calibration[res.work]?.medianMs > 0, `calibrated ${res.work}`)
    assert.deepEqual(res.stop.leftovers, [], res.key)
    assert.ok(!res.notes.some((n) => /first 2xx/.test(n)), `${res.key}: verified against the calibration's body`)
  }
  const keys = json.results.map((x) => x.key)
  assert.ok(keys.includes('sleep-variants/sync-sleep-pooled@sleep-sync:20'), keys.join(' '))
  assert.ok(keys.includes('long-vs-small-tasks/small@ssr:1125'), keys.join(' '))
})
