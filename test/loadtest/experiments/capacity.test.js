// The capacity experiment: the sweep's rule on synthetic steps, and a real --quick sweep end to end.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { capacityOf, holds } from '../../../loadtest/result/capacity.js'
import {
  createSweep,
  sloFor,
  FRACTIONS,
  OVERLOAD,
  SLO_SERVICE_MULTIPLE
} from '../../../loadtest/run/sweep.js'
import { labReport, tempDir } from '../../helpers/lab.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'
import { experimentTable } from '../../../loadtest/report/table.js'

// Round figures of a step at `rate` on a server that holds any rate up to `limit` (p99 jumps past it).
function figuresAt (rate, limit, sloMs) {
  const p99 = rate <= limit ? sloMs / 2 : sloMs * 10
  const requests = { sent: 10, completed: 10, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  return { requests, latency: { p99 } }
}

// Drive a sweep against a synthetic server; returns the rates it offered and their kinds.
function drive (sweep, limit, sloMs) {
  const history = []
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    history.push({ rate, figures: figuresAt(rate, limit, sloMs) })
    assert.ok(history.length < 40, 'a sweep ends')
  }
  return history.map((h, i) => ({
    rate: h.rate,
    kind: sweep.kinds[i],
    pass: holds(h.figures, sloMs),
    p99: h.figures.latency.p99,
    index: i
  }))
}

test('sweep: coarse steps until one past the first failure, bisection to the knee, then 1.2 × capacity', () => {
  // 2 cores, 10 ms of service: ideal 200 req/s; the synthetic server holds up to 130 req/s.
  const sweep = createSweep({ serviceMs: 10, cores: 2 })
  const { sloMs, idealRps } = sweep.describe()
  assert.equal(sloMs, SLO_SERVICE_MULTIPLE * 10)
  assert.equal(idealRps, 200)
  const steps = drive(sweep, 130, sloMs)
  const coarse = steps.filter((s) => s.kind === 'coarse').map((s) => s.rate)
  // 0.1 … 0.55 hold (20 … 110), 0.7 (140) fails, 0.85 (170) is the one step past it.
  assert.deepEqual(
    coarse,
    FRACTIONS.slice(0, 6).map((f) => f * 200)
  )
  const refine = steps.filter((s) => s.kind === 'refine')
  assert.equal(refine.length, 3)
  assert.equal(refine[0].rate, 125, 'the first bisection halves 110 … 140')
  const cap = capacityOf(steps, { sloMs, idealRps })
  assert.ok(cap.rps > 125 && cap.rps <= 130, `capacity ${cap.rps} lies just under the server's real limit`)
  assert.equal(cap.bound, 'refined')
  assert.equal(cap.ratioToIdeal, cap.rps / 200)
  const over = steps.at(-1)
  assert.equal(over.kind, 'over')
  assert.equal(over.rate, cap.rps * OVERLOAD)
  assert.equal(cap.over.rate, over.rate)
})

test('sweep: a server that holds every rate is "at least"; one that holds none is below the lowest rate', () => {
  const strong = createSweep({ serviceMs: 10, cores: 2 })
  const all = drive(strong, Infinity, 50)
  const capAll = capacityOf(all, { sloMs: 50, idealRps: 200 })
  assert.equal(capAll.bound, 'at least')
  assert.equal(capAll.rps, 1.5 * 200)
  const weak = createSweep({ serviceMs: 10, cores: 2 })
  const none = drive(weak, 5, 50)
  const capNone = capacityOf(none, { sloMs: 50, idealRps: 200 })
  assert.ok(
    none.some((s) => s.kind === 'refine' && s.rate < 20),
    'bisects below the first coarse step'
  )
  assert.ok(capNone.rps <= 5)
  assert.deepEqual(createSweep({ serviceMs: null, cores: 2 }).next([]), null, 'no calibration, no sweep')
  assert.equal(sloFor(10, 250).sloMs, 250, '--slo wins over the default multiple')
})

