// The overload experiment against real servers with sleep-sync work (its service time does not move with
// CPU noise): its steps, shares and recovery as the rules compute them, and every refusal one line with
// exit 2. The shares a run gives are the validate tier's (test/validate/overload.validate.js).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labReport, runLab, tempDir } from '../../helpers/lab.js'
import { OVERLOAD_DEFAULTS, OVERLOAD_QUICK, goodputShareAt, recoveryOf } from '../../../loadtest/result/overload.js'
import { SCHEMA } from '../../../loadtest/result/build.js'
import { MAX_REPORT_BYTES } from '../../../loadtest/report/read.js'
import { execFileSync } from 'node:child_process'
import { planLab } from '../../../loadtest/lab.js'
import { parseOptions } from '../../../loadtest/options.js'

const WORK = 'sleep-sync:20'
// A target of 10 service times (deadline auto: 200 − 2 × 20 = 160 ms). After the burst, at 0.7 × C, a 1 s
// window's p99 is about its slowest answer of 63: at a 100 ms target one answer slowed by other processes
// on the machine put it past the target and the recovery past 2 s (1 test run in 4); at 200 it stays under.
const SLO = 200

// A capacity report as --experiment capacity writes it, reduced to what --capacity-from reads: C for
// queued-threads at sleep-sync:20 (2 threads of 20 ms: an ideal of 100 req/s on 2 cores; the sweep
// finds about 90) at the test's target.
async function capacityFile (dir, { rps = 90, sloMs = SLO, server = 'queued-threads', name = 'capacity.json', runtimes = [null] } = {}) {
  const file = join(dir, name)
  const capacity = { serviceMs: 20, capacity: { rps, sloMs, bound: 'refined' } }
  const results = runtimes.map((label) => ({ kind: 'http', server, variant: null, work: WORK, capacity, runtime: label && { label } }))
  // JSON.stringify writes no Infinity: a number past a double's range (1e309) reads back as one
  const text = JSON.stringify({ kind: 'loadlab-report', schema: SCHEMA, experiment: 'capacity', results })
  await writeFile(file, text.replace('"INFINITY"', '1e309'))
  return file
}

