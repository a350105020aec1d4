// The merge takes nothing on a shard's word: a rate, a percentile, a class, a timeline point or a trust
// that disagrees with the shard's own counts and histograms is refused in one line (exit 2), a run given
// twice is refused, every merged figure is derived from counts and histograms, and trust is judged again.
// Built on two real shard reports of one mixed plan (test/fixtures/shards/, `--rate 100 --amount 40
// --mix two-classes --shard I/2`), changed field by field.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT, tempDir } from '../../helpers/lab.js'
import { LabError } from '../../../loadtest/errors.js'
import { mergeReports } from '../../../loadtest/merge/api.js'
import { main as mergeMain } from '../../../loadtest/merge/cli.js'
import { createHistogram, encodeHistogram, recordMs } from '../../../loadtest/result/histogram.js'

const MERGE = join(ROOT, 'loadtest', 'merge', 'cli.js')
const fixture = (i) => JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'shards', `mix-${i}-of-2.json`), 'utf8'))
const shards = () => [fixture(1), fixture(2)]

// Shard 2 changed by `change`; the merge's refusal (a LabError, exit 2, one line) or null.
function refusal (change) {
  const [a, b] = shards()
  change(b)
  try {
    mergeReports([a, b], { names: ['a.json', 'b.json'] })
    return null
  } catch (err) {
    assert.ok(err instanceof LabError, `a LabError, not ${err?.stack}`)
    assert.equal(err.exitCode, 2)
    assert.equal(err.message.split('\n').length, 1, err.message)
    return err.message
  }
}

// Ten samples of `ms`, encoded.
function tenOf (ms) {
  const h = createHistogram()
  for (let i = 0; i < 10; i++) recordMs(h, ms)
  return encodeHistogram(h)
}

test('the two shards as written merge; every merged figure comes from their counts and histograms', () => {
  const [a, b] = shards()
  const r = mergeReports([a, b]).results[0]
  const own = (x) => (x.results[0].requests.completed * 1000) / x.results[0].durationMs
  assert.equal(r.requests.sent, 40)
  assert.ok(Math.abs(r.rps - (own(a) + own(b))) < 0.002, `${r.rps}`)
  assert.deepEqual(r.classes.map((c) => [c.name, c.requests.sent]), [['cheap', 35], ['heavy', 5]])
  // a shard's rate is never copied: one that says more than its counts is refused (below), and the
  // merged rate does not move with what a shard says within its rounding
  const [c, d] = shards()
  d.results[0].rps += 0.001
  assert.equal(mergeReports([c, d]).results[0].rps, r.rps)
})

