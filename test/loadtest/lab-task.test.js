// `npm run lab -- --task ...`: the lab checks the task with one call, calibrates it, runs it through the
// servers with every body verified, and records it (path, file hash, input) in the report and its keys;
// each way a task can fail stops the lab with one line and its exit code, before any server starts.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { MAX_INPUT_BYTES, describeTask } from '../../servers/lib/task-module.js'
import { ROOT, labReport, readReport, runLab, tempDir } from '../helpers/lab.js'
import { planLab } from '../../loadtest/lab.js'
import { parseOptions } from '../../loadtest/options.js'
import { SERVERS as CAPACITY_SERVERS, sweepOrder } from '../../loadtest/experiments/capacity.js'
import { findServer } from '../../loadtest/catalog.js'
import { warmFeed } from '../../loadtest/result/strategies.js'

const TASKS = join(ROOT, 'test', 'fixtures', 'tasks')
const SUM = join(TASKS, 'sum.mjs')
// one request a connection; no warm-up: the bodies are verified against the calibration call's
const AMOUNT = 2
const LIGHT = ['--amount', String(AMOUNT), '--connections', '2', '--warmup', '0']

test('--task runs through the servers: calibrated, bodies verified, task recorded, its hashes in every key', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const input = '{"n": 300000}'
  // the lab in this process (its CLI's exits are the tests below): the task through three strategies
  const { json } = await labReport([
    '--task',
    SUM,
    '--input',
    input,
    '--server',
    'simple,worker-per-request,queued-threads',
    ...LIGHT,
    '--out',
    dir
  ], { html: false })
  assert.equal(json.status, 'complete')
  const task = json.method.task
  const fileSha256 = createHash('sha256').update(readFileSync(SUM)).digest('hex')
  assert.equal(task.path, SUM)
  assert.equal(task.fileSha256, fileSha256)
  const inputSha256 = createHash('sha256').update('{"n":300000}').digest('hex')
  assert.equal(task.inputFrom, 'command line')
  assert.deepEqual(task.input, { n: 300000 })
  assert.equal(task.inputSha256, inputSha256)
  assert.equal(task.expectedFrom, 'calibration call')
  assert.equal(task.spec, `task:sum.mjs@${fileSha256.slice(0, 10)}.${inputSha256.slice(0, 8)}`)
  assert.ok(json.calibration[task.spec].medianMs > 0)
  assert.deepEqual(
    json.results.map((x) => x.key),
    ['simple', 'worker-per-request', 'queued-threads'].map((s) => `${s}@${task.spec}`)
  )
  for (const res of json.results) {
    assert.equal(res.status, 'ok', res.failure?.reason)
    assert.equal(res.requests.ok, AMOUNT)
    assert.equal(res.requests.mismatches, 0)
    // Untrusted only for what the machine did (the suite runs two files at once): no fault of the run's.
    const faults = res.untrusted.filter((x) => !x.startsWith('disturbed:'))
    assert.deepEqual(faults, [], res.untrusted.join('; '))
    assert.ok(!res.notes.some((n) => /first 2xx/.test(n)), 'verified against the checked body')
    assert.ok(res.efficiency > 0)
    assert.equal(typeof res.telemetry.taskSetups, 'number')
  }
})

test("relative --task and --input @file resolve from the user's directory (npm run: INIT_CWD), spaces and non-ASCII", async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const work = join(dir, 'wörk dir')
  mkdirSync(join(work, 'my tâche'), { recursive: true })
  cpSync(join(TASKS, 'task.cjs'), join(work, 'my tâche', 'wörds.cjs'))
  writeFileSync(join(work, 'in put.json'), '{"text": "un deux trois"}')
  const args = [
    '--task',
    './my tâche/wörds.cjs',
    '--input',
    '@in put.json',
    ...LIGHT
  ]
  // The lab resolves the paths before any server starts and hands every server the same absolute path,
  // so each way of starting the lab boots one server (a child process, then threads): both strategies
  // still run the task found there (the servers' own resolution: test/servers/task.test.js).
  // as `npm run lab` does it: cwd is the package root, the user's directory is INIT_CWD; and
  // `node loadtest/cli.js` from that directory (the two side by side, each into its own folder)
  const [r, r2] = await Promise.all([
    runLab([...args, '--server', 'child-process', '--out', join(dir, 'a')], {
      env: { npm_lifecycle_event: 'lab', INIT_CWD: work }
    }),
    runLab([...args, '--server', 'cluster-threads', '--out', join(dir, 'b')], {
      cwd: work,
      env: { npm_lifecycle_event: '' }
    })
  ])
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(r2.exitCode, 0, r2.stderr)
  for (const sub of ['a', 'b']) {
    const { json } = await readReport(join(dir, sub))
    assert.deepEqual(json.results.map((res) => res.server), [sub === 'a' ? 'child-process' : 'cluster-threads'])
    assert.equal(json.method.task.path, join(work, 'my tâche', 'wörds.cjs'))
    assert.equal(json.method.task.inputFrom, join(work, 'in put.json'))
    assert.deepEqual(json.method.task.input, { text: 'un deux trois' })
    for (const res of json.results) {
      assert.equal(res.status, 'ok', res.failure?.reason)
      assert.equal(res.requests.ok, AMOUNT)
      assert.equal(res.requests.mismatches, 0)
    }
  }
})

