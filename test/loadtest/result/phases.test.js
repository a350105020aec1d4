// Phases of a request (result/phases.js): the header read or refused, the phases adding up to the
// latency, the tally's percentiles and shares, threads' tallies added, its memory bounded.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  PHASES, MAX_HEADER_CHARS, addPhases, createPhaseTally, mergeTallies, parseStamps, phaseDoubt, phaseFigures,
  requestPhases, tallyAnswer
} from '../../../loadtest/result/phases.js'
import { PHASE_TRUST } from '../../../loadtest/result/rules.js'
import { phaseLine } from '../../../loadtest/text/phases.js'

const T = 1_800_000_000_000 // an epoch ms
const stamp = (pairs) => pairs.map(([name, ms]) => `${name}=${(T + ms).toFixed(3)}`).join(',')
const sum = (xs) => xs.reduce((a, v) => a + (Number.isNaN(v) ? 0 : v), 0)

test('parseStamps reads the phases in order and refuses anything else', () => {
  assert.deepEqual(parseStamps(stamp([['wait', 1], ['run', 3]])), [[1, T + 1], [5, T + 3]])
  for (const bad of [
    null, '', 'garbage', 'wait=', 'wait=abc', 'wait=1,wait=2', 'run=1,wait=2', 'sent=1', 'reply=1', 'bogus=1',
    'wait=Infinity', 'wait=NaN', 'wait=1e400', `wait=1,${'x'.repeat(MAX_HEADER_CHARS)}`
  ]) assert.equal(parseStamps(bad), null, JSON.stringify(bad))
})

test('a pool request: each phase from the moment before it, and they add up to the latency', () => {
  const stamps = parseStamps(stamp([['wait', 2], ['queue', 5], ['send', 5.5], ['run', 15.5], ['return', 16]]))
  const one = requestPhases({ dueMs: T, writtenMs: T + 1, doneMs: T + 17, stamps })
  const byName = Object.fromEntries(PHASES.map((p, i) => [p, one.phases[i]]))
  assert.equal(byName.sent, 1)
  assert.equal(byName.wait, 1)
  assert.equal(byName.queue, 3)
  assert.ok(Number.isNaN(byName.start), 'a pool has no start')
  assert.equal(byName.send, 0.5)
  assert.equal(byName.run, 10)
  assert.equal(byName.return, 0.5)
  assert.equal(byName.reply, 1)
  assert.equal(sum(one.phases), 17)
  assert.equal(one.residueMs, 0)
  assert.equal(one.clamped, false)
})

test('stamps out of order (two clocks) leave a residue; one just outside the interval is clamped; far outside, refused', () => {
  const skewed = requestPhases({
    dueMs: T, writtenMs: T, doneMs: T + 10, stamps: parseStamps(stamp([['wait', 3], ['send', 2.5], ['run', 8]]))
  })
  assert.equal(skewed.phases[PHASES.indexOf('send')], 0, 'never negative')
  assert.ok(Math.abs(skewed.residueMs - 0.5) < 1e-9, 'the half millisecond out of order is unexplained')
  const early = requestPhases({ dueMs: T, writtenMs: T + 1, doneMs: T + 10, stamps: parseStamps(stamp([['wait', 0.5], ['run', 9]])) })
  assert.equal(early.clamped, true)
  assert.equal(early.phases[PHASES.indexOf('wait')], 0)
  assert.equal(early.residueMs, 0.5, 'the half millisecond the stamp was moved is unexplained')
  const far = parseStamps(stamp([['wait', 10 + PHASE_TRUST.stampSlackMs + 1]]))
  assert.equal(requestPhases({ dueMs: T, writtenMs: T, doneMs: T + 10, stamps: far }), null)
})

