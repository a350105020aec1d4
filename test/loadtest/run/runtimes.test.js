// --node: servers under another runtime report it, a lab run under two runtimes gives one result per
// server per runtime with the right versions (and compare sets them side by side), a bad --node exits 2
// before anything starts. The other runtime is a provided one the suite's own node is not (installed
// from the npm registry into .runtimes/ when missing, as `npm run runtimes` does).
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { PROVIDED, probeRuntime, resolveRuntimes } from '../../../loadtest/run/runtimes.js'
import { startServer } from '../../../loadtest/run/boot.js'
import { getJson } from '../../../loadtest/run/http.js'
import { splitByRuntime } from '../../../loadtest/compare/compare.js'
import { ROOT, labReport, runLab, tempDir } from '../../helpers/lab.js'

const OWN = process.versions.node.split('.')[0]
const OTHER = Object.keys(PROVIDED).find((m) => m !== OWN)
let other

before(async () => {
  ;[other] = await resolveRuntimes([OTHER])
}, { timeout: 600000 })

test('a provided runtime is the pinned version from the npm registry, in its own folder', async () => {
  assert.equal(other.node, `v${PROVIDED[OTHER]}`)
  assert.equal(other.source, 'provided')
  assert.equal(other.label, `node${OTHER}`)
  assert.match(other.path, new RegExp(`node${OTHER}/node_modules/node/bin/node$`))
  const info = await probeRuntime(other.path)
  assert.deepEqual(info, { node: other.node, v8: other.v8, major: Number(OTHER) })
  assert.notEqual(info.v8, process.versions.v8)
  const [own] = await resolveRuntimes([OWN])
  assert.deepEqual([own.path, own.source, own.node], [process.execPath, 'lab', process.version])
})

test('a server started under another runtime says so: its ready message and /health carry process.version', async (t) => {
  for (const name of ['simple', 'cluster']) {
    const server = await startServer({ entry: join(ROOT, 'servers', name, 'index.js'), execPath: other.path })
    t.after(() => server.stop())
    assert.equal(server.ready.node, other.node, name)
    assert.equal(server.ready.v8, other.v8, name)
    const health = await getJson(`${server.url}/health`, { timeoutMs: 5000 })
    assert.equal(health.status, 200)
    assert.equal(health.json.node, other.node, name)
    assert.equal(health.json.v8, other.v8, name)
  }
})

test('lab --node OWN,OTHER: one result per server per runtime, with its version; compare sets them side by side', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const args = ['--server', 'simple,queued-threads', '--work', 'loop:1e5', '--connections', '2', '--amount', '40']
  const { json, md, files } = await labReport([...args, '--warmup', '0', '--node', `${OWN},${OTHER}`, '--out', dir])
  assert.equal(json.status, 'complete')
  const want = [
    ['simple', process.version],
    ['queued-threads', process.version],
    ['simple', other.node],
    ['queued-threads', other.node]
  ]
  assert.deepEqual(json.results.map((r) => [r.server, r.runtime.node]), want)
  for (const r of json.results) {
    assert.equal(r.status, 'ok')
    assert.equal(r.key, `${r.server}@loop:1e5#${r.runtime.label}`)
    assert.equal(r.runtime.v8, r.runtime.node === process.version ? process.versions.v8 : other.v8)
    assert.equal(r.requests.completed, 40)
    // efficiency from its own runtime's calibration
    assert.equal(r.ideal.serviceMs, json.calibration[`loop:1e5#${r.runtime.label}`].medianMs)
  }
  assert.deepEqual(json.method.runtimes.map((r) => [r.label, r.node, r.source]), [
    [`node${OWN}`, process.version, 'lab'],
    [`node${OTHER}`, other.node, 'provided']
  ])
  assert.equal(json.machine.nodeSupported, '^20.19.0 || ^22.12.0 || ^24.0.0')
  // the table, the Markdown and the page group the runs by runtime
  assert.deepEqual(json.results.length, 4)
  const rows = md.split('\n').filter((l) => /^\| v\d+\./.test(l)).map((l) => l.split(' | ').slice(0, 2).join(' '))
  assert.deepEqual(rows, want.map(([s, v]) => `| ${v} ${s}`))
  assert.match(md, new RegExp(`Servers and calibration under:\\*\\* ${process.version} .*, ${other.node} `))
  const html = await import('node:fs/promises').then((fs) => fs.readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8'))
  assert.match(html, /<th[^>]*>node<\/th>/)
  // compare: one report under two runtimes is two column groups, lined up by the key without the runtime
  const sides = splitByRuntime([{ file: 'r.json', report: json }])
  assert.deepEqual(sides.map((s) => s.report.results.map((r) => r.key)), [
    ['simple@loop:1e5', 'queued-threads@loop:1e5'],
    ['simple@loop:1e5', 'queued-threads@loop:1e5']
  ])
  const file = join(dir, 'runtimes.json')
  await writeFile(file, JSON.stringify(json))
  const cmp = await execa(process.execPath, ['loadtest/compare/cli.js', file], { cwd: ROOT, reject: false })
  assert.equal(cmp.exitCode, 0, cmp.stderr)
  assert.match(cmp.stdout, new RegExp(`\\| \\*\\*A\\*\\* \\(baseline\\) \\| [^|]*${process.version.replaceAll('.', '\\.')} \\|`))
  assert.match(cmp.stdout, new RegExp(`\\| \\*\\*B\\*\\* \\| [^|]*${other.node.replaceAll('.', '\\.')} \\|`))
  assert.match(cmp.stdout, /\| `queued-threads@loop:1e5` \| /)
})

test('a bad --node exits 2 with one line naming what it tried, before any server starts', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const starts = join(dir, 'starts.txt')
  const notNode = join(dir, 'not-node')
  await writeFile(notNode, '#!/bin/sh\necho hello\n', { mode: 0o755 })
  const cases = [
    ['19', /^loadlab lab: --node 19: this project provides Node 20, 22, 24 \(the lab runs v[\d.]+\); give a path/],
    ['latest', /^loadlab lab: --node latest: expected a major version \(20, 22, 24\) or a path to a node binary$/],
    ['./no/such/node', /^loadlab lab: --node \.\/no\/such\/node: no such file \(.*no\/such\/node\)$/],
    [notNode, /^loadlab lab: --node .*not-node: .*not-node is not a working node binary \(/],
    [`${OWN},`, /^loadlab lab: --node: expected a comma-separated list/],
    [`${OWN},${OWN}`, /^loadlab lab: --node \d+: Node v[\d.]+ is already in the list$/]
  ]
  for (const [spec, why] of cases) {
    const r = await runLab(['--server', 'records-start', '--node', spec, '--out', join(dir, 'reports')], {
      env: { LOADLAB_FIXTURE_STARTS: starts }
    })
    assert.equal(r.exitCode, 2, `${spec}: ${r.stderr}`)
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0], why)
  }
  const url = await runLab(['--url', 'http://127.0.0.1:9/', '--node', OWN])
  assert.equal(url.exitCode, 2)
  assert.match(url.stderr, /--node excludes --url/)
  assert.equal(existsSync(starts), false, 'no server was started')
  assert.deepEqual(await readdir(dir), ['not-node'], 'no report written')
})
