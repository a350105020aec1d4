// Hardening of the run (issue 19): big bodies, a freeze the probe must see, signals, bad input files,
// bad environment, the task check's bounds. Real servers on real sockets, real child processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import http from 'node:http'
import { once } from 'node:events'
import pWaitFor from 'p-wait-for'
import { setTimeout as delay } from 'node:timers/promises'
import { tmpdir } from 'node:os'
import { execFileSync } from 'node:child_process'
import { chmod, mkdir, truncate, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import { fireRound, startProbe } from '../../loadtest/run/fire.js'
import { bodyReference } from '../../loadtest/run/body.js'
import { probeRuntime } from '../../loadtest/run/runtimes.js'
import { request } from '../../loadtest/run/http.js'
import { startServer } from '../helpers/server.js'
import {
  FIXTURES, ROOT, alive, cmdline, descendants, labReport, readReport, runLab as runCli, startLab, tempDir
} from '../helpers/lab.js'
import { MAX_INPUT_BYTES, describeTask } from '../../servers/lib/task-module.js'

const MB = 1024 * 1024
// The process group of a pid (/proc/PID/stat field 5, after the command in parentheses).
const processGroup = (pid) => Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ')[2])
// The fixture's body (test/fixtures/servers/big-body.js): 64 kB of a repeated phrase, repeated.
function bigBody (bytes) {
  const chunk = Buffer.alloc(64 * 1024, 'loadlab big body ')
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / chunk.length) }, () => chunk)).subarray(0, bytes)
}

test('closed loop: 24 MB bodies are verified as they stream, never held whole (item 4)', async (t) => {
  const bytes = 24 * MB
  const server = await startServer('big-body', [], {
    entry: join(FIXTURES, 'big-body.js'),
    env: { LOADLAB_FIXTURE_BODY_BYTES: String(bytes) }
  })
  t.after(() => server.stop())
  const expected = bodyReference(bigBody(bytes))
  const before = getHeapStatistics().used_heap_size
  let peak = 0
  // Read at each answer, while the finished request's body is still in reach: a body kept whole shows.
  const onRecord = () => {
    peak = Math.max(peak, getHeapStatistics().used_heap_size - before)
  }
  const good = await fireRound({ url: `${server.url}/`, connections: 1, amount: 3, timeoutSec: 20, expected, onRecord })
  assert.equal(good.completed, 3)
  assert.equal(good.mismatches, 0, 'every 24 MB body matches its reference by hash and length')
  assert.deepEqual(good.bodies, { maxBytes: MB, overCap: 3, largestBytes: bytes }, 'each body over the 1 MB cap')
  assert.ok(peak < 12 * MB, `the lab's heap grew by ${(peak / MB).toFixed(1)} MB for 24 MB bodies: bodies kept whole`)
  const bad = await fireRound({ url: `${server.url}/?more=1`, connections: 1, amount: 1, timeoutSec: 20, expected, maxBody: 16 })
  assert.equal(bad.mismatches, 1, 'one byte more is a mismatch')
  assert.equal(bad.mismatchSample, `${bytes + 1} B (expected ${bytes} B, over the cap: only its head kept): loadlab big body`)
  const one = await request(`${server.url}/`, { timeoutMs: 20000, maxBody: 10 })
  assert.deepEqual([one.bytes, one.overCap, one.body], [bytes, true, 'loadlab bi'], 'a single request keeps its head too')
})

test('lab: bodies over --max-body are said in the result and its notes, still verified whole (item 4)', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  process.env.LOADLAB_FIXTURE_BODY_BYTES = '5000'
  t.after(() => delete process.env.LOADLAB_FIXTURE_BODY_BYTES)
  const { json } = await labReport([
    '--server', 'big-body', '--amount', '4', '--connections', '1', '--warmup', '0', '--max-body', '1000', '--out', dir
  ])
  const [r] = json.results
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.requests.mismatches, 0)
  assert.deepEqual(r.bodies, { maxBytes: 1000, overCap: 4, largestBytes: 5000 })
  assert.equal(json.method.maxBody, 1000)
  assert.ok(r.notes.some((n) => n.includes('over --max-body 1000 B')), r.notes.join('; '))
})

test('a bad LOADLAB_BOOT_TIMEOUT_MS or an empty --out: exit 2, one line, before anything starts (items 13, 7)', async () => {
  const args = ['--server', 'simple', '--amount', '4', '--connections', '1', '--warmup', '0']
  for (const value of ['-5', '1e12', 'abc']) {
    const r = await runCli([...args, '--out', tmpdir()], { env: { LOADLAB_BOOT_TIMEOUT_MS: value } })
    assert.equal(r.exitCode, 2, `LOADLAB_BOOT_TIMEOUT_MS=${value}: ${r.stderr}`)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, new RegExp(`LOADLAB_BOOT_TIMEOUT_MS: expected whole milliseconds .*got \`${value}\``))
  }
  const r = await runCli([...args, '--out', ''])
  assert.equal(r.exitCode, 2, r.stderr)
  assert.match(r.stderr, /--out: expected a directory, got an empty value/)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
})