test('overload --quick at 2 × C: the deadline pool keeps goodput, the unbounded pool loses it; recovery', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const input = await tempDir() // the capacity report apart from the one written
  t.after(input.cleanup)
  const from = await capacityFile(input.dir)
  const { json, md, files } = await labReport([
    '--experiment', 'overload', '--quick', '--server', 'queued-threads/deadline', '--work', WORK,
    '--capacity-from', from, '--out', dir, '--threshold', 'queued-threads/deadline:goodput>0.7'
  ])
  const byKey = Object.fromEntries(json.results.map((r) => [r.variant ? `${r.server}/${r.variant}` : r.server, r]))
  // A variant key runs that variant and its base (their C, the unbounded pool beside it), not max-queue.
  assert.deepEqual(Object.keys(byKey).sort(), ['queued-threads', 'queued-threads/deadline'])
  const unbounded = byKey['queued-threads'].overload
  // the variant's flags stand on the target and service time its base's run resolved, passed on
  const flags = byKey['queued-threads/deadline'].args
  assert.equal(flags[flags.indexOf('--slo') + 1], String(unbounded.sloMs), flags.join(' '))
  const deadline = byKey['queued-threads/deadline'].overload
  for (const o of [unbounded, deadline]) {
    assert.equal(o.capacityRps, 90)
    assert.equal(o.sloMs, SLO)
    assert.equal(o.capacityFrom, from)
    assert.deepEqual(o.steps.map((s) => s.multiple), OVERLOAD_QUICK.multiples)
    assert.ok(OVERLOAD_QUICK.multiples.includes(2), 'quick keeps the step the must-show and the threshold read')
    for (const s of o.steps) {
      assert.equal(s.offeredRps, s.multiple * 90)
      const q = s.requests
      assert.ok(q.good <= q.ok && q.ok + q.shed + q.timeouts + q.errors <= q.offered, JSON.stringify(q))
      assert.ok(s.goodputShare >= 0 && s.shedShare >= 0 && s.shedShare <= 1)
      assert.ok(s.wastedCpuShare === null || (s.wastedCpuShare >= 0 && s.wastedCpuShare <= 1))
    }
  }
  const two = (o) => o.steps.find((s) => s.multiple === 2)
  // A step that something else on the machine disturbed (a crowded machine starves the pool's threads and
  // the generator alike) is no evidence of the rule: the lab marks it, in the step and in the reasons.
  for (const [key, o] of [['queued-threads', unbounded], ['queued-threads/deadline', deadline]]) {
    if (!two(o).disturbed) continue
    assert.ok(byKey[key].untrusted.some((x) => /^disturbed past capacity: .*2 × C/.test(x)), byKey[key].untrusted.join('; '))
    t.diagnostic(`${key} at 2 × C was disturbed: ${byKey[key].untrusted.join('; ')}`)
  }
  // what a deadline guarantees: a refusal comes before the target, as the client sees it where nothing
  // else held the generator back (a disturbed step's answers wait on the machine; how much of C each pool
  // keeps, and how much the deadline pool sheds, are this machine's: test/validate/overload.validate.js)
  if (two(deadline).shedShare > 0 && !two(deadline).disturbed) {
    assert.ok(two(deadline).shedP50 < SLO, 'it says so before the target')
  }
  assert.equal(two(unbounded).shedShare, 0, 'the unbounded queue never refuses')
  assert.ok(two(unbounded).timeouts > 0, 'its clients run out of patience instead')
  // After the burst (0.7 → 2 → 0.7 × C) each recovery is the rule's on its own windows (how soon each pool
  // is back, and whether the deadline pool is back first, are this machine's: test/validate/overload.validate.js).
  const windowOf = (o) => o.recovery.windows[1].t - o.recovery.windows[0].t
  const seen = (o) => o.recovery.windows.map((w) => `${w.t / 1000}s: ${w.good}/${w.offered} good, ${w.shed} shed, p99 ${w.p99}`).join('; ')
  for (const o of [deadline, unbounded]) {
    const { windows, burstEndMs, stoppedAtMs } = o.recovery
    const windowMs = windowOf(o)
    const share = OVERLOAD_DEFAULTS.recoveryShare
    const again = recoveryOf(windows, { burstEndMs, sloMs: SLO, windowMs, share, stoppedAtMs })
    assert.deepEqual([o.recovery.ms, o.recovery.metastable], [again.ms, again.metastable], seen(o))
    // a schedule the watch stopped had its recovery confirmed on whole windows: never metastable
    if (stoppedAtMs !== null) assert.equal(o.recovery.metastable, false, seen(o))
  }
  t.diagnostic(`deadline: ${seen(deadline)}; unbounded: ${seen(unbounded)}`)
  assert.ok(deadline.recovery.windows.length >= 5)
  assert.equal(goodputShareAt(byKey['queued-threads/deadline']), two(deadline).goodputShare)
  // the threshold reads the deadline pool's goodput at 2 × C, and passes exactly when it is over 0.7
  const [threshold] = json.thresholds
  assert.deepEqual(threshold.runs.map((r) => r.figure), [two(deadline).goodputShare], JSON.stringify(threshold))
  assert.equal(threshold.status, two(deadline).goodputShare > 0.7 ? 'passed' : 'crossed', JSON.stringify(threshold))
  assert.match(md, /2× goodput/)
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  assert.match(html, /data-chart="goodput"/)
  assert.match(html, /data-chart="burst"/)
})

async function writeText (dir, name, text) {
  await writeFile(join(dir, name), text)
  return join(dir, name)
}

function fifo (dir) {
  execFileSync('mkfifo', [join(dir, 'fifo')])
  return join(dir, 'fifo')
}