test('a server whose clock stands ahead of the lab\'s is shifted back by the least its stamps ask', () => {
  const tally = createPhaseTally()
  for (let i = 0; i < 20; i++) {
    const t0 = T + i * 100 // request i written at t0, its last byte read 5 ms later; the server's clock +2 ms
    const stamps = [['wait', 0.5 + 2], ['queue', 1 + 2], ['send', 1.5 + 2], ['run', 3.5 + 2], ['return', 4 + 2]]
      .map(([p, ms]) => `${p}=${(t0 + ms).toFixed(3)}`).join(',')
    tallyAnswer(tally, { stamps, dueMs: t0, writtenMs: t0, doneMs: t0 + 5 })
  }
  const f = phaseFigures(tally)
  // the stamps say the server is between 1 and 2.5 ms ahead: the least shift that fits every request is taken
  assert.equal(f.clockShiftMs, 1)
  assert.ok(Math.abs(f.phases.wait.p50 - 1.5) < 0.02)
  assert.equal(f.unexplained.medianMs, 0, 'nothing moved once the shift is known')
  assert.ok(f.clamped <= 1, 'only the first request, before the shift was known')
})

test('a hostile or missing header is counted and ignored; the tally holds only what was read', () => {
  const tally = createPhaseTally()
  const moments = { dueMs: T, writtenMs: T + 1, doneMs: T + 5 }
  tallyAnswer(tally, { ...moments, stamps: null })
  tallyAnswer(tally, { ...moments, stamps: 'wait=0,run=1e300' })
  tallyAnswer(tally, { ...moments, stamps: '<script>' })
  tallyAnswer(tally, { ...moments, stamps: stamp([['wait', 2], ['run', 4]]) })
  assert.deepEqual([tally.count, tally.missing, tally.ignored], [1, 1, 2])
  const f = phaseFigures(tally)
  assert.deepEqual(Object.keys(f.phases), ['sent', 'wait', 'run', 'reply'])
  assert.equal(phaseFigures(createPhaseTally()), null)
})

// n requests: a fast majority and a slow tail whose time is all queue.
function tallyOf (n, { slowEvery = 100 } = {}) {
  const tally = createPhaseTally()
  for (let i = 0; i < n; i++) {
    const queue = i % slowEvery === 0 ? 50 : 0
    const stamps = parseStamps(stamp([['wait', 1], ['queue', 1 + queue], ['send', 1.5 + queue], ['run', 3.5 + queue], ['return', 4 + queue]]))
    const doneMs = T + 5 + queue
    addPhases(tally, doneMs - T, requestPhases({ dueMs: T, writtenMs: T + 0.5, doneMs, stamps }))
  }
  return tally
}

test('per phase p50, p99 and mean; the shares at p50 and p99 are those of the requests there', () => {
  const f = phaseFigures(tallyOf(1000, { slowEvery: 50 }))
  assert.equal(f.count, 1000)
  assert.ok(Math.abs(f.phases.run.p50 - 2) / 2 < 0.012, 'within a bucket')
  assert.ok(Math.abs(f.phases.queue.mean - 1) < 1e-9, 'the mean is exact: 2 % of requests queued 50 ms')
  assert.equal(f.phases.queue.p50, 0)
  assert.ok(Math.abs(f.phases.queue.p99 - 50) / 50 < 0.012)
  assert.equal(f.at.p50.share.queue, 0)
  assert.ok(Math.abs(f.at.p50.share.run - 2 / 5) < 1e-3)
  assert.ok(f.at.p99.share.queue > 0.9, 'the p99 request spent its time queued')
  assert.ok(Math.abs(f.at.p99.latencyMs - 55) / 55 < 0.012)
  const shares = Object.values(f.at.p99.share).reduce((a, v) => a + v, 0)
  assert.ok(Math.abs(shares - 1) < 1e-3)
  assert.deepEqual(f.unexplained, { medianMs: 0, p99Ms: 0, maxMs: 0 })
})

test('threads\' tallies add up to the tally of all their requests', () => {
  const a = tallyOf(300)
  const b = tallyOf(700)
  const merged = mergeTallies(mergeTallies(null, a), b)
  assert.deepEqual(phaseFigures(merged), phaseFigures(tallyOf(1000)))
  assert.equal(a.count, 300, 'the first is not changed when it is merged from null')
})

