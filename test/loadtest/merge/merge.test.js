// Shards (--shard I/N --start-at T) and npm run merge: two lab processes split one plan against one
// server and merge into the plan's report; every kind of report that is not a shard of one plan is refused.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { createSchedule, sliceOf } from '../../../loadtest/run/generate/schedule.js'
import { countsFault, plannedSlice } from '../../../loadtest/merge/counts.js'
import { createHistogram, encodeHistogram, mergeEncoded, recordMs } from '../../../loadtest/result/histogram.js'
import { startServer } from '../../helpers/server.js'
import { ROOT, shardStartAt, startLab, tempDir } from '../../helpers/lab.js'
import { main as mergeMain } from '../../../loadtest/merge/cli.js'
import { mergeReports, readReport } from '../../../index.js'

const MERGE = join(ROOT, 'loadtest', 'merge', 'cli.js')
const COMPARE = join(ROOT, 'loadtest', 'compare', 'cli.js')
const node = (script, args) => execa(process.execPath, [script, ...args], { cwd: ROOT, reject: false })

async function jsonFiles (dir) {
  return (await readdir(dir)).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f))
}

// Two shards of `--rate 400 --amount 300`, started together against one server (once, for both tests).
let shardsDir
let shardFiles
before(async () => {
  shardsDir = await tempDir()
  const server = await startServer('simple', ['--work', 'loop:100'])
  try {
    shardFiles = await twoShards(server, shardsDir.dir)
  } finally {
    await server.stop()
  }
})
after(() => shardsDir?.cleanup())

// The two shard processes' report files.
async function twoShards (server, dir) {
  // ahead as the fan-out sets it: two lab processes starting on a busy machine can take seconds to be ready
  // (a shard late past its start refuses)
  const startAt = await shardStartAt()
  const args = (i) => ['--url', server.url, '--rate', '400', '--amount', '300', '--warmup', '0',
    '--shard', `${i}/2`, '--start-at', startAt, '--out', dir]
  const runs = await Promise.all([startLab(args(1)), startLab(args(2))])
  for (const r of runs) assert.equal(r.exitCode, 0, r.stderr)
  return jsonFiles(dir)
}

test('two --shard processes against one server merge into the report of the whole plan; mergeReports gives the same', async (t) => {
  const outDir = await tempDir()
  t.after(() => outDir.cleanup())
  const files = shardFiles
  const shards = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8'))))
  assert.deepEqual(shards.map((s) => s.results[0].requests.sent).sort(), [150, 150], 'each shard sent its half')
  const m = await node(MERGE, [...files, '--out', outDir.dir])
  assert.equal(m.exitCode, 0, m.stderr)
  const [mergedFile] = await jsonFiles(outDir.dir)
  const merged = JSON.parse(await readFile(mergedFile, 'utf8'))
  // the library's mergeReports (index.js) on the same shards gives the report npm run merge wrote, but for
  // its id, times and command line
  const api = mergeReports(await Promise.all(files.map(readReport)), { names: files })
  const same = (x) => ({ ...x, id: null, createdAt: null, finishedAt: null, method: { ...x.method, command: null } })
  assert.deepEqual(same(JSON.parse(JSON.stringify(api))), same(merged), 'mergeReports is what npm run merge writes')
  const r = merged.results[0]
  // The whole plan: 300 requests due every 2.5 ms from 0 to 747.5 ms, as one generator's schedule.
  const plan = createSchedule({ rate: 400, amount: 300 })
  let n = 0
  while (plan.next() !== null) n++
  assert.equal(r.requests.sent, n)
  assert.deepEqual([r.requests.completed, r.requests.ok, r.requests.mismatches], [300, 300, 0])
  assert.equal(r.open.scheduledRate, 400, 'the shards\' due times together are the plan\'s: 299 gaps of 2.5 ms')
  assert.equal(r.key, shards[0].results[0].key)
  assert.equal(r.latency.count, 300, 'histograms added')
  assert.equal(r.timeline.points.reduce((a, p) => a + p.sent, 0), 300, 'timelines aligned and added')
  assert.deepEqual(merged.method.shards.map((s) => `${s.index}/${s.count}`), ['1/2', '2/2'])
  assert.equal(merged.method.shard, null)
  assert.ok(shards.every((s) => s.notes.some((n) => /^shard [12]\/2 of a plan split by request index/.test(n))))
  assert.ok(!merged.notes.some((n) => /^shard \d\/2 of a plan/.test(n)), 'the merged report says it is merged, not a shard')
  assert.match(merged.notes[0], /^merged from 2 shards of one plan/)
  assert.ok(Math.abs(r.rps - shards.reduce((a, s) => a + s.results[0].rps, 0)) < 0.01, 'rates added')
  // A merged report compares and gates like any other: one shard has half the plan's throughput, past the
  // bound. Whether that is called worse is compare's rule on the two runs' own intervals (a shard's 2 s of
  // windows give a wide one) and on disturbance (the busy suite): the gate fails exactly when it is.
  const cmp = await node(COMPARE, [mergedFile, files[0], '--fail-on', 'rps:-10%'])
  const gate = /- (✗ regressed|≈ past the bound, within noise|⚠ past the bound, no call \(a run marked disturbed\)): B `simple@default#open:400\/s` rps .*verdict: (worse|within noise|disturbed)\)/
    .exec(cmp.stdout)
  assert.ok(gate, cmp.stdout)
  assert.equal(cmp.exitCode, gate[1] === '✗ regressed' ? 99 : 0, cmp.stderr)
  assert.equal(gate[1] === '✗ regressed', gate[2] === 'worse')
})

