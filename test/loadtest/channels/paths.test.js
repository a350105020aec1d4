// Every file the lab hands to a worker, a fork or a pool is found from a checkout whose path has a space
// and non-ASCII letters, a # and a %20 (issue 19, item 20: piscina was given URL.pathname, percent-encoded;
// import() of a plain path cut it at the #). The lab's code is copied there; each dispatch mode makes a
// real call, the lab runs a round with a task, and the servers that start threads, pools or children
// answer a request from that copy.
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { execa } from 'execa'
import { ROOT, startServer } from '../../helpers/server.js'

const base = mkdtempSync(join(tmpdir(), 'loadlab-paths-'))
after(() => rmSync(base, { recursive: true, force: true }))
const copy = join(base, 'my läb #1 ü%20')
// the native addon's build folder is left out: native.test.js may be building in it at the same time
const BUILD = join(ROOT, 'loadtest', 'channels', 'native', 'build')
for (const part of ['loadtest', 'servers', 'package.json']) {
  cpSync(join(ROOT, part), join(copy, part), { recursive: true, filter: (src) => src !== BUILD && !src.startsWith(`${BUILD}/`) })
}
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))

test('each dispatch mode (piscina, shared memory, main) makes a call from a path with a space, "läb", # and %20', async () => {
  const script = join(copy, 'dispatch-once.mjs')
  writeFileSync(script, `import { MODES, NATIVE_MODES, createDispatcher, expectedAnswer, makeId } from './loadtest/channels/index.js'
for (const mode of MODES.filter((m) => !NATIVE_MODES.includes(m))) {
  const d = await createDispatcher(mode, { workers: 1 })
  try {
    const id = makeId(16)
    const got = await d.call(id)
    if (got !== expectedAnswer(id)) throw new Error(mode + ': wrong answer ' + got)
    console.log(mode + ' ok')
  } finally {
    await d.close()
  }
}
`)
  const res = await execa(process.execPath, [script], { cwd: copy, reject: false, timeout: 60_000 })
  assert.equal(res.exitCode, 0, res.stderr)
  assert.deepEqual(res.stdout.split('\n'), ['main ok', 'piscina ok', 'shared ok'])
})

test('the lab run from that path: the task check, calibration and a queued-threads round with --task', async () => {
  cpSync(join(ROOT, 'test', 'fixtures', 'tasks', 'sum.mjs'), join(copy, 'sum.mjs'))
  const out = join(copy, 'reports out')
  const res = await execa(process.execPath, [
    'loadtest/cli.js', '--server', 'queued-threads', '--task', './sum.mjs', '--amount', '30', '--connections', '2',
    '--warmup', '0', '--out', out
  ], { cwd: copy, reject: false, timeout: 120_000, env: { INIT_CWD: copy } })
  assert.equal(res.exitCode, 0, res.stderr)
  const report = JSON.parse(readFileSync(res.stdout.match(/report: (.+\.json)/)?.[1] ?? join(out, readdirSync(out).find((f) => f.endsWith('.json'))), 'utf8'))
  assert.equal(report.results[0].status, 'ok')
  assert.equal(report.results[0].requests.mismatches, 0)
})

const fleet = [
  ['queued-threads', ['--threads', '1']],
  ['worker-per-request', []],
  ['child-process', []],
  ['sleep-variants', ['--variant', 'sync-sleep-pooled']],
  ['long-vs-small-tasks', []]
]
for (const [name, args] of fleet) {
  test(`${name} started from that path answers a request`, async (t) => {
    const srv = await startServer(name, [...args, '--work', 'fib:10'], { entry: join(copy, 'servers', name), cwd: copy })
    t.after(() => srv.stop())
    const res = await fetch(`${srv.url}/`)
    assert.equal(res.status, 200, await res.clone().text())
  })
}
