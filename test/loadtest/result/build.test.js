// result/build.js (with figures.js and trust.js): an HTTP result from a raw run, its trust, the report around it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildHttpResult as build, buildReport, sweptCapacity } from '../../../loadtest/result/build.js'
import { ideal, roundFigures } from '../../../loadtest/result/figures.js'
import { untrustedReasons as reasonsOf } from '../../../loadtest/result/trust.js'
import { reasonText } from '../../../loadtest/text/reasons.js'

// A result as the lab builds it (its reasons in words, text/reasons.js), and the reasons of a round in words.
const buildHttpResult = (record, opts = {}) => build(record, { ...opts, say: reasonText })
const untrustedReasons = (...args) => reasonsOf(...args).map(reasonText)
import { entry, hist, rawRound } from '../../helpers/raw-round.js'

test('report: one result from a raw run; ideal and efficiency from calibration', () => {
  const r = buildHttpResult(
    { entry, rounds: [rawRound()], failure: null, interrupted: false },
    { calibration: { 'loop:1e7': { medianMs: 10 } }, cores: 2 }
  )
  assert.equal(r.key, 'simple@loop:1e7')
  assert.equal(r.rps, 100)
  assert.equal(r.requests.unanswered, 0)
  assert.deepEqual(r.ideal, { serviceMs: 10, cores: 2, concurrency: 2, rps: 200 })
  assert.equal(r.efficiency, 0.5)
  assert.equal(r.outside.cpuMsPerRequest, 20)
  assert.equal(r.serverTiming.workMs.mean, 1)
  assert.equal(r.serverTiming.queueMs.median, 2)
  assert.equal(r.trusted, true)
  assert.ok(Math.abs(r.latency.p50 - 5) <= 0.005, 'HDR histograms keep 3 significant digits')
  assert.equal(ideal('sleep:100', 10, 2, { 'sleep:100': { medianMs: 100, method: 'declared' } }).concurrency, 10, 'waiting uses no core')
  assert.equal(buildHttpResult({ entry, rounds: [rawRound()] }, { calibration: {} }).efficiency, null)
})

test('report: untrusted reasons, not hidden', () => {
  const bad = roundFigures(rawRound({ completed: 7, ok: 6, non2xx: 1, timeouts: 2, errors: 1, mismatches: 1 }))
  const reasons = untrustedReasons(bad)
  for (const needle of ['1 connection errors', '2 timeouts', '1 non-2xx', '1 body mismatches']) {
    assert.ok(
      reasons.some((x) => x.includes(needle)),
      needle
    )
  }
  const sat = rawRound()
  sat.outside.loadGenerator.utilisation = 0.97
  assert.ok(untrustedReasons(roundFigures(sat)).some((x) => /load generator saturated \(97% CPU\)/.test(x)))
  const probe = rawRound()
  probe.probe.failed = 2
  assert.ok(untrustedReasons(roundFigures(probe)).some((x) => /2 failed \/health probes/.test(x)))
  const r = buildHttpResult({ entry, rounds: [sat] })
  assert.equal(r.trusted, false)
  assert.ok(r.rps > 0, 'figures are still there')
})

test('report: --runs takes the median round by rps and gives the spread', () => {
  const rounds = [rawRound({ durationMs: 200 }), rawRound({ durationMs: 100 }), rawRound({ durationMs: 50 })]
  const r = buildHttpResult({ entry, rounds })
  assert.equal(r.rps, 100)
  assert.equal(r.runs.length, 3)
  assert.deepEqual(r.spread.rps, { min: 50, median: 100, max: 200 })
})

test('report: status complete / failed / partial', () => {
  const ok = buildHttpResult({ entry, rounds: [rawRound()] }, { cores: 2 })
  const failed = buildHttpResult({
    entry,
    rounds: [],
    failure: { reason: 'exited', exitCode: 1, signal: null, stderrTail: ['boom'] }
  }, { cores: 2 })
  assert.equal(failed.status, 'failed')
  assert.equal(failed.trusted, false)
  assert.equal(failed.requests, null)
  const base = { id: 'x', createdAt: 'a', experiment: 'custom', machine: {}, method: {}, calibration: {} }
  assert.equal(buildReport({ ...base, results: [ok] }).status, 'complete')
  assert.equal(buildReport({ ...base, results: [ok, failed] }).status, 'failed')
  assert.equal(buildReport({ ...base, results: [ok], interrupted: true }).status, 'partial')
})