test('npm run merge refuses, in one line with exit 2, reports that are not every shard of one plan once', async () => {
  const [a, b] = shardFiles
  const shard = JSON.parse(await readFile(a, 'utf8'))
  const other = JSON.parse(await readFile(b, 'utf8'))
  let k = 0
  const variant = async (report, change) => {
    const copy = structuredClone(report)
    change(copy)
    const file = join(shardsDir.dir, `variant-${k++}.json`)
    await writeFile(file, JSON.stringify(copy))
    return file
  }
  const cases = [
    [[a, await variant(other, (r) => { r.method.rate = 500 })], /not shards of one plan: rate 400 vs 500/],
    [[a, await variant(other, (r) => { r.method.amount = null; r.method.durationSec = 1 })], /not shards of one plan: amount/],
    [[a, await variant(other, (r) => { r.method.arrival = 'poisson' })], /not shards of one plan: arrival/],
    [[a, await variant(other, (r) => { r.method.seed = 7 })], /not shards of one plan: seed none vs 7/],
    [[a, await variant(other, (r) => { r.method.url = 'http://127.0.0.1:1/' })], /not shards of one plan: url/],
    [[a, await variant(other, (r) => { r.method.startAt = '2026-01-01T00:00:00.000Z' })], /not shards of one plan: startAt/],
    [[await variant(shard, (r) => { r.method.shard.count = 3 }),
      await variant(other, (r) => { r.method.shard.count = 3 })],
    /shard 3\/3 missing/],
    [[a, a, b], /given twice/],
    [[a, await variant(other, (r) => { r.method.shard = { index: 2, count: 3 } })], /not shards of one plan: shard count 2 vs 3/],
    [[a, await variant(other, (r) => { r.results[0].key = 'simple@loop:1#open:400/s' })], /not shards of one plan: run /],
    [[a, await variant(other, (r) => { r.method.shard = null })], /is not a shard/],
    [[a], /at least two shards/],
    [[a, join(shardsDir.dir, 'nope.json')], /cannot read .*nope\.json: no such file/],
    [[a, '/dev/zero'], /cannot read \/dev\/zero: not a regular file$/]
  ]
  // through npm run merge's CLI, the first (a plan that differs) and the last (a file that cannot be read); the
  // others where the CLI meets them (its main, in this process), as the usage errors (exit 2) it prints
  for (const [i, [files, why]] of cases.entries()) {
    if (i !== 0 && i !== cases.length - 1) {
      await assert.rejects(async () => mergeMain([...files, '--out', shardsDir.dir]), (err) => {
        assert.equal(err.exitCode, 2, `${why}: ${err.message}`)
        assert.equal(err.message.split('\n').length, 1, err.message)
        assert.match(err.message, why)
        return true
      })
      continue
    }
    const r = await node(MERGE, [...files, '--out', shardsDir.dir])
    assert.equal(r.exitCode, 2, `${why}: ${r.stderr}`)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, why)
  }
})

