// The study libraries and the native caller when things break (issue 48, item 5, L6): ssr-offload with a
// pool worker killed mid-case (that case fails with the library's own reason, in its row of the table the
// terminal prints; the other rows are measured); dispatch with LOADLAB_NATIVE_CC pointing nowhere (one
// line on the terminal and in the notes, the JS callers measured) and LOADLAB_NATIVE_DIR where nothing can
// be made (a reason at once: Node's recursive mkdir spun for ever under /proc).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import ssrOffload from '../../loadtest/experiments/ssr-offload.js'
import { loadNativeCaller } from '../../loadtest/channels/native/build.js'
import { processTree } from '../../loadtest/run/watch/sample.js'
import { runLab, tempDir } from '../helpers/lab.js'
import { clip } from '../../loadtest/errors.js'

test('ssr-offload: a pool worker that dies mid-case fails that case with the library\'s reason, shown in its row; the other rows are measured', async () => {
  let killed = null
  const watch = setInterval(() => {
    const child = processTree(process.pid).find((p) => p.pid !== process.pid)
    if (child && killed === null) {
      killed = child.pid
      process.kill(child.pid, 'SIGKILL')
    }
  }, 20)
  const settings = {
    impls: ['workerpool/processes', 'sync'],
    concurrencies: [2],
    scenarios: [{ demo: 'noop', args: '1s', work: 'sleep:1000' }, { demo: 'fib', args: '20', work: 'fib:20' }]
  }
  let results
  try {
    results = await ssrOffload.run({ settings }, {})
  } finally {
    clearInterval(watch)
  }
  assert.ok(killed, 'a pool process was killed')
  const [first, ...rest] = results
  assert.equal(first.impl, 'workerpool/processes')
  assert.equal(first.status, 'failed')
  assert.match(first.failure.reason, /Workerpool Worker terminated Unexpectedly|exit/i)
  assert.equal(rest.length, 3)
  for (const r of rest) assert.ok(r.status === 'ok' && r.trusted, `${r.impl} ${r.work}: ${r.untrusted}`)
  const rows = ssrOffload.table({ results }).rows
  assert.equal(rows[0].at(-1), `FAILED: ${clip(first.failure.reason, 60)}`)
  assert.deepEqual(rows.slice(1).map((r) => r.at(-1)), ['pass', 'pass', 'pass'])
})

test('dispatch: a LOADLAB_NATIVE_DIR where nothing can be made gives its reason at once', async () => {
  for (const [dir, code] of [['/proc/loadlab-nowhere', 'ENOENT'], ['/dev/null/loadlab', 'ENOTDIR']]) {
    const started = performance.now()
    const native = await loadNativeCaller({ off: false, cc: process.execPath, dir })
    assert.equal(native.addon, null)
    // without node-gyp or Node's headers here, that is the reason given first
    assert.match(native.reason, new RegExp(`cannot build in ${dir}: ${code}|node-gyp not found|no Node headers`))
    assert.ok(performance.now() - started < 10000)
  }
})

test('dispatch --quick with LOADLAB_NATIVE_CC pointing nowhere: the skip is said on the terminal, the JS callers are measured', { timeout: 180000 }, async (t) => {
  const out = await tempDir()
  t.after(() => out.cleanup())
  const run = await runLab(['--experiment', 'dispatch', '--quick', '--out', out.dir], {
    env: { LOADLAB_NATIVE_CC: '/nonexistent/cc', LOADLAB_NATIVE_DIR: '/proc/loadlab-nowhere' }
  })
  assert.equal(run.exitCode, 0, run.stderr)
  assert.match(run.stderr, /^dispatch: no native caller here \(.+\); running the JS callers only$/m)
  assert.match(run.stderr, /piscina/)
})