test('sweep: a step with a timeout or a wrong body does not hold, whatever its p99', () => {
  const ok = {
    requests: { completed: 5, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 },
    latency: { p99: 1 }
  }
  assert.equal(holds(ok, 10), true)
  assert.equal(holds({ ...ok, requests: { ...ok.requests, timeouts: 1 } }, 10), false)
  assert.equal(holds({ ...ok, requests: { ...ok.requests, mismatches: 1 } }, 10), false)
  assert.equal(holds({ ...ok, latency: { p99: 11 } }, 10), false)
})

test('--experiment capacity --quick: a capacity per server, the hockey stick on the page, the table', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const { json, md, files } = await labReport([
    '--experiment', 'capacity', '--quick', '--server', 'simple,queued-threads', '--out', dir,
    '--threshold', 'capacity>1e9', '--threshold', 'queued-threads:capacity>=0'
  ])
  assert.equal(json.status, 'complete')
  assert.equal(json.method.loop, 'open')
  assert.equal(json.results.length, 2)
  const serviceMs = json.calibration['loop:2e7'].medianMs
  for (const res of json.results) {
    assert.match(res.key, /#capacity$/, 'a capacity sweep never lines up with a closed-loop run in compare')
    const c = res.capacity
    assert.equal(c.sloMs, SLO_SERVICE_MULTIPLE * serviceMs)
    assert.ok(c.steps.length >= 3, `${res.server}: ${c.steps.length} steps`)
    for (const s of c.steps) {
      const q = s.requests
      assert.equal(
        q.completed + q.errors + q.timeouts + q.unanswered,
        q.sent,
        `${res.server} step ${s.index}: counts add up`
      )
      assert.equal(q.mismatches, 0)
      assert.equal(typeof s.histograms.latency, 'string', 'each step keeps its encoded histogram')
    }
    // Whether a step holds depends on this machine's load at the moment (tests run side by side): what
    // must hold is the rule. Capacity is a step that held, below every step that failed; or none held.
    const failed = c.steps.filter((s) => s.kind !== 'over' && !s.pass).map((s) => s.rate)
    if (c.capacity.rps === 0) {
      assert.equal(c.capacity.bound, 'below the lowest rate offered')
      assert.ok(
        c.steps.every((s) => !s.pass),
        `${res.server}: no step held`
      )
      continue
    }
    const held = c.steps[c.capacity.step]
    assert.equal(held.pass, true)
    assert.equal(held.rate, c.capacity.rps)
    assert.ok(held.p99 <= c.sloMs)
    assert.ok(
      failed.every((rate) => rate > held.rate),
      'no failing step below the capacity'
    )
    const over = c.steps.find((s) => s.kind === 'over')
    assert.ok(over, 'one step past capacity')
    assert.ok(Math.abs(over.rate - OVERLOAD * c.capacity.rps) < 1e-6)
    assert.equal(res.latency.p99, held.p99, 'the result shows the figures of the step at capacity')
  }
  // --threshold on capacity reads each sweep's capacity: above any machine's, and at least nothing
  const [above, atLeast] = json.thresholds
  assert.deepEqual(above.runs.map((r) => [r.run, r.figure, r.status]), json.results.map((r) => [r.server, r.capacity.capacity.rps, 'crossed']))
  assert.deepEqual(atLeast.runs.map((r) => [r.run, r.status]), [['queued-threads', 'passed']])
  assert.deepEqual(experimentTable(json, await experimentFor('capacity')).head.slice(0, 4), ['server', 'ideal req/s', 'capacity req/s', 'cap/ideal'])
  assert.match(md, /capacity req\/s/)
  const html = await readFile(
    join(
      dir,
      files.find((f) => f.endsWith('.html'))
    ),
    'utf8'
  )
  assert.match(html, /data-chart="capacity" data-lines="2"/)
  assert.match(html, /<table class="capacity">/)
})
