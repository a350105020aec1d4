// The studies heavy-cpu, sleep, long-vs-small and ssr-offload in their --quick form, end to end through the lab
// (`npm run lab -- --experiment NAME --quick`): the report has the study's shape (runs, keys, table) and its
// invariants hold. The four run side by side (each its own servers and report; what each asserts is its
// study's shape, never a figure of the machine), on fewer requests than --quick's where the shape does not
// depend on them (the plans of --quick are checked on built input). dispatch: at the end of this file.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { accounted, labReport, tempDir } from '../../helpers/lab.js'
import { SERVERS as HEAVY } from '../../../loadtest/experiments/heavy-cpu.js'
import { PERCENTILES } from '../../../loadtest/experiments/long-vs-small.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'
import ssrOffload, { cases as offloadCases } from '../../../loadtest/experiments/ssr-offload.js'
import { IMPL_NAMES } from '../../../loadtest/offload/index.js'
import { experimentTable } from '../../../loadtest/report/table.js'

// Run one quick experiment (runLab, in this process) into a temp dir; returns its report (JSON + Markdown).
async function quick (name, extra = []) {
  const out = await tempDir()
  try {
    const { json, md, files } = await labReport(['--experiment', name, '--quick', '--out', out.dir, ...extra])
    assert.equal(json.status, 'complete', JSON.stringify(json.results.map((r) => r.failure).filter(Boolean)))
    assert.ok(
      files.some((f) => f.endsWith('.html')),
      'an HTML page beside the report'
    )
    return { json, md }
  } finally {
    await out.cleanup()
  }
}

// What every HTTP run of every experiment must satisfy: answered, verified, accounted, trusted.
function checkHttpRun (r) {
  assert.equal(r.kind, 'http')
  assert.equal(r.status, 'ok', `${r.key}: ${r.failure?.reason}`)
  assert.equal(accounted(r.requests), r.requests.sent, `${r.key}: counts add up`)
  assert.equal(r.requests.mismatches, 0, `${r.key}: every body verified`)
  // every request answered 2xx; where something else took the machine (the lab marks the run disturbed and
  // untrusted), a request may outlast its timeout instead
  const short = r.requests.sent - r.requests.ok
  if (short > 0) {
    assert.ok(r.disturbed && !r.trusted && r.requests.timeouts === short,
      `${r.key}: ${short} not answered 2xx (${JSON.stringify(r.requests)}, statuses ${JSON.stringify(r.statusCodes)}): ` +
        r.untrusted.join('; '))
  }
  assert.ok(r.latency.min >= 0 && r.latency.max >= r.latency.p50, `${r.key}: latency ordered`)
  // the server counted what it answered; where its stats could not be reset or read (each tried twice: a busy
  // machine), the run says so
  const unread = r.notes.some((n) => /^no telemetry/.test(n))
  assert.ok(
    unread ? r.telemetry === null : r.telemetry?.requests.completed >= r.requests.completed,
    `${r.key}: the server counted what it answered, or the run says why not: ${JSON.stringify(r.telemetry?.requests)} ` +
    `against ${r.requests.completed}; notes ${JSON.stringify(r.notes)}`
  )
}

// The experiment's own table, rendered from the report's results, has one well-formed row per line it prints.
async function checkTable (report, rows) {
  const table = await studyTable(report)
  assert.ok(table, 'the experiment renders its study table from the report')
  assert.equal(table.rows.length, rows)
  for (const row of table.rows) assert.equal(row.length, table.head.length)
}

// The study table of a report, as every renderer draws it (report/table.js experimentTable).
async function studyTable (report) {
  return experimentTable(report, await experimentFor(report.experiment))
}