test('a shard\'s rate is checked against its counts and duration (rps 5e8, -50: refused)', () => {
  for (const rps of [5e8, -50, 999999999, null]) {
    assert.match(refusal((b) => { b.results[0].rps = rps }) ?? 'merged',
      /b\.json: its figures disagree \(its rate .* req\/s, its counts say 44\.288 \(20 answered in 451\.587 ms\)\)/, String(rps))
  }
  assert.match(refusal((b) => { b.results[0].durationMs = 0 }), /its durationMs is 0, not a duration/)
  assert.match(refusal((b) => { b.results[0].open.scheduledRate = 5e8 }), /its schedule's rate 500000000 req\/s, its slice of the plan 50/)
  assert.match(refusal((b) => { b.results[0].open.sendRateError = 0 }), /its send rate's error 0, its rates say/)
  assert.match(refusal((b) => { b.results[0].open.lag.p99 = 0.001 }), /its scheduler lag p99 0\.001 ms, its histogram says/)
})

test('a shard\'s histogram is checked against its own percentiles (ten samples of 1 µs under p99 5.3 ms: refused)', () => {
  const line = refusal((b) => {
    const r = b.results[0]
    r.histograms.latency = tenOf(0.001)
    Object.assign(r.requests, { sent: 10, completed: 10, ok: 10 })
  })
  assert.match(line, /b\.json: /)
  assert.match(refusal((b) => { b.results[0].latency.p99 = 5.3 }), /its latency p99 5\.3 ms, its histogram says 152\.063 ms/)
  assert.match(refusal((b) => { b.results[0].histograms.latency = 'AAAA' }), /histogram/)
})

test('one run given as two shards is refused: the same id, or the same round under another index', () => {
  const [a] = shards()
  const copy = structuredClone(a)
  copy.method.shard.index = 2
  assert.throws(() => mergeReports([a, copy], { names: ['a.json', 'copy.json'] }),
    (err) => err.exitCode === 2 && /a\.json and copy\.json are one run given as two shards \(the same id\)/.test(err.message))
  copy.id = 'another-id'
  assert.throws(() => mergeReports([a, copy], { names: ['a.json', 'copy.json'] }),
    (err) => err.exitCode === 2 && /one run given as two shards \(the same round\)/.test(err.message))
})

test('trust is judged again on the merged figures: a shard\'s `untrusted: []` is not taken on its word', () => {
  const [a, b] = shards()
  const r = b.results[0]
  // two answers turned into 500s, consistently (counts, codes, classes), the shard still saying "trusted"
  Object.assign(r.requests, { ok: 18, non2xx: 2 })
  r.statusCodes = { 200: 18, 500: 2 }
  Object.assign(r.classes[0].requests, { ok: 16, non2xx: 2 })
  Object.assign(r, { trusted: true, untrusted: [] })
  const m = mergeReports([a, b]).results[0]
  assert.equal(m.trusted, false)
  assert.ok(m.untrusted.some((x) => /non-2xx/i.test(x)), m.untrusted.join('; '))
  // unanswered that the counts do not give is refused outright
  assert.match(refusal((x) => { x.results[0].requests.unanswered = 10 }), /unanswered 10, its counts say 0/)
})

test('classes are matched by name, and checked against the mix and the round\'s counts', () => {
  // shard 2's classes reversed: the truth per class is kept (matched by name, not by place)
  const [a, b] = shards()
  b.results[0].classes.reverse()
  const byName = Object.fromEntries(mergeReports([a, b]).results[0].classes.map((c) => [c.name, c.requests.sent]))
  assert.deepEqual(byName, { cheap: 35, heavy: 5 })
  assert.match(refusal((x) => { x.results[0].classes[1].name = 'heavier' }), /its classes \["cheap","heavier"\] are not its mix's/)
  assert.match(refusal((x) => { x.results[0].classes.pop() }), /its classes \["cheap"\] are not its mix's/)
  assert.match(refusal((x) => { x.results[0].classes[0].requests.sent = 1e6 }), /its classes' sent add up to 1000002, the round's is 20/)
  assert.match(refusal((x) => { x.results[0].classes[0].histogram = 'x' }), /class cheap's histogram is unreadable/)
  assert.match(refusal((x) => { x.results[0].classes[0].rps = 1e6 }), /class cheap's rate 1000000 req\/s/)
})

test('a timeline is bounded by the shard\'s plan: a point at t 1e9 or 1e13 is refused before anything is allocated', () => {
  for (const [change, why] of [
    [(t) => { t.points[0].t = 1e9 }, /a point at t 1000000000, outside its plan \(0 to \d+ ms\)/],
    [(t) => { t.points[0].t = 1e13 }, /a point at t 10000000000000, outside its plan/],
    [(t) => { t.points[0].t = -500 }, /a point at t -500/],
    [(t) => { t.points[0].t = 'x' }, /a point at t "x"/],
    [(t) => { t.intervalMs = 0 }, /intervalMs is 0, not an interval/],
    [(t) => { t.points[1].histogram = 'AAAA' }, /timeline's t 100 histogram is unreadable/],
    [(t) => { t.points[1].completed = -1 }, /completed is -1, not a count/]
  ]) {
    const heap = process.memoryUsage().heapUsed
    assert.match(refusal((b) => change(b.results[0].timeline)) ?? 'merged', why)
    assert.ok(process.memoryUsage().heapUsed - heap < 64 << 20, 'no slot allocated for the absurd point')
  }
})

test('a status code that is not one ("__proto__") is refused; codes are summed without a prototype', () => {
  assert.match(refusal((b) => {
    b.results[0].statusCodes = JSON.parse('{"__proto__": 10, "200": 10}')
  }), /its status codes hold "__proto__", not an HTTP status/)
  const [a, b] = shards()
  assert.deepEqual(mergeReports([a, b]).results[0].statusCodes, { 200: 40 })
})

test('npm run merge: a malformed shard is one line and exit 2, never a stack', async (t) => {
  const dir = await tempDir('loadlab-merge-trust-')
  t.after(() => dir.cleanup())
  const [a, b] = shards()
  const files = [join(dir.dir, 'a.json'), join(dir.dir, 'b.json')]
  await writeFile(files[0], JSON.stringify(a))
  b.results[0].timeline.points[0].t = 'x'
  await writeFile(files[1], JSON.stringify(b))
  const r = await execa(process.execPath, [MERGE, ...files, '--out', dir.dir], { cwd: ROOT, reject: false })
  assert.equal(r.exitCode, 2, r.stderr)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr, /^merge: .*b\.json: its figures disagree \(its timeline has a point at t "x"/)
  // the same through main, for the other malformed shards of the issue: one class fewer, a bad class histogram
  for (const change of [(x) => x.results[0].classes.pop(), (x) => { x.results[0].classes[1].histogram = '!' }]) {
    const c = structuredClone(b)
    c.results[0].timeline = a.results[0].timeline
    change(c)
    await writeFile(files[1], JSON.stringify(c))
    await assert.rejects(mergeMain([...files, '--out', dir.dir]), (err) => err instanceof LabError && err.exitCode === 2)
  }
})