test('report: requests in flight when a --duration round stops are not a fault; beyond one per connection they are', () => {
  const dur = (unanswered) => roundFigures(rawRound({ mode: 'duration', connections: 4, sent: 10 + unanswered }))
  assert.equal(dur(4).requests.unanswered, 4)
  assert.deepEqual(untrustedReasons(dur(4)), [])
  assert.ok(untrustedReasons(dur(5)).some((x) => /5 requests unanswered/.test(x)))
  const amount = roundFigures(rawRound({ sent: 11 }))
  assert.ok(untrustedReasons(amount).some((x) => /1 requests unanswered/.test(x)))
})

test('sweptCapacity: the capacity block a built result will show, read from a record mid-run; null without a sweep', () => {
  const sweep = { sloMs: 20, serviceMs: 5, idealRps: 400, cores: 2, kinds: ['floor', 'step'], first: 0 }
  const record = { entry: { ...entry, amount: null }, rounds: [rawRound(), rawRound()], notes: [], sweeps: [sweep] }
  const built = buildHttpResult(record, {}).capacity
  const { rps, sloMs, bound, undecided } = built.capacity
  assert.deepEqual(sweptCapacity(record), { rps, sloMs, bound, undecided, serviceMs: 5 })
  assert.equal(sloMs, 20)
  assert.match(bound, /^undecided/)
  // the record's own sweep of a run before --runs (record.sweep) is read the same way
  assert.deepEqual(sweptCapacity({ ...record, sweeps: undefined, sweep: { ...sweep, sloMs: 30 } }).sloMs, 30)
  assert.equal(sweptCapacity({ entry, rounds: [rawRound()], notes: [] }), null)
})

test('a capacity the sweep ended before it could hold is untrusted, with the hold length it needed', () => {
  // a floor at 5 req/s, a pass at 50 on a 0.5 s step, a failure at 100 twice; the hold rule asks 2 s at 50
  const open = (rate, ms) => rawRound({
    loop: 'open', rate, latency: hist(ms), service: hist(ms), lag: hist([0.1]), wait: hist([0]), peakInFlight: 1
  })
  const fast = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  const slow = fast.map((x) => x + 40)
  const sweep = {
    sloMs: 20,
    serviceMs: 5,
    idealRps: 400,
    cores: 2,
    share: 0.5,
    longestStepSec: 7.5,
    hold: { excess: 0.08, times: 3, minSec: 2 },
    kinds: ['floor', 'coarse', 'coarse', 'repeat'],
    lengths: [2, 0.5, 0.5, 0.5],
    first: 0
  }
  const record = {
    entry: { ...entry, amount: null },
    rounds: [open(5, fast), open(50, fast), open(100, slow), open(100, slow)],
    notes: [],
    sweeps: [sweep]
  }
  const r = buildHttpResult(record, {})
  assert.equal(r.capacity.capacity.rps, 50)
  assert.equal(r.capacity.capacity.held, false)
  assert.equal(r.capacity.capacity.holdSec, 2)
  assert.equal(r.capacity.steps[1].sec, 0.5, 'each step carries its planned length')
  assert.ok(r.untrusted.some((x) => /^capacity not held: no step at 50 req\/s lasted the 2 s/.test(x)), r.untrusted.join('; '))
  // a lab server's sweep names the step it needs and the lab command that runs it; a --url sweep only the step
  const own = { ...record, entry: { ...record.entry, server: 'simple', args: ['--work', 'loop:1e7'], sweep: () => null } }
  assert.ok(buildHttpResult(own, {}).untrusted.some((x) => x.endsWith('the step it needs, 2 s at 50 req/s: ' +
    'npm run lab -- --server simple --work loop:1e7 --rate 50 --duration 2')))
  assert.ok(buildHttpResult({ ...own, probe: { rps: 100 } }, {}).untrusted.some((x) => x.endsWith('at 50 req/s')))
  // a 2 s step at that rate holds it: no such reason
  const held = buildHttpResult({ ...record, sweeps: [{ ...sweep, lengths: [2, 2, 0.5, 0.5] }] }, {})
  assert.equal(held.capacity.capacity.held, true)
  assert.ok(!held.untrusted.some((x) => /capacity not held/.test(x)))
  // the sweep's cost: every step's requests sent, and its seconds where the runner timed it (else null)
  const sent = record.rounds.reduce((a, x) => a + roundFigures(x).requests.sent, 0)
  assert.deepEqual(r.capacity.cost, { requests: sent, sec: null })
  const timed = buildHttpResult({ ...record, sweeps: [{ ...sweep, sweepSec: 12.34 }] }, {})
  assert.deepEqual(timed.capacity.cost, { requests: sent, sec: 12.3 })
  assert.equal(timed.capacity.sweepSec, undefined, 'the runner\'s timing is not a rule of the sweep')
})

