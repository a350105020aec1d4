// The trust rules on synthetic figures: the strategy's own contention is a finding while outside
// interference disturbs; the offered load kept per 1 s window; the generator's lag puts a verdict in
// doubt only where taking it out could flip it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  contentionOf, disturbances as disturbanceCodes, interference as interferenceCodes, issueWindows,
  lagCouldFlip, lagVerdict, offeredLoadKept as offeredCodes,
  offeredLoadReasons,
  untrustedReasons as reasonsOf, verdictOf
} from '../../../loadtest/result/trust.js'
import { TRUST } from '../../../loadtest/result/rules.js'
import { reasonText } from '../../../loadtest/text/reasons.js'

// A round's reasons in words (result/ keeps them as codes: text/reasons.js says them).
const untrustedReasons = (...args) => reasonsOf(...args).map(reasonText)
// the rules' codes in words, as a report says them
const disturbances = (fig) => disturbanceCodes(fig).map(reasonText)
const interference = (noise) => interferenceCodes(noise).map(reasonText)
const offeredLoadKept = (...args) => offeredCodes(...args).map(reasonText)
const contentionText = (noise) => reasonText({ code: 'contention', ...contentionOf(noise) })

// A round's noise: its work 5.4 × slower than calibrated while the server's tree ran 4 units of work at
// once on 2 cores, using 1.8 cores (the lab took 0.15): nothing else on the machine.
const FOUR_ON_TWO = {
  stealPct: 0.3, foreignCores: 0.05, workInflation: 5.4, inFlight: 4, treeCores: 1.8, labCores: 0.15, cores: 2
}