test('--input @/dev/zero, a FIFO or a file over the cap: exit 2 in one line, nothing read forever (item 5)', async (t) => {
  const task = join(ROOT, 'test', 'fixtures', 'tasks', 'sum.mjs')
  const r = await runCli(['--task', task, '--input', '@/dev/zero', '--out', tmpdir()], { timeout: 20000 })
  assert.equal(r.exitCode, 2, r.stderr)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr, /--input: cannot read \/dev\/zero: not a regular file/)
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

test('probe: a /health probe still waiting when the round ends counts the time it waited (item 1)', async (t) => {
  const held = new Set()
  // A server frozen for the whole round: it takes the probe's request and never answers.
  const frozen = http.createServer((req, res) => held.add(res))
  await new Promise((resolve) => frozen.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const res of held) res.destroy()
    frozen.close()
  })
  const probe = startProbe(`http://127.0.0.1:${frozen.address().port}/health`, { intervalMs: 100, timeoutMs: 5000 })
  await delay(800)
  const r = await probe.stop()
  assert.equal(r.abandoned, 1)
  assert.equal(r.latencies.length, 1, 'the cut-off probe is in the latencies')
  assert.ok(r.latencies[0] >= 750, `it counts at least the ${r.latencies[0].toFixed(0)} ms it waited`)
})

test('Ctrl-C to the whole process group (a terminal): a clean partial result, the server not hit (item 2)', async (t) => {
  const out = await tempDir()
  t.after(out.cleanup)
  const args = ['--server', 'simple', '--work', 'sleep:50', '--duration', '3', '--connections', '2', '--warmup', '0']
  // detached: the lab leads its own process group, as a shell's job does (the issue's `setsid`).
  const lab = startLab([...args, '--out', out.dir], { env: { LOADLAB_PROGRESS: '1' }, buffer: false, detached: true })
  let stderr = ''
  lab.stderr.setEncoding('utf8').on('data', (c) => {
    stderr += c
  })
  lab.stdout.resume()
  await pWaitFor(() => /: measuring/.test(stderr) || lab.exitCode !== null, { interval: 50, timeout: 60000 })
  const servers = descendants(lab.pid).filter((pid) => cmdline(pid).includes('servers/simple'))
  assert.equal(servers.length, 1, 'the server runs under the lab')
  assert.notEqual(processGroup(servers[0]), processGroup(lab.pid), 'the server has its own process group')
  await delay(500)
  process.kill(-lab.pid, 'SIGINT')
  const [code] = await once(lab, 'exit')
  assert.equal(code, 130, stderr)
  const { json } = await readReport(out.dir)
  assert.equal(json.status, 'partial')
  const [r] = json.results
  assert.equal(r.status, 'ok', `not failed: ${JSON.stringify(r.failure)}`)
  assert.equal(r.interrupted, true)
  assert.equal(r.requests.errors, 0, 'no connection errors: the server did not take the signal')
  assert.equal(r.requests.non2xx, 0, JSON.stringify(r.statusCodes))
  assert.ok(r.requests.ok > 0)
})

test('task check: a blocking task is refused at --timeout, and Ctrl-C ends the check at once (item 9)', async (t) => {
  const task = join(ROOT, 'test', 'fixtures', 'tasks', 'blocks.mjs')
  const started = Date.now()
  const r = await runCli(['--task', task, '--timeout', '1', '--out', tmpdir()], { timeout: 30000 })
  const tookMs = Date.now() - started
  assert.equal(r.exitCode, 1, r.stderr)
  assert.match(r.stderr, /the check call did not return within 1000 ms \(--timeout; a synchronous loop\?\)/)
  assert.ok(tookMs < 15000, `refused in ${tookMs} ms, not after the 60 s setup bound`)
  for (const group of [false, true]) {
    // group: the terminal's Ctrl-C, to the lab and the check child alike; else to the lab alone
    const lab = startLab(['--task', task, '--timeout', '60', '--out', tmpdir()], { buffer: false, detached: true })
    lab.stderr.resume()
    lab.stdout.resume()
    await pWaitFor(() => descendants(lab.pid).some((pid) => cmdline(pid).includes('calibrate-child')), { interval: 50 })
    const child = descendants(lab.pid).find((pid) => cmdline(pid).includes('calibrate-child'))
    await delay(300) // the check is under way (the task is loaded, its call spinning)
    const sentAt = Date.now()
    process.kill(group ? -lab.pid : lab.pid, 'SIGINT')
    const [code] = await once(lab, 'exit')
    assert.equal(code, 130, `group ${group}`)
    assert.ok(Date.now() - sentAt < 5000, `exit 130 in ${Date.now() - sentAt} ms`)
    await pWaitFor(() => !alive(child), { interval: 50, timeout: 5000 })
  }
})

test('--node: a binary that says v99 but runs another is noted; one that hangs "timed out" (item 17)', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const liar = join(dir, 'node-liar')
  const answer = '{"node":"v99.0.0","v8":"99.0"}'
  await writeFile(liar, `#!/bin/sh\nif [ "$1" = "-p" ]; then echo '${answer}'; exit 0; fi\nexec '${process.execPath}' "$@"\n`)
  await chmod(liar, 0o755)
  const out = join(dir, 'out')
  await mkdir(out)
  const { json } = await labReport([
    '--server', 'simple', '--work', 'loop:1e3', '--node', liar, '--amount', '4', '--connections', '1', '--warmup', '0',
    '--out', out
  ])
  const [r] = json.results
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.runtime.node, process.version, 'what the server reports is recorded')
  const note = `--node node99: the binary said it is v99.0.0, the server reports ${process.version}`
  assert.ok(r.notes.includes(note), r.notes.join('; '))
  const hangs = join(dir, 'node-hangs')
  await writeFile(hangs, '#!/bin/sh\nexec sleep 30\n')
  await chmod(hangs, 0o755)
  await assert.rejects(probeRuntime(hangs, { timeoutMs: 300 }), /^Error: timed out: no answer within 300 ms$/)
})
