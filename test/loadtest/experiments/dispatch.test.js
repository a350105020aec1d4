// The dispatch experiment (study 003) and its three modes, run for real: threads, shared memory, piscina.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import pWaitFor from 'p-wait-for'
import experiment, { cases, resolveOptions, runsFor } from '../../../loadtest/experiments/dispatch.js'
import { MODES, UNPOOLED, buildToolsMissing, createDispatcher, expectedAnswer, makeId } from '../../../loadtest/channels/index.js'

// The JS callers (the native caller's modes are tested apart, below).
const JS_MODES = ['main', 'piscina', 'shared']
const POOLED = JS_MODES.filter((m) => !UNPOOLED.includes(m))
// A C compiler here: the quick matrix must then have the native caller's rows.
const compilerHere = (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'cc')))

// Threads of this process, from /proc (read synchronously, so the read starts no libuv thread).
// libuv starts its thread pool on first use (fs, dns, crypto): start it now, so that a baseline taken
// by a test below cannot be undercut by pool threads that appear later and never go away.
await import('node:fs/promises').then((fs) => fs.readFile(new URL(import.meta.url)))

function threads () {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1])
}

// Wait until the thread count is back to `baseline` (worker threads take a moment to be joined).
function threadsBackTo (baseline) {
  return pWaitFor(() => threads() <= baseline, {
    interval: 20,
    timeout: { milliseconds: 15_000, message: new Error(`threads stayed above ${baseline}: ${threads()}`) }
  })
}