test('memory stays bounded whatever the durations', () => {
  const tally = createPhaseTally()
  let x = 1
  for (let i = 0; i < 100_000; i++) {
    x = (x * 48271) % 2147483647
    const d = (x / 2147483647) * 10 ** ((i % 13) - 4) // 1e-4 .. 1e8 ms
    addPhases(tally, d, { phases: PHASES.map(() => d / 8), residueMs: d, clamped: false })
  }
  const lengths = [tally.latency, tally.residue, tally.byLatency, ...tally.buckets].map((a) => a.length)
  assert.ok(Math.max(...lengths) <= 1100, `at most ~1,000 buckets each, got ${Math.max(...lengths)}`)
  assert.equal(JSON.parse(JSON.stringify(tally)).count, 100_000, 'plain data')
})

test('stamps in hex, binary, octal, with an exponent or a sign are refused (and counted), as Number() would read them', () => {
  const hex = `wait=0x${(T + 1).toString(16)},run=0x${(T + 3).toString(16)}`
  for (const bad of [hex, 'wait=0x10', 'wait=0b101', 'wait=0o17', 'wait=1e3', 'wait=+5', 'wait=-1', 'wait=1.', 'wait=.5']) {
    assert.equal(parseStamps(bad), null, bad)
  }
  assert.deepEqual(parseStamps('wait= 12.5 , run=13'), [[1, 12.5], [5, 13]], 'a list\'s spaces are the list\'s')
  const tally = createPhaseTally()
  tallyAnswer(tally, { stamps: hex, dueMs: T, writtenMs: T, doneMs: T + 4 })
  assert.deepEqual([tally.count, tally.ignored], [0, 1])
})

// A tally of n requests of `latencyMs` each whose wait and run stamps lie `offMs` outside the request
// (before it was written, after its last byte: within PHASE_TRUST.stampSlackMs, so clamped).
function clampedTally (n, latencyMs, offMs) {
  const tally = createPhaseTally()
  for (let i = 0; i < n; i++) {
    const t0 = T + i * 100
    const stamps = `wait=${(t0 - offMs).toFixed(3)},run=${(t0 + latencyMs + offMs).toFixed(3)}`
    tallyAnswer(tally, { stamps, dueMs: t0, writtenMs: t0, doneMs: t0 + latencyMs })
  }
  return phaseFigures(tally)
}

test('every stamp clamped and more unexplained than the latency: the shares are in doubt, and not shown', () => {
  const f = clampedTally(20, 3.9, 4.5) // 9 ms moved: 9 ms unexplained beside 3.9 ms
  assert.equal(f.clamped, f.count)
  assert.ok(f.unexplained.medianMs > f.at.p50.latencyMs)
  for (const at of ['p50', 'p99']) assert.equal(phaseDoubt(f, at)?.code, 'unexplained', at)
  const line = phaseLine('liar', f)
  assert.match(line, /p50 3\.\d+ ms: shares in doubt, 9\.\d+ ms unexplained; p99 [\d.]+ ms: shares in doubt/)
  assert.doesNotMatch(line, /run \d+ %/, 'no share of a split the stamps cannot support')
})

test('most stamps clamped, a little unexplained: the shares are in doubt; a clean tally\'s stand', () => {
  const f = clampedTally(20, 10, 0.05) // 0.1 ms moved of 10 ms: under the unexplained share, every stamp clamped
  assert.ok(f.unexplained.medianMs <= PHASE_TRUST.unexplainedShare * f.at.p50.latencyMs)
  assert.deepEqual(phaseDoubt(f, 'p50'), { code: 'clamped', clamped: 20, count: 20 })
  assert.match(phaseLine('s', f), /shares in doubt, 20 of 20 requests' stamps clamped/)
  const clean = clampedTally(20, 10, -1) // stamps inside their requests
  assert.equal(clean.clamped, 0)
  assert.equal(phaseDoubt(clean, 'p50'), null)
  assert.equal(phaseDoubt(clean, 'p99'), null)
  assert.match(phaseLine('s', clean), /p50 [\d.]+ ms: wait \d+ % · run \d+ % · reply \d+ %/)
})