describe('the studies --quick, side by side', { concurrency: true }, () => {
  test('heavy-cpu --quick: the heavy-CPU servers and the study\'s queued pool as it was, each with recovery and its process tree', async () => {
    const { json } = await quick('heavy-cpu')
    assert.equal(json.experiment, 'heavy-cpu')
    const name = (r) => (r.variant ? `${r.server}/${r.variant}` : r.server)
    assert.deepEqual(
      json.results.map(name),
      HEAVY.flatMap((s) => (s === 'queued-threads' ? [s, 'queued-threads/cancel-off'] : [s]))
    )
    for (const r of json.results) {
      checkHttpRun(r)
      assert.equal(r.key, `${name(r)}@loop:1e6`)
      assert.equal(typeof r.recovery.ms, 'number', `${r.key}: recovery timed`)
      assert.equal(r.recovery.status, 200)
      assert.ok(r.outside.peakProcesses >= 1)
    }
    const byServer = Object.fromEntries(json.results.map((r) => [r.server, r]))
    const cores = json.machine.availableParallelism
    assert.ok(byServer.cluster.outside.peakProcesses >= 1 + cores, 'cluster: a primary and a worker per core')
    assert.ok(byServer['child-process'].outside.peakProcesses >= 2, 'child-process: forked children seen from outside')
    assert.ok(byServer['child-process'].telemetry.gauges.childrenStarted >= byServer['child-process'].requests.completed)
    assert.ok(
      byServer['worker-per-request'].telemetry.gauges.workersStarted >= byServer['worker-per-request'].requests.completed
    )
    assert.ok(json.calibration['loop:1e6'].medianMs > 0)
    const off = json.results.find((r) => r.variant === 'cancel-off')
    assert.ok(off.args.includes('--cancel') && off.args.includes('off'))
    assert.ok(off.telemetry.gauges.abandoned >= 0, 'the cancel-off pool counts the work it did for nobody')
    assert.ok(byServer['queued-processes'].outside.peakProcesses >= 1 + cores, 'queued-processes: its pool seen from outside')
    await checkTable(json, HEAVY.length + 1)
    const { notes } = await studyTable(json)
    // every run says how the two recovered and, over the run, how many clients the cancel-off pool worked for
    assert.match(notes[0], /^queued-threads recovers in .*, the study's pool as it was \(--cancel off\) in .*over the run the cancel-off pool worked for \d+ clients that had left/)
  })

  test('sleep --quick: four variants, then the pooled ones tuned (10 tasks/worker, 1000 ms idle)', async () => {
    // connections 4: two requests a connection are enough for a body verified and a pool's threads seen
    const { json } = await quick('sleep', ['--amount', '8', '--warmup', '0'])
    const keys = json.results.map((r) => r.key)
    assert.deepEqual(keys, [
      'sleep-variants/async-sleep-unpooled@sleep:20',
      'sleep-variants/async-sleep-pooled@sleep:20',
      'sleep-variants/sync-sleep-unpooled@sleep-sync:20',
      'sleep-variants/sync-sleep-pooled@sleep-sync:20',
      'sleep-variants/async-sleep-pooled@sleep:20#t10-i1000',
      'sleep-variants/sync-sleep-pooled@sleep-sync:20#t10-i1000'
    ])
    for (const r of json.results) checkHttpRun(r)
    for (const r of json.results.slice(4)) { assert.ok(r.args.includes('--concurrent-tasks-per-worker') && r.args.includes('10')) }
    // The pooled servers really ran a pool: more threads than their unpooled twins.
    const threads = (k) => json.results.find((r) => r.key === k).outside.peakThreads
    assert.ok(
      threads('sleep-variants/sync-sleep-pooled@sleep-sync:20') >
      threads('sleep-variants/sync-sleep-unpooled@sleep-sync:20')
    )
    await checkTable(json, 6)
    assert.ok((await studyTable(json)).head.includes('vs unpooled'))
  })

  test('long-vs-small --quick: long and small, without and with the API, and the full percentile column', async () => {
    const { json } = await quick('long-vs-small', ['--amount', '8']) // one request a connection
    assert.deepEqual(
      json.results.map((r) => r.variant),
      ['long', 'small', 'long+api', 'small+api']
    )
    for (const r of json.results) {
      checkHttpRun(r)
      const values = PERCENTILES.map((p) => r.latency.percentiles[p])
      assert.ok(
        values.every((v) => typeof v === 'number'),
      `${r.key}: every percentile present`
      )
      for (let i = 1; i < values.length; i++) { assert.ok(values[i] >= values[i - 1], `${r.key}: percentiles non-decreasing`) }
    }
    // With --api on, the API emulator runs as the server's own child process.
    for (const r of json.results.filter((x) => x.variant.endsWith('+api'))) { assert.ok(r.outside.peakProcesses >= 2, `${r.key}: emulator seen`) }
    assert.equal((await studyTable(json)).head.length, 5)
    assert.deepEqual(
      (await studyTable(json)).rows.slice(0, PERCENTILES.length).map((row) => row[0]),
      PERCENTILES
    )
  })

  test('ssr-offload --quick: sync and each pool library in each mode, per concurrency, as the study ran', async () => {
    // the real run on one scenario (--work: the React render, whose answers are compared with sync's); its
    // three scenarios are the plan's, checked in the next test
    const { json } = await quick('ssr-offload', ['--work', 'render:50'])
    assert.equal(json.method.tool, 'in-process')
    const impls = ['sync', 'piscina/threads', 'workerpool/threads', 'workerpool/processes', 'jest-worker/processes', 'jest-worker/threads']
    assert.equal(json.results.length, 2 * impls.length)
    assert.deepEqual([...new Set(json.results.map((r) => r.impl))], impls)
    for (const r of json.results) {
      assert.equal(r.kind, 'offload')
      assert.equal(r.status, 'ok', `${r.key}: ${r.failure?.reason}`)
      assert.equal(r.trusted, true, `${r.key}: ${r.untrusted?.join(', ')}`)
      assert.deepEqual(r.answers, { calls: r.conc, mismatches: 0, errors: 0 }, `${r.key}: every answer equals sync's`)
      assert.equal(typeof r.ticks, 'number')
      assert.ok(r.innerMs >= 0 && r.latencyMs >= r.innerMs * 0.99, `${r.key}: an answer comes after its own work`)
      assert.ok(r.woMs >= r.poolMs + r.batchMs - 1, `${r.key}: WO holds the pool start-up and the batch`)
      assert.ok(r.batchMs >= r.latencyMs, `${r.key}: the batch ends with its last answer`)
      if (r.impl === 'sync') {
        assert.equal(r.poolMs, 0)
        assert.equal(r.workers, 0)
        continue
      }
      assert.equal(r.workersSeen, r.conc, `${r.key}: one worker per execution, each up before the batch`)
      if (r.runsOn === 'processes') assert.equal(r.processesSeen, r.conc, `${r.key}: each worker its own process`)
      else assert.equal(r.processesSeen, 0, `${r.key}: the workers are threads of this process`)
    }
    // sync runs its executions one after another: at c2 its batch is at least two executions long.
    for (const r of json.results.filter((x) => x.impl === 'sync' && x.conc === 2)) {
      assert.ok(r.batchMs >= 2 * r.innerMs * 0.99, `${r.key}: executions one after another`)
    }
    await checkTable(json, 2 * impls.length)
    const table = await studyTable(json)
    assert.deepEqual(table.head, ['Demo', 'Conc', 'Args', 'Impl', 'M loops', 'WI time', 'WO time', 'pool start', 'mean latency', 'W result'])
    assert.ok(table.rows.every((row) => row[9] === 'pass'))
    assert.deepEqual(table.rows.map((row) => row.slice(0, 4)), [1, 2].flatMap((c) => impls.map((i) => ['render', String(c), '50', i])))
  })
})

test('ssr-offload --quick plans each scenario at each concurrency with every implementation, in the study\'s order', () => {
  const all = offloadCases({ ...ssrOffload.defaults, ...ssrOffload.quick })
  const works = ['sleep:10', 'fib:20', 'render:50']
  assert.deepEqual(
    all.map((c) => [c.conc, c.scenario.work, c.impl.name]),
    [1, 2].flatMap((conc) => works.flatMap((w) => IMPL_NAMES.map((i) => [conc, w, i])))
  )
  assert.equal(all.length, 3 * 2 * 6)
})

// dispatch --quick has its real runs elsewhere, not a third here: its whole matrix with every answer checked
// (experiments/dispatch.test.js, the experiment run directly) and through the lab's CLI (hardening-studies.test.js).