const CLI = 'cli'
test('overload refusals: one line, exit 2', { timeout: 180000 }, async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const from = await capacityFile(dir)
  const cases = [
    [['--capacity-from', join(dir, 'none.json')], /^loadlab lab: --capacity-from: .*none\.json: no such file$/, CLI],
    [['--capacity-from', from, '--slo', '50'], new RegExp(`measured queued-threads at a ${SLO} ms target, not --slo 50 ms$`), CLI],
    [['--capacity-from', from, '--server', 'simple'], /has no capacity of simple@sleep-sync:20 \(it has queued-threads@sleep-sync:20\)$/],
    [['--capacity-from', from, '--experiment', 'capacity'], /--capacity-from goes with --experiment overload/],
    [['--server', 'queued-threads/deadline', '--experiment', 'capacity'], /^loadlab lab: --server queued-threads\/deadline: this variant goes with --experiment overload$/],
    // every number read is finite and within the range of the option it stands for
    [['--capacity-from', await capacityFile(dir, { name: 'inf.json', rps: 'INFINITY' })], /capacity\.rps Infinity is not a capacity \(3 × it a --rate\) from 0\.1 to 33333/],
    [['--capacity-from', await capacityFile(dir, { name: 'big.json', rps: 1e7 })], /capacity\.rps 10000000 is not a capacity/],
    [['--capacity-from', await capacityFile(dir, { name: 'slo.json', sloMs: 1e9 })], /capacity\.sloMs 1000000000 is not a p99 target \(--slo, ms\) from 0\.1 to 3600000$/],
    [['--capacity-from', await capacityFile(dir, { name: 'neg.json', sloMs: -5 })], /capacity\.sloMs -5 is not a p99 target/],
    [['--capacity-from', await writeText(dir, 'five.json', '{"results":5}')], /five\.json is not a loadlab report \(expected "kind": "loadlab-report"\)$/],
    [['--capacity-from', '/dev/zero'], /^loadlab lab: --capacity-from: cannot read \/dev\/zero: not a regular file$/],
    [['--capacity-from', fifo(dir)], /^loadlab lab: --capacity-from: cannot read .*fifo: not a regular file$/],
    [['--capacity-from', await writeText(dir, 'huge.json', ' '.repeat(MAX_REPORT_BYTES + 1))], /huge\.json is larger than 64 MiB/],
    // goodput is counted on the lab's thread: no generator threads (a thread can be handed no function)
    [['--rate', '1000', '--generators', '2'], /^loadlab lab: --generators: the overload experiment counts goodput from each answer on the lab's own thread: give 1$/, CLI],
    // keyed by runtime: two runtimes' capacities of one strategy are not silently one
    [['--capacity-from', await capacityFile(dir, { name: 'two.json', runtimes: ['node20', 'bun'] })], /has queued-threads@sleep-sync:20 under 2 runtimes \(node20, bun\): give a report of one$/]
  ]
  // CLI: through the CLI, one of each kind (the report read, held against the run, an option of the
  // experiment), exit 2 and one line; the rest where the CLI meets them, as the usage errors (exit 2) it prints
  for (const [args, message, via] of cases) {
    const all = ['--work', WORK, '--out', dir, ...args]
    if (!args.includes('--experiment')) all.unshift('--experiment', 'overload')
    if (!args.includes('--server')) all.push('--server', 'queued-threads')
    if (via !== CLI) {
      const inline = new RegExp(message.source.replace(/^\^loadlab lab: /, '^'))
      await assert.rejects(async () => planLab(parseOptions(all)), (err) => {
        assert.equal(err.exitCode, 2, `${args.join(' ')}: ${err.message}`)
        assert.equal(err.message.split('\n').length, 1, err.message)
        assert.match(err.message, inline)
        return true
      })
      continue
    }
    const r = await runLab(all)
    assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stderr}`)
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0], message)
  }
})