test('reasons are data: a code and its figures; text/reasons.js says them, an old report\'s string passes through', () => {
  const sat = rawRound()
  sat.outside.loadGenerator.utilisation = 0.97
  sat.probe.failed = 2
  const data = reasonsOf(roundFigures(sat))
  assert.deepEqual(data.map((x) => x.code), ['generator-saturated', 'probes-failed'])
  assert.deepEqual(data[1], { code: 'probes-failed', count: 2 })
  // result/ makes no words: without the lab's, a result's reasons are their codes
  assert.deepEqual(build({ entry, rounds: [sat] }).untrusted, ['generator-saturated', 'probes-failed'])
  assert.deepEqual(buildHttpResult({ entry, rounds: [sat] }).untrusted, ['load generator saturated (97% CPU)', '2 failed /health probes'])
  assert.equal(reasonText('disturbed: steal 9 % > 5 %'), 'disturbed: steal 9 % > 5 %', 'a reference report\'s reason as it is')
  assert.equal(reasonText({ code: 'round', round: 2, reason: { code: 'timeouts', count: 3 } }), 'round 2: 3 timeouts')
})

test('a built result keeps its words beside the codes it was decided on: disturbances and contention', () => {
  const noisy = { stealPct: 20, workInflation: 5.4, workAgainst: 'warm', inFlight: 4, treeCores: 1, labCores: 0.1, cores: 2 }
  const round = () => ({ ...rawRound(), noise: noisy })
  const sweep = { sloMs: 50, serviceMs: 5, idealRps: 400, cores: 2, kinds: ['floor', 'step'], first: 0 }
  const record = { entry: { ...entry, sloMs: 50 }, rounds: [round(), round()], sweeps: [sweep] }
  const fig = roundFigures(round())
  assert.deepEqual(fig.disturbedBy, [{ code: 'steal', stealPct: 20, limit: fig.disturbedBy[0].limit }], 'data in result/')
  assert.equal(fig.contention.crowded, true)
  const r = buildHttpResult(record)
  const limit = fig.disturbedBy[0].limit
  assert.deepEqual(r.capacity.steps.map((s) => s.disturbedBy), [[`steal 20 % > ${limit} %`], [`steal 20 % > ${limit} %`]])
  assert.equal(r.capacity.steps[0].contention.text, 'work 5.4 × slower: 4 at once on 2 cores')
  const plain = buildHttpResult({ entry, rounds: [round()] }) // not a sweep: the round's own
  assert.deepEqual([plain.contention.text, plain.contention.short], ['work 5.4 × slower: 4 at once on 2 cores', '5.4× · 4 on 2 cores'])
  assert.ok(r.untrusted.some((x) => x.startsWith(`disturbed: 2 of 2 steps: step 1 (steal 20 % > ${limit} %)`)), r.untrusted.join('; '))
})