// A closed round's figures around some noise (all requests answered).
function round (noise, extra = {}) {
  const requests = { sent: 400, completed: 400, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  return { requests, loop: 'closed', mode: 'amount', latency: { p99: 80 }, noise, open: null, ...extra }
}

test('trust: 4 units of work on 2 cores is the strategy\'s own contention — a figure, not a disturbance', () => {
  const c = contentionOf(FOUR_ON_TWO)
  assert.ok(c, 'contention found')
  assert.equal(c.inflation, 5.4)
  assert.equal(c.inFlight, 4)
  assert.equal(c.cores, 2)
  assert.equal(contentionText(FOUR_ON_TWO), 'work 5.4 × slower: 4 at once on 2 cores')
  assert.equal(reasonText({ code: 'contention-short', ...c }), '5.4× · 4 on 2 cores')
  assert.deepEqual(interference(FOUR_ON_TWO), [], 'no outside interference')
  assert.deepEqual(disturbances(round(FOUR_ON_TWO)), [])
  assert.deepEqual(untrustedReasons(round(FOUR_ON_TWO)), [], 'the round stays trusted')
})

test('trust: the same figures with other processes at 0.5 core are disturbed', () => {
  const noisy = { ...FOUR_ON_TWO, foreignCores: 0.5 }
  const why = interference(noisy)
  assert.equal(why.length, 1, why.join('; '))
  assert.match(why[0], /other processes used 0.5 cores > 0.2/)
  const reasons = untrustedReasons(round(noisy))
  assert.ok(reasons.some((x) => /^disturbed: other processes used 0.5 cores/.test(x)), reasons.join('; '))
  assert.ok(contentionOf(noisy), 'the own contention is still shown beside it')
})

test('trust: a tree that kept the free cores busy itself is contended; slow work on an idle tree is interference', () => {
  // cluster-threads at a low rate: little work in flight, but its threads and loops used 1.8 of 1.85 free cores
  const busy = { ...FOUR_ON_TWO, workInflation: 1.35, inFlight: 0.9, treeCores: 1.8 }
  assert.match(contentionText(busy), /its tree kept 1.8 of 1.9 free cores busy/)
  assert.deepEqual(interference(busy), [])
  // one unit at a time on an event loop that got 0.6 core: the work is slow for a reason outside the tree
  const idle = { ...FOUR_ON_TWO, workInflation: 1.6, inFlight: 0.9, treeCores: 0.6 }
  assert.equal(contentionOf(idle), null)
  const why = interference(idle)
  assert.equal(why.length, 1)
  assert.match(why[0], /the work ran 1.6 × its calibrated time > 1.3 × with 0.9 at once on 2 cores/)
  // under the inflation limit there is nothing to show
  assert.equal(contentionOf({ ...FOUR_ON_TWO, workInflation: 1.1 }), null)
  // without the tree's figures (a report from before them) the old limit applies alone
  assert.equal(interference({ workInflation: 2 }).length, 1)
  assert.ok(TRUST.workInflation > 1)
})

test('trust: the lag rule — a verdict the lag cannot flip stands, one it can is in doubt', () => {
  // p99 829 ms against 115 ms with a lag p99 of 13 ms: the failure stands
  assert.equal(lagCouldFlip(829, 13, 115), false)
  // p99 120 ms against 115 ms with a lag p99 of 8 ms: without the lag it could hold
  assert.equal(lagCouldFlip(120, 8, 115), true)
  // a pass never flips: lag only adds time
  assert.equal(lagCouldFlip(100, 50, 115), false)
  assert.equal(lagCouldFlip(null, 5, 115), false)
  const open = (p99, lag) => round(null, {
    loop: 'open', latency: { p99 }, open: { rate: 100, arrival: 'constant', lag: { p99: lag }, sendRateError: 0 }
  })
  assert.equal(lagVerdict(open(829, 13), 115).inDoubt, false)
  assert.equal(lagVerdict(open(120, 8), 115).inDoubt, true)
  assert.deepEqual(untrustedReasons(open(829, 13), { sloMs: 115 }), [], 'a lag of 13 ms alone is no reason')
  assert.ok(untrustedReasons(open(120, 8), { sloMs: 115 }).some((x) => /^latency in doubt/.test(x)))
  assert.deepEqual(untrustedReasons(open(120, 8)), [], 'no target, nothing to flip: the lag is shown, not a reason')
})

test('trust: offered load kept — the issue rate in every 1 s window and the unsent backlog', () => {
  // 50 req/s for 4 s, constant: 10 points of 100 ms a second, 5 requests each
  const timeline = (sentAt) => ({
    intervalMs: 100,
    points: Array.from({ length: 40 }, (_, i) => ({ t: i * 100, phase: 'round', sent: sentAt(i) }))
  })
  const kept = timeline(() => 5)
  const w = issueWindows(kept, { rate: 50, arrival: 'constant', total: 200 })
  assert.deepEqual(w.map((x) => [x.due, x.sent, x.slack]), [[50, 50, 5], [50, 50, 5], [50, 50, 5], [50, 50, 5]])
  assert.deepEqual(offeredLoadKept(w), [])
  // a 500 ms stall in the second second, its 25 requests sent at once in the third: two windows off,
  // and 25 requests unsent at the end of the second second
  const stalled = timeline((i) => (i >= 10 && i < 15 ? 0 : i === 20 ? 30 : 5))
  const why = offeredLoadKept(issueWindows(stalled, { rate: 50, arrival: 'constant', total: 200 }))
  assert.equal(why.length, 2, why.join('; '))
  assert.match(why[0], /issue rate off the schedule in 2 of 4 1 s windows/)
  assert.match(why[1], /unsent backlog reached 25 requests/)
  // one request either way at a window's edge is not a fault
  const edge = timeline((i) => (i === 9 ? 4 : i === 10 ? 6 : 5))
  assert.deepEqual(offeredLoadKept(issueWindows(edge, { rate: 50, arrival: 'constant', total: 200 })), [])
  // the timeline's clock started 300 ms before the schedule's: time 0 is the first interval that sent
  const late = { intervalMs: 100, points: [0, 1, 2].map((i) => ({ t: i * 100, phase: 'round', sent: 0 })) }
  late.points.push(...kept.points.map((p) => ({ ...p, t: p.t + 300 })))
  assert.deepEqual(offeredLoadKept(issueWindows(late, { rate: 50, arrival: 'constant', total: 200 })), [])
  // a Poisson schedule without recorded due counts: the whole round's rate decides
  assert.equal(issueWindows(kept, { rate: 50, arrival: 'poisson', total: 200 }), null)
  assert.equal(offeredLoadKept(null, { sendRateError: -0.05, sendRate: 47.5, scheduledRate: 50 }).length, 1)
  // in a round's reasons, and a step disturbed by it
  const fig = round(null, { loop: 'open', timeline: stalled, open: { rate: 50, arrival: 'constant', lag: { p99: 2 }, sendRateError: 0 } })
  assert.ok(untrustedReasons(fig).some((x) => /^load generator did not keep the offered load/.test(x)))
  assert.equal(disturbances(fig).length, 2)
  // the generator's own windows, when it records them, take the timeline's place
  const windows = [{ t: 0, due: 50, issued: 50 }, { t: 1000, due: 50, issued: 50 }]
  const own = { ...fig, open: { ...fig.open, windows } }
  assert.deepEqual(offeredLoadReasons(own), [])
})

test('trust: one verdict of a result, read by every output', () => {
  assert.deepEqual(verdictOf({ status: 'ok', trusted: true, untrusted: [] }), { status: 'ok', trusted: true, reasons: [], contention: null })
  const failed = verdictOf({ status: 'failed', failure: { reason: 'crashed' }, trusted: false, untrusted: [] })
  assert.equal(failed.trusted, false)
  assert.deepEqual(failed.reasons, ['crashed'])
  assert.deepEqual(verdictOf({ status: 'ok', trusted: false, untrusted: ['3 timeouts'] }).reasons, ['3 timeouts'])
})
