// A sweep's step cut short (result/rules.js CUT, run/round/cut.js): it stops sending at the first due time where
// the rule holds, never before, and an open loop against a real overloaded server ends there.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CUT, QUICK, REPEAT, SAMPLE, percentileCall } from '../../../../loadtest/result/rules.js'
import { createCut } from '../../../../loadtest/run/round/cut.js'
import { createSchedule } from '../../../../loadtest/run/generate/schedule.js'
import { fireOpenLoop } from '../../../../loadtest/run/generate/open-loop.js'
import { startServer } from '../../../helpers/server.js'

const late = (dueMs) => ({ dueMs, latencyMs: 50, timeout: false })
const soon = (dueMs) => ({ dueMs, latencyMs: 5, timeout: false })

test('the rule: a clear failure after the shortest step, its false-cut chance the binomial sum it states', () => {
  assert.deepEqual([CUT.minSec, CUT.minRequests, CUT.share], [2, 20, REPEAT.clearShare])
  // a cut is a failure by the sample-size rule at any count it can stop at, at the default run's confidence and
  // at --quick's looser one
  for (let n = CUT.minRequests; n < 2000; n++) {
    for (const confidence of [SAMPLE.confidence, QUICK.confidence]) {
      assert.equal(percentileCall(n, Math.ceil(CUT.share * n), { confidence }), 'fail', `${n} requests`)
    }
  }
  // the chance stated: Σ P(Binomial(n, 1 %) ≥ n / 4) over n ≥ 20, its first term alone about 1.5e-6
  assert.equal(CUT.share, 0.25)
  assert.ok(CUT.falseCut > 1e-6 && CUT.falseCut < 1e-5, String(CUT.falseCut))
})

test('a step whose requests over the loosest target reach the rule\'s share of those sent stops at that due time, not before', () => {
  // The schedule asks for the next due time once the one before was sent: the rule is judged at that one.
  const cut = createCut({ overMs: 20 })
  // 100 req/s: due every 10 ms, each answered late at once. Every answer over the target: still no cut before 2 s.
  for (let due = 0; due <= CUT.minSec * 1000; due += 10) {
    assert.equal(cut.until(due), false, `due ${due} ms`)
    cut.onResponse(late(due))
  }
  assert.equal(cut.until(2010), true, 'at 2 s, 201 sent and 201 over: cut before the next')
  assert.deepEqual(cut.figures(), { atSec: 2, sent: 201, over: 201 })
  assert.equal(cut.until(2020), true, 'a cut step stays cut')

  // one under the boundary goes on; the request that reaches it stops the step (a target no request stays out past)
  const edge = createCut({ overMs: 1e6 })
  for (let i = 0; i < 300; i++) assert.equal(edge.until(i * 10), false)
  const past = (dueMs) => ({ dueMs, latencyMs: 2e6, timeout: false })
  const k = Math.ceil(CUT.share * 300) - 1 // one short of the share of 300 sent
  for (let i = 0; i < 198; i++) edge.onResponse(i < k ? past(i * 10) : soon(i * 10))
  assert.equal(edge.until(3000), false, `${k} over of 300 sent: under the share (the request due at 3 s is sent)`)
  edge.onResponse(past(1980))
  assert.equal(edge.until(3010), false, `${k + 1} over of 301 sent: under it`)
  edge.onResponse({ dueMs: 1990, latencyMs: 1e6, timeout: true }) // under the target at its timeout: not over
  assert.equal(edge.until(3020), false, `${k + 1} over of 302 sent: under it`)
  edge.onResponse({ dueMs: 2000, latencyMs: 2e6, timeout: true }) // a timeout past the target is over it
  edge.onResponse(past(2010))
  assert.equal(edge.until(3030), true, `${k + 3} over of 303 sent: the share`)
  assert.deepEqual(edge.figures(), { atSec: 3.02, sent: 303, over: k + 3 })

  // a step that meets the target runs its length: no cut, no figures
  const fine = createCut({ overMs: 20 })
  for (let i = 0; i < 1000; i++) {
    assert.equal(fine.until(i * 10), false)
    fine.onResponse(soon(i * 10))
  }
  assert.equal(fine.figures(), null)
})

test('a request still out longer than the target is over it, counted once: it can only end past the target', () => {
  // nothing answered: at 2 s the 190 requests due before 1.9 s are out past a 100 ms target
  const cut = createCut({ overMs: 100 })
  for (let due = 0; due <= 2000; due += 10) assert.equal(cut.until(due), false)
  assert.equal(cut.until(2010), true)
  assert.deepEqual(cut.figures(), { atSec: 2, sent: 201, over: 190 })

  // counted while out (due 0–80 ms, judged at 190 ms), then answered late: still one each; answered in time: not over
  const once = createCut({ overMs: 100, rule: { minSec: 0.25, minRequests: 10, share: 0.45 } })
  for (let due = 0; due <= 200; due += 10) assert.equal(once.until(due), false)
  for (let due = 0; due < 100; due += 10) once.onResponse({ ...late(due), latencyMs: 250 - due })
  for (let due = 100; due <= 200; due += 10) once.onResponse(soon(due))
  assert.equal(once.until(300), false, 'at 0.2 s: before the shortest step')
  assert.equal(once.until(310), true, 'at 0.3 s: 10 over of 22 sent')
  assert.deepEqual(once.figures(), { atSec: 0.3, sent: 22, over: 10 })
})

test('a rate schedule ends at the due time its until() refuses', () => {
  const s = createSchedule({ rate: 100, durationMs: 10000, until: (due) => due >= 500 })
  let n = 0
  while (s.next() !== null) n++
  assert.equal(n, 50, 'due at 0, 10, …, 490 ms')
  assert.equal(s.next(), null)
})

test('an open-loop step far past a real server\'s capacity is cut once it clearly fails: every request it sent judged', async (t) => {
  // sleep-sync:20 inline holds the one event loop 20 ms a request: 50 req/s; offered 150 req/s for 8 s
  const server = await startServer('simple', ['--work', 'sleep-sync:20'])
  t.after(() => server.stop())
  const cut = createCut({ overMs: 100 })
  let over = 0 // every request judged at its end, as the step's histogram judges it
  const r = await fireOpenLoop({
    url: `${server.url}/`,
    rate: 150,
    durationSec: 8,
    timeoutSec: 2,
    onResponse: (e) => {
      cut.onResponse(e)
      if (e.latencyMs > 100) over++
    },
    until: (due) => cut.until(due)
  })
  const f = cut.figures()
  assert.ok(f, 'the step was cut')
  assert.ok(f.atSec >= CUT.minSec && f.atSec < 8, `cut at ${f.atSec} s`)
  assert.equal(r.sent, f.sent, 'it sent exactly the requests before the cut')
  assert.ok(r.sent < 150 * 8, `${r.sent} sent of ${150 * 8} planned`)
  assert.ok(f.over >= CUT.share * f.sent, `${f.over} over of ${f.sent}`)
  assert.ok(over >= f.over, `every request the cut counted over ended over: ${over} of its ${f.over}`)
  assert.equal(r.completed + r.timeouts + r.errors, r.sent, 'the requests still out were answered or timed out')
})