// Hooks written to a temporary folder (.mjs, so they load as ES modules outside the repo).
const dir = mkdtempSync(join(tmpdir(), 'loadlab-dispatch-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const throwingHook = join(dir, 'throwing-hook.mjs')
writeFileSync(
  throwingHook,
  `export function resolveId (id) {
  if (id.startsWith('boom')) throw new Error('hook failed on purpose: ' + id)
  if (id === 'die') process.exit(3) // in a worker thread: ends that thread only
  if (id === 'crash') setImmediate(() => { throw new Error('uncaught in the worker') }) // runs once the thread's loop turns
  return 'worker:' + id
}
`
)
const brokenHook = join(dir, 'broken-hook.mjs')
writeFileSync(brokenHook, "throw new Error('this hook cannot be loaded')\n")

let quickResults
let baseline

test('quick matrix: every mode and worker count, every answer checked and correct', async () => {
  const lines = []
  quickResults = await experiment.run({ quick: true }, { progress: (text) => lines.push(text) })
  const o = resolveOptions({ quick: true })
  const nativeHere = !lines.some((l) => /no native caller here/.test(l))
  // A native caller is expected where it can be built: a compiler, node-gyp and this node's headers (Node 22
  // and 24 from the npm registry's node package have no headers; an addon another node built may still load).
  const canBuild = compilerHere && !buildToolsMissing()
  if (canBuild && process.env.LOADLAB_NATIVE !== 'off') assert.ok(nativeHere, lines.find((l) => /native/.test(l)))
  const modes = nativeHere ? MODES : JS_MODES
  const pooled = modes.filter((m) => !UNPOOLED.includes(m))
  const unpooled = modes.filter((m) => UNPOOLED.includes(m))
  const expectedCases = cases(o)
  assert.ok(expectedCases.length >= 3)
  const entries = quickResults.filter((r) => r.kind === 'dispatch')
  assert.equal(entries.length, quickResults.length, 'only dispatch entries')

  for (const c of expectedCases) {
    for (const mode of unpooled) {
      const main = entries.filter((e) => e.mode === mode && e.costMs === c.costMs && e.payloadBytes === c.payloadBytes)
      assert.equal(main.length, 1, `one ${mode} entry for cost ${c.costMs}, payload ${c.payloadBytes}`)
      assert.equal(main[0].workers, 0)
    }
    for (const mode of pooled) {
      for (const w of o.workers) {
        const found = entries.filter(
          (e) => e.mode === mode && e.workers === w && e.costMs === c.costMs && e.payloadBytes === c.payloadBytes
        )
        assert.equal(found.length, 1, `one ${mode} w${w} entry for cost ${c.costMs}, payload ${c.payloadBytes}`)
      }
    }
  }
  assert.equal(entries.length, expectedCases.length * (unpooled.length + pooled.length * o.workers.length))

  for (const e of entries) {
    assert.equal(e.key, `dispatch/${e.mode}/w${e.workers}/c${e.costMs}/p${e.payloadBytes}`)
    assert.ok(MODES.includes(e.mode))
    assert.equal(e.calls, e.costMs === 0 ? o.callsBase : Math.floor(o.callsBase / e.costMs))
    assert.equal(e.status, 'ok')
    assert.equal(e.failure, null)
    assert.equal(e.runs, o.runs)
    assert.equal(e.samplesMs.length, e.runs)
    assert.ok(e.minMs > 0 && e.minMs <= e.meanMs && e.meanMs <= e.maxMs, `${e.key}: min ≤ mean ≤ max`)
    assert.ok(Math.abs(e.perCallUs - (e.meanMs * 1000) / e.calls) < 1e-6)
    // the hook spins for costMs on every call, so no mode can beat calls × cost / workers
    assert.ok(
      e.meanMs >= ((e.calls * e.costMs) / Math.max(1, e.workers)) * 0.95,
      `${e.key}: ${e.meanMs} ms is below the hook's own spin time`
    )
    assert.ok(e.cpuMs === null || e.cpuMs >= 0)
    assert.equal(e.checked, true, `${e.key}: every answer checked and correct`)
    assert.deepEqual(e.answers, { calls: e.calls * e.runs, mismatches: 0, errors: 0, first: null })
    assert.equal(e.trusted, true)
    assert.deepEqual(e.untrusted, [])
    if (UNPOOLED.includes(e.mode)) {
      assert.equal(e.startupMs, null)
    } else {
      // the pool's start-up (spawn until every thread loaded the hook), the same on each of its cases
      assert.equal(e.startupSamplesMs.length, o.startupRuns)
      assert.ok(e.startupMs > 0 && e.startupSamplesMs.every((ms) => ms > 0))
      const sameSamples = entries.filter((x) => x.mode === e.mode && x.workers === e.workers).map((x) => x.startupMs)
      assert.ok(sameSamples.every((ms) => ms === e.startupMs))
    }
  }
  assert.ok(lines.length > entries.length, 'progress reported every case')
  // the estimate comes first, after the native caller's build line when this run built it
  assert.match(lines.find((l) => !/native caller/.test(l)), /expected about \d+ s/)

  const { head, rows } = experiment.table({ results: quickResults })
  assert.ok(head.includes('vs main'))
  assert.equal(
    rows.length,
    entries.length + pooled.length * o.workers.length,
    'a row per case and a start-up row per pool'
  )
  assert.equal(rows.filter((r) => r[0] === 'start-up').length, pooled.length * o.workers.length)
  for (const row of rows) assert.equal(row.length, head.length)
  assert.ok(rows.filter((r) => r[1] === 'main').every((r) => r[7] === '1.00×'))
  // the native caller's rows sit beside the JS ones, each case also against native-main
  if (nativeHere) {
    const col = head.indexOf('vs native-main')
    assert.ok(rows.filter((r) => r[1] === 'native-main').every((r) => r[col] === '1.00×'))
    assert.ok(rows.filter((r) => r[0] !== 'start-up' && r[1].startsWith('native-')).every((r) => /×$/.test(r[col])))
    assert.ok(rows.filter((r) => r[0] !== 'start-up' && !r[1].startsWith('native-')).every((r) => r[col] === ''))
  }
})

test('experiment object: name, study, defaults of the study, quick, run, table', () => {
  assert.equal(experiment.name, 'dispatch')
  assert.equal(experiment.study, '003')
  assert.equal(typeof experiment.title, 'string')
  assert.equal(typeof experiment.description, 'string')
  assert.equal(experiment.defaults.runs, 10)
  assert.deepEqual(experiment.defaults.workers, [1, 4, 8, 16])
  assert.deepEqual(experiment.defaults.costs, [0, 1, 3, 5, 10])
  assert.deepEqual(experiment.defaults.payloads, [30, 1e4, 1e5, 1e6])
  assert.deepEqual(
    cases(resolveOptions({})).map((c) => [c.costMs, c.payloadBytes, c.calls]),
    [
      [0, 30, 1000],
      [1, 30, 1000],
      [3, 30, 333],
      [5, 30, 200],
      [10, 30, 100],
      [10, 1e4, 100],
      [10, 1e5, 100],
      [10, 1e6, 100]
    ]
  )
  // the long cases (about 1 s of spinning per run: main and 1 worker with a cost) run 3 times, the rest 10
  const o = resolveOptions({})
  const [c0, c1] = cases(o)
  assert.deepEqual(
    [runsFor(o, c0, 0), runsFor(o, c0, 1), runsFor(o, c1, 0), runsFor(o, c1, 1), runsFor(o, c1, 4)],
    [10, 10, 3, 3, 10]
  )
  const all = resolveOptions({ longCaseMs: Infinity })
  assert.equal(runsFor(all, c1, 0), 10)
  assert.ok(experiment.notes({}).some((n) => /ran min\(runs, 3\) times/.test(n)))
  assert.equal(experiment.quick.runs, 1)
  assert.throws(() => resolveOptions({ workers: [0] }), /workers/)
  assert.throws(() => resolveOptions({ modes: ['carrier-pigeon'] }), /modes/)
  assert.ok(experiment.estimateMs({}) > experiment.estimateMs({ quick: true }))
})

test('a hook that throws comes back as an error in every JS mode, and the channel keeps working', async () => {
  for (const mode of JS_MODES) {
    const d = await createDispatcher(mode, { workers: 2, hook: throwingHook, maxPayloadBytes: 100 })
    try {
      await assert.rejects(d.call('boom-1'), (err) => {
        assert.ok(err instanceof Error, `${mode}: an Error`)
        assert.match(err.message, /hook failed on purpose: boom-1/, `${mode}: the hook's message`)
        return true
      })
      assert.equal(await d.call('fine'), 'worker:fine', `${mode}: answers after an error`)
      const out = await d.batch('boom-2', 5)
      assert.equal(out.length, 5)
      assert.ok(
        out.every((a) => a instanceof Error && /boom-2/.test(a.message)),
        `${mode}: batch holds the errors`
      )
      const mixed = await Promise.allSettled(['a', 'boom-3', 'b', 'boom-4', 'c'].map((id) => d.call(id)))
      assert.deepEqual(
        mixed.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']
      )
      assert.deepEqual(
        mixed.filter((r) => r.status === 'fulfilled').map((r) => r.value),
        ['worker:a', 'worker:b', 'worker:c']
      )
    } finally {
      await d.close()
    }
  }
})

test('a worker that dies mid-call fails that call, and the pooled modes keep answering', async () => {
  const before = threads()
  for (const mode of POOLED) {
    const d = await createDispatcher(mode, { workers: 2, hook: throwingHook, maxPayloadBytes: 100 })
    try {
      await assert.rejects(d.call('die'), (err) => {
        assert.ok(err instanceof Error)
        if (mode === 'shared') assert.equal(err.code, 'LAB_CHANNEL_WORKER_GONE')
        assert.match(err.message, /exit|ended/, mode)
        return true
      })
      const out = await d.batch('after', 10)
      assert.ok(
        out.every((a) => a === 'worker:after'),
        `${mode}: still answering after a worker died`
      )
    } finally {
      await d.close()
    }
  }
  await threadsBackTo(before)
})

test('a worker that throws outside a call (an uncaught error on its loop) still closes cleanly', async () => {
  const before = threads()
  for (const mode of POOLED) {
    const d = await createDispatcher(mode, { workers: 1, hook: throwingHook, maxPayloadBytes: 100 })
    assert.equal(await d.call('crash'), 'worker:crash', `${mode}: the call itself answered`)
    // Both workers sit in Atomics.wait between calls (piscina's default atomics: 'sync' too), so the
    // error fires only when the thread's loop turns again, at close: close must still resolve.
    await d.close()
    if (mode === 'shared') { assert.match(d.poolErrors[0]?.message ?? '', /uncaught in the worker/, 'the error is kept, not swallowed') }
  }
  await threadsBackTo(before)
})

test('a hook that cannot be loaded fails start-up with a clear error and leaves no thread', async () => {
  const before = threads()
  await assert.rejects(createDispatcher('main', { hook: brokenHook }), /cannot be loaded/)
  for (const mode of POOLED) {
    await assert.rejects(createDispatcher(mode, { workers: 2, hook: brokenHook }), (err) => {
      assert.equal(err.code, 'LAB_CHANNEL_STARTUP', mode)
      assert.match(err.message, /cannot be loaded/, mode)
      return true
    })
  }
  await threadsBackTo(before)
})

test('shared channel: payloads bigger than a page and multi-byte UTF-8 round-trip intact', async () => {
  const d = await createDispatcher('shared', { workers: 2, maxPayloadBytes: 200_000 })
  try {
    const big = makeId(150_000) // ASCII, 36 pages
    const utf8 = 'é€😀ж'.repeat(10_000) // 2 + 3 + 4 + 2 bytes per repeat: 110 000 bytes, surrogate pairs included
    assert.equal(Buffer.byteLength(utf8), 110_000)
    const edge = 'x'.repeat(200_000 - 2) + 'é' // exactly maxPayloadBytes
    const ids = [big, utf8, edge, '', 'a', utf8.slice(0, 5001)]
    const answers = await Promise.all(ids.map((id) => d.call(id)))
    answers.forEach((a, i) =>
      assert.ok(a === expectedAnswer(ids[i]), `id #${i} (${Buffer.byteLength(ids[i])} bytes) came back intact`)
    )
    // larger than the buffer: a clear error, and the channel still answers
    await assert.rejects(
      d.call('y'.repeat(300_000)),
      (err) => err.code === 'LAB_CHANNEL_TOO_LARGE' && /300000 bytes/.test(err.message)
    )
    assert.equal(await d.call(utf8), expectedAnswer(utf8))
    const many = await d.batch(utf8, 50)
    assert.ok(many.every((a) => a === expectedAnswer(utf8)))
  } finally {
    await d.close()
  }
  await assert.rejects(d.call('late'), (err) => err.code === 'LAB_CHANNEL_CLOSED')
})

test('abort via signal stops promptly and leaves no worker thread', async () => {
  // the pooled modes' threads above have all been joined: this is the steady count
  baseline = threads()
  for (const mode of POOLED) {
    const ac = new AbortController()
    let sawStartup = false
    const opts = {
      modes: [mode],
      workers: [2],
      costs: [10],
      payloads: [30],
      runs: 100,
      callsBase: 1000,
      startupRuns: 1,
      longCaseRuns: null
    }
    // 100 runs × 100 calls × 10 ms on 2 workers: about 50 s of work; abort once the pool is up and busy
    const t0 = performance.now()
    const running = experiment.run(opts, {
      signal: ac.signal,
      progress: (text) => {
        if (/start-up/.test(text)) {
          sawStartup = true
          setImmediate(() => ac.abort())
        }
      }
    })
    const results = await running
    const ms = performance.now() - t0
    assert.ok(sawStartup, `${mode}: the pool started before the abort`)
    assert.ok(ms < 30000, `${mode}: run ended ${Math.round(ms)} ms after start, long before its ~50 s of work`)
    assert.ok(Array.isArray(results))
    assert.ok(
      results.every((r) => r.kind !== 'dispatch' || r.runs < opts.runs),
      `${mode}: no complete case after the abort`
    )
    await threadsBackTo(baseline)
  }
  // aborted before it starts: nothing runs, nothing is left
  const ac = new AbortController()
  ac.abort()
  const results = await experiment.run({ quick: true }, { signal: ac.signal })
  assert.deepEqual(
    results.filter((r) => r.kind === 'dispatch' && r.mode !== 'main'),
    []
  )
  await threadsBackTo(baseline)
})

test('closing a dispatcher with calls in flight rejects them and ends every thread', async () => {
  const before = threads()
  for (const mode of POOLED) {
    const d = await createDispatcher(mode, { workers: 2, maxPayloadBytes: 100 })
    assert.ok(threads() >= before + 2, `${mode}: two worker threads running`)
    d.setCost(20)
    const inflight = d.batch('x', 20)
    await d.close()
    const out = await inflight
    assert.equal(out.length, 20)
    assert.ok(
      out.some((a) => a instanceof Error),
      `${mode}: unfinished calls rejected`
    )
    assert.ok(out.every((a) => a === 'worker:x' || a instanceof Error))
    await threadsBackTo(before)
  }
})

// The dispatch experiment's native caller where it cannot be built: LOADLAB_NATIVE_CC and LOADLAB_NATIVE_DIR
// (a fresh folder, so the real build is not reused) simulate a machine without a compiler.
async function withoutCompiler (cc) {
  const saved = { cc: process.env.LOADLAB_NATIVE_CC, dir: process.env.LOADLAB_NATIVE_DIR }
  process.env.LOADLAB_NATIVE_CC = cc
  process.env.LOADLAB_NATIVE_DIR = mkdtempSync(join(dir, 'native-'))
  const lines = []
  const notes = []
  try {
    const results = await experiment.run(
      { workers: [1], costs: [0], payloads: [30], callsBase: 20, runs: 1 },
      { progress: (text) => lines.push(text), note: (text) => notes.push(text) }
    )
    return { results, lines, notes }
  } finally {
    for (const [k, v] of [['LOADLAB_NATIVE_CC', saved.cc], ['LOADLAB_NATIVE_DIR', saved.dir]]) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

// The compiler is looked for once node-gyp and this node's headers are found: without them (Node 22 and 24
// from the npm registry's \`node\` package) a build says that first, and these two have nothing to show.
const noBuildTools = buildToolsMissing()
const needsTools = { skip: noBuildTools ? `a build cannot reach its compiler here: ${noBuildTools}` : false }

test('no compiler: the run says so in one line and runs the JS callers as before', needsTools, async () => {
  const { results, lines, notes } = await withoutCompiler('/nonexistent/cc')
  const said = lines.filter((l) => /native/.test(l))
  assert.deepEqual(said, ['dispatch: no native caller here (no C compiler: /nonexistent/cc not found); running the JS callers only'])
  assert.deepEqual(notes, said, 'the report keeps the line among its notes')
  assert.deepEqual([...new Set(results.map((r) => r.mode))], JS_MODES)
  assert.ok(results.every((r) => r.trusted))
})

test('a compiler that fails: the build\'s reason in one line, and the JS callers still run', needsTools, async () => {
  const { results, lines } = await withoutCompiler('/bin/false')
  const said = lines.filter((l) => /native/.test(l))
  assert.equal(said.length, 1)
  assert.match(said[0], /^dispatch: no native caller here \(build failed: .+\); running the JS callers only$/)
  assert.deepEqual([...new Set(results.map((r) => r.mode))], JS_MODES)
})