// A shard whose counts were scaled by `k` (requests, status codes), and its histograms by `times` copies.
function inflated (report, k, times = 1) {
  const copy = structuredClone(report)
  const r = copy.results[0]
  for (const key of ['sent', 'completed', 'ok']) r.requests[key] *= k
  r.statusCodes = Object.fromEntries(Object.entries(r.statusCodes).map(([code, n]) => [code, n * k]))
  for (const [name, text] of Object.entries(r.histograms)) {
    r.histograms[name] = encodeHistogram(mergeEncoded(Array(times).fill(text)))
  }
  return copy
}

// A shard that sent half its slice: counts halved, a latency histogram of that many samples, no others.
function halved (report) {
  const copy = inflated(report, 0.5)
  const latency = createHistogram()
  for (let i = 0; i < copy.results[0].requests.completed; i++) recordMs(latency, 1)
  copy.results[0].histograms = { latency: encodeHistogram(latency) }
  return copy
}

test('npm run merge checks each shard\'s counts against its histograms and its slice of the plan (issue 30, item 3)', async () => {
  const [a, b] = shardFiles
  const other = JSON.parse(await readFile(b, 'utf8'))
  const save = async (name, report) => {
    const file = join(shardsDir.dir, `counts-${name}.json`)
    await writeFile(file, JSON.stringify(report))
    return file
  }
  const cases = [
    // The probe: sent, completed and ok × 1000, nothing else touched.
    ['x1000', (r) => { for (const k of ['sent', 'completed', 'ok']) r.results[0].requests[k] *= 1000 }, /status codes count 150 answers, completed says 150000/],
    ['codes-too', (r) => Object.assign(r, inflated(r, 1000)), /latency histogram holds 150 samples, completed 150000 \+ timeouts 0 = 150000/],
    // Counts, codes and histograms all agree, but the shard claims ten times its slice of the plan.
    ['all-agree', (r) => Object.assign(r, inflated(r, 10, 10)), /sent 1500, more than its slice of the plan \(300 requests ÷ 2: 150\)/],
    // Half its slice, every count and histogram agreeing (no lag or service histogram to say otherwise).
    ['short', (r) => Object.assign(r, halved(r)), /sent 75, short of its slice of the plan \(300 requests ÷ 2: 150\)/],
    ['negative', (r) => { r.results[0].requests.errors = -1 }, /requests\.errors is -1, not a count/],
    ['unended', (r) => { r.results[0].requests.completed = 0; r.results[0].requests.ok = 0; r.results[0].statusCodes = {} }, /latency histogram holds 150 samples, completed 0/]
  ]
  // the first through npm run merge's CLI; the others through its main in this process (the same one line, exit 2)
  for (const [i, [name, change, why]] of cases.entries()) {
    const copy = structuredClone(other)
    change(copy)
    const args = [a, await save(name, copy), '--out', shardsDir.dir]
    let line
    if (i === 0) {
      const r = await node(MERGE, args)
      assert.equal(r.exitCode, 2, `${name}: ${r.stderr}`)
      line = r.stderr.trim()
    } else {
      const err = await mergeMain(args).then(() => null, (e) => e)
      assert.equal(err?.exitCode, 2, `${name}: ${err?.message}`)
      line = err.message
    }
    assert.equal(line.split('\n').length, 1, line)
    assert.match(line, new RegExp(`counts-${name}\\.json: its counts disagree \\(`), name)
    assert.match(line, why, name)
  }
  assert.equal(countsFault(other), null, 'the shard as written agrees with itself and the plan')
})

test('a shard\'s slice of the plan: the count of its schedule\'s due times, for amounts and constant rates', () => {
  for (const [rate, durationSec, count] of [[3, 1, 2], [100, 2, 2], [400, 0.75, 3], [7, 1.3, 4], [1000 / 3, 0.9, 2]]) {
    for (let index = 1; index <= count; index++) {
      const slice = sliceOf({ shard: { index, count } })
      const schedule = createSchedule({ rate, durationMs: durationSec * 1000, slice })
      let n = 0
      while (schedule.next() !== null) n++
      assert.deepEqual(plannedSlice({ rate, durationSec, amount: null }, { index, count }), { planned: n, spread: 0 }, `${rate}/s × ${durationSec} s, ${index}/${count}`)
    }
  }
  assert.deepEqual(plannedSlice({ rate: 10, amount: 7 }, { index: 3, count: 3 }), { planned: 2, spread: 0 })
})