const CLI = 'cli'
test("a task's failures stop the lab before any server starts: one line, exit 2 for usage, 1 for the task", async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const base = ['--server', 'simple', '--amount', '2', '--connections', '1', '--timeout', '1', '--out', dir]
  // CLI: through the CLI, one of each exit (a usage error, a task that fails its check); the others where the
  // CLI meets them (planLab), as the errors with that exit code it prints
  const cases = [
    [['--task', 'no/such.mjs'], 2, /--task: cannot read .*no\/such\.mjs: no such file$/, CLI],
    [['--task', join(TASKS, 'failing.mjs')], 2, /export default is a number, not a function/],
    [['--task', SUM, '--input', '{x'], 2, /--input: not JSON/],
    [['--task', SUM, '--work', 'fib:3'], 2, /--task excludes --work/],
    [['--input', '{}'], 2, /--input: only with --task/],
    [['--task', join(TASKS, 'setup-throws.mjs')], 1, /setup-throws\.mjs: task setup\(\) failed: no database here$/, CLI],
    [['--task', `${join(TASKS, 'failing.mjs')}#throws`], 1, /#throws: task threw: bad input undefined$/],
    [
      ['--task', `${join(TASKS, 'failing.mjs')}#notJson`],
      1,
      /task result is not JSON-serialisable: Do not know how to serialize a BigInt$/
    ],
    [['--task', `${join(TASKS, 'failing.mjs')}#never`], 1, /task did not settle within 1000 ms$/],
    [
      ['--task', join(TASKS, 'wrong-expected.mjs')],
      1,
      /the result differs from the module's `expected` export \(got \{"answer":41\}, expected \{"answer":42\}\)$/
    ]
  ]
  for (const [args, code, message, via] of cases) {
    if (via !== CLI) {
      await assert.rejects(async () => planLab(parseOptions([...args, ...base])), (err) => {
        assert.equal(err.exitCode, code, `${args.join(' ')}: ${err.message}`)
        assert.equal(err.message.split('\n').length, 1, err.message)
        assert.match(err.message, message)
        return true
      })
      continue
    }
    const r = await runLab([...args, ...base])
    assert.equal(r.exitCode, code, `${args.join(' ')}: ${r.stderr}`)
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0], message)
  }
  assert.deepEqual(readdirSync(dir), [], 'no report: nothing was measured')
})

test("a task's spec (and so its key) changes with its file and its input", () => {
  const a = describeTask({ ref: SUM })
  assert.notEqual(describeTask({ ref: join(TASKS, 'async.mjs#twice') }).spec, a.spec)
  const withInput = describeTask({ ref: SUM, input: '{"n": 5}' })
  assert.notEqual(withInput.spec, a.spec)
  assert.equal(
    describeTask({ ref: SUM, input: '{ "n":5 }' }).spec,
    withInput.spec,
    'the input is hashed as canonical JSON'
  )
  assert.notEqual(describeTask({ ref: SUM, input: '{"n": 6}' }).spec, withInput.spec)
})

test('--task with --experiment capacity: the sweep runs the task on the capacity servers; other experiments refuse it', async () => {
  const { plan, task } = await planLab(parseOptions(['--task', SUM, '--experiment', 'capacity', '--quick']))
  const servers = plan.map((e) => e.server)
  assert.deepEqual(servers, sweepOrder(CAPACITY_SERVERS))
  assert.deepEqual([...servers].sort(), [...CAPACITY_SERVERS].sort(), 'every capacity server, once')
  // the pools first, then the strategies that split connections among warm workers, then the rest
  const rank = servers.map((s) => ({ queue: 0, split: 1 })[warmFeed(findServer(s))] ?? 2)
  assert.deepEqual(rank, [...rank].sort((a, b) => a - b))
  assert.deepEqual(servers.slice(0, 3), ['queued-threads', 'queued-processes', 'cluster'])
  for (const e of plan) {
    assert.equal(e.work, task.spec)
    assert.deepEqual(e.args.slice(0, 2), ['--task', SUM], e.server)
    assert.equal(typeof e.sweep, 'function', 'an open-loop sweep, calibrated on the task')
  }
  assert.throws(() => parseOptions(['--task', SUM, '--experiment', 'heavy-cpu']), (err) =>
    err.exitCode === 2 && /--task goes with --experiment capacity or overload only/.test(err.message))
})

test('--input @/dev/zero, a FIFO or a file over the cap: exit 2 in one line, nothing read forever (item 5)', async (t) => {
  const task = join(ROOT, 'test', 'fixtures', 'tasks', 'sum.mjs')
  // where the CLI meets it (planLab), as the usage error it prints; the CLI's own exit 2 is the test above's
  await assert.rejects(async () => planLab(parseOptions(['--task', task, '--input', '@/dev/zero', '--out', tmpdir()])),
    (err) => {
      assert.equal(err.exitCode, 2, err.message)
      assert.equal(err.message.split('\n').length, 1, err.message)
      assert.match(err.message, /--input: cannot read \/dev\/zero: not a regular file/)
      return true
    })
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const big = join(dir, 'big.json')
  await writeFile(big, '')
  await truncate(big, MAX_INPUT_BYTES + 1) // sparse: no 16 MB written
  assert.throws(() => describeTask({ ref: task, input: `@${big}` }), new RegExp(`larger than ${MAX_INPUT_BYTES} bytes`))
  const fifo = join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  assert.throws(() => describeTask({ ref: task, input: `@${fifo}` }), /not a regular file/, 'a FIFO does not block')
  const ok = join(dir, 'ok.json')
  await writeFile(ok, '{ "n": 3 }')
  assert.equal(describeTask({ ref: task, input: `@${ok}` }).task.inputJson, '{"n":3}')
})
