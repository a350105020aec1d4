// The package's API (index.js) as a user's script calls it: runLab with the CLI's options in camelCase,
// checked as the CLI checks them; startServer and stop() with nothing left; compareReports giving what its
// CLI prints (mergeReports: below). Real servers, real sockets, small loads.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { compareReports, readReport, runLab, startServer } from '../../index.js'
import { validateReport } from '../../loadtest/report/read.js'
import { processTree } from '../../loadtest/run/watch/sample.js'
import { renderCompareMarkdown } from '../../loadtest/compare/render.js'
import { httpReport } from '../fixtures/reports.js'
import { CLI, ROOT, alive, tempDir } from '../helpers/lab.js'

const SMALL = { server: ['simple'], work: 'loop:1e5', connections: 2, amount: 20 }

test('runLab: the options of the CLI in camelCase; out: false writes nothing; the report follows the schema', async () => {
  const before = readdirSync(join(ROOT, 'reports'))
  const heard = []
  const report = await runLab({ ...SMALL, out: false, warmup: 0 }, { onProgress: (e) => heard.push(e.type) })
  assert.equal(report.results.length, 1)
  const [r] = report.results
  assert.equal(r.status, 'ok', r.failure?.reason)
  assert.equal(r.server, 'simple')
  assert.equal(r.requests.ok, 20)
  assert.equal(report.method.connections, 2)
  assert.equal(report.method.command, 'loadlab --server simple --work loop:1e5 --connections 2 --amount 20 --warmup 0')
  assert.equal(validateReport(report), report)
  assert.ok(heard.includes('done') && !heard.includes('written'), heard.join(', '))
  assert.deepEqual(readdirSync(join(ROOT, 'reports')), before, 'no file written')
})

test('runLab: with out, the JSON, Markdown and page are written as the CLI writes them; readReport reads it back', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  let written = null
  const report = await runLab({ ...SMALL, out: dir, label: 'api test' }, {
    onProgress: (e) => { if (e.type === 'written') written = e }
  })
  assert.deepEqual(readdirSync(dir).sort(), ['json', 'md', 'html'].map((x) => `${report.id}.${x}`).sort())
  assert.deepEqual(written.paths, ['json', 'md', 'html'].map((x) => join(dir, `${report.id}.${x}`)))
  assert.deepEqual(written.errors, [])
  assert.deepEqual(await readReport(written.paths[0]), JSON.parse(JSON.stringify(report)))
  assert.equal(report.label, 'api test')
})

test('runLab: a bad option rejects before anything starts, with the CLI\'s one line and a code', async () => {
  const cases = [
    [{ amount: 'x' }, ['--amount', 'x']],
    [{ server: ['simple', 'nope'] }, ['--server', 'simple,nope']],
    [{ rate: -1, url: 'http://127.0.0.1:9' }, ['--rate', '-1', '--url', 'http://127.0.0.1:9']],
    [{ bogus: 1 }, ['--bogus', '1']],
    [{ amount: 30, duration: 2 }, ['--amount', '30', '--duration', '2']]
  ]
  for (const [options, argv] of cases) {
    const err = await runLab(options).then(() => null, (e) => e)
    assert.ok(err, JSON.stringify(options))
    assert.equal(err.code, 'LAB_USAGE')
    assert.equal(err.exitCode, 2)
    const cli = await execa(process.execPath, [CLI, ...argv], { cwd: ROOT, reject: false })
    assert.equal(cli.exitCode, 2)
    assert.equal(cli.stderr, `loadlab lab: ${err.message}`, 'the same line as the CLI')
  }
  const shape = await runLab({ server: { name: 'simple' } }).then(() => null, (e) => e)
  assert.equal(shape.code, 'LAB_USAGE')
  assert.equal(shape.message, '--server: expected a string, a number, a boolean or an array of them, got object')
  const help = await runLab({ help: true }).then(() => null, (e) => e)
  assert.equal(help.message, '--help: an option of the command line only (runLab returns the report)')
})

test('runLab: the signal stops the run; the report holds what was measured (status partial)', async () => {
  const controller = new AbortController()
  const report = await runLab({ server: ['simple'], work: 'loop:1e5', connections: 2, duration: 30, out: false }, {
    signal: controller.signal,
    onProgress: (e) => { if (e.type === 'round') controller.abort('test') }
  })
  assert.equal(report.status, 'partial')
  assert.ok(report.results[0].durationMs < 30000, `${report.results[0].durationMs} ms`)
})

test('startServer: a fleet server (cluster: a primary and its workers) answers; stop() leaves no process of it', async () => {
  const server = await startServer('cluster', { work: 'loop:1e3', workers: 2 })
  const tree = processTree(server.pid).map((s) => s.pid)
  assert.ok(tree.length >= 3, `primary and 2 workers: ${tree.join(', ')}`)
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  assert.equal(server.strategy, 'cluster')
  const res = await fetch(`${server.url}/`)
  assert.equal(res.status, 200)
  await res.arrayBuffer()
  const end = await server.stop()
  assert.deepEqual(end.leftovers, [])
  assert.deepEqual(tree.filter((pid) => alive(pid)), [], 'no process of the server left')
  const err = await startServer('nope').then(() => null, (e) => e)
  assert.equal(err.code, 'LAB_USAGE')
  assert.match(err.message, /^startServer: unknown server `nope`; allowed: simple, /)
  // a bad flag: the server's own one line (it exits 2), not "exited before it was ready"
  const flag = await startServer('queued-threads', ['--threads', 'x']).then(() => null, (e) => e)
  assert.equal(flag.code, 'LAB_USAGE')
  assert.equal(flag.message, 'startServer: --threads: expected an integer from 1 to 256, got "x"')
})

test('compareReports: the comparison npm run compare renders, from report objects', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const a = httpReport()
  const b = httpReport({ label: 'other' })
  b.results[0].rps = a.results[0].rps / 2
  const files = ['a.json', 'b.json'].map((f) => join(dir, f))
  writeFileSync(files[0], JSON.stringify(a))
  writeFileSync(files[1], JSON.stringify(b))
  const cmp = compareReports([a, b], { names: files, failOn: ['rps:-5%'] })
  assert.equal(cmp.gates[0].runs.filter((r) => r.status === 'regressed').length, 1)
  const cli = await execa(process.execPath, [join(ROOT, 'loadtest', 'compare', 'cli.js'), ...files, '--fail-on', 'rps:-5%'], { reject: false })
  assert.equal(cli.exitCode, 99, cli.stderr)
  assert.equal(`${cli.stdout}\n`, renderCompareMarkdown(cmp))
  const err = (() => { try { compareReports([a, { ...b, status: 'nope' }]) } catch (e) { return e } })()
  assert.equal(err.exitCode, 2)
  assert.match(err.message, /does not follow the report schema: status must be one of/)
})

// mergeReports: the report npm run merge writes from the same two real shards (test/loadtest/merge/merge.test.js,
// whose shards are made once for that file); its example in docs/api.md runs as it stands (docs.test.js).
