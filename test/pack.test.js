// loadlab in someone else's project: `npm pack`, the tarball installed into a fresh project (its own
// package.json, dependencies from the npm registry), and there `npx loadlab` starts a server by hand, and its
// bin runs the lab on the project's own task, compares the report and refuses a bad subcommand (npx runs the
// same bin: one npx is enough to prove npx finds it, each costs seconds); the API imports by the package's
// name (runLab, startServer and stop() with nothing left) and what its types need is in the tarball (tsc on
// them through the exports map: test/api/types.test.js).
// Needs the npm registry (or a warm npm cache: --prefer-offline); about 20-40 s, most of it the install.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { execa } from 'execa'
import { ROOT, alive, descendants, tempDir } from './helpers/lab.js'

const TASK = `export const input = { n: 2000 }
export default function sum ({ n }) {
  let s = 0
  for (let i = 0; i < n; i++) s += i % 7
  return { sum: s }
}
`
const EXPECTED = { sum: 5995 } // the task's answer for its input, worked out by hand: 285 × 21 + 10

// The environment of a user's shell: no npm script variables of this checkout's own `npm test`
// (INIT_CWD, npm_package_*, npm_config_local_prefix …), this test's node first on PATH.
function userEnv () {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig'])
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== 'INIT_CWD' && (!k.startsWith('npm_') || keep.has(k)))
  )
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`
  return env
}

// stderr without npm's own warnings (a user's npmrc may make npm warn on every command).
const ownLines = (stderr) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'))

// Pack this checkout and install the tarball into a new project in `dir`; returns the project's folder
// and what it cost: { app, tarball, tarballBytes, installMs }.
async function packAndInstall (dir, env) {
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env })
  const [info] = JSON.parse(packed.stdout)
  const app = join(dir, 'my-app')
  mkdirSync(join(app, 'tasks'), { recursive: true })
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', version: '1.0.0', private: true }))
  writeFileSync(join(app, 'tasks', 'x.mjs'), TASK)
  const started = Date.now()
  await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, info.filename)], { cwd: app, env })
  return { app, files: info.files.map((f) => f.path), tarballBytes: info.size, installMs: Date.now() - started }
}

// The installed bin, as npx runs it (node_modules/.bin/loadlab, found once through npx by serverByHand).
function loadlab (app, args, env) {
  return execa(join(app, 'node_modules', '.bin', 'loadlab'), args, { cwd: app, env, reject: false })
}

// `npx loadlab server queued-threads --port 0 --task ./tasks/x.mjs`: read its ready line, one request,
// stop the server by the pid it names; npx (and the bin between) end with it.
async function serverByHand (t, app, env) {
  const npx = execa('npx', ['loadlab', 'server', 'queued-threads', '--port', '0', '--task', './tasks/x.mjs'], {
    cwd: app, env, reject: false, buffer: false
  })
  let serverPid = null
  t.after(() => {
    if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL')
    if (npx.exitCode === null) npx.kill('SIGKILL')
  })
  let seen = ''
  const ready = await new Promise((resolve, reject) => {
    npx.stdout.setEncoding('utf8').on('data', (chunk) => {
      seen += chunk
      const m = /listening on (http:\/\/\S+) \(queued-threads, task:x\.mjs@\w+, pid (\d+)\)/.exec(seen)
      if (m) resolve({ url: m[1], pid: Number(m[2]) })
    })
    npx.on('exit', () => reject(new Error(`loadlab server exited before its ready line: ${seen}`)))
  })
  serverPid = ready.pid
  const res = await fetch(`${ready.url}/`)
  assert.equal(res.status, 200)
  assert.deepEqual(await res.json(), EXPECTED)
  process.kill(ready.pid, 'SIGTERM')
  const end = await npx
  assert.equal(end.exitCode, 0, 'the bin exits as its server did: 0 on SIGTERM')
  assert.equal(alive(ready.pid), false)
}

// The API from the installed package: the import line prints 1 (the lab on its built-in work, out of
// the installed package); startServer('cluster') and stop() leave none of its processes.
async function fromCode (t, app, env) {
  const line = "import { runLab } from 'loadlab'; const r = await runLab({ server: ['simple'], work: 'loop:1e5', " +
    'connections: 2, amount: 20, out: false }); console.log(r.results.length)'
  const one = await execa(process.execPath, ['--input-type=module', '-e', line], { cwd: app, env, reject: false })
  assert.equal(one.exitCode, 0, one.stderr)
  assert.equal(one.stdout, '1')

  const script = "import { startServer } from 'loadlab'; const s = await startServer('cluster', { workers: 2 }); " +
    "console.log(s.pid); await new Promise((resolve) => process.stdin.once('data', resolve)); " +
    'console.log(JSON.stringify(await s.stop()))'
  const child = execa(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env, reject: false, buffer: false })
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const lines = []
  const pid = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      lines.push(...chunk.split('\n').filter(Boolean))
      if (lines.length === 1) resolve(Number(lines[0]))
    })
    child.on('exit', () => reject(new Error('the script exited before its server was up')))
  })
  const tree = [pid, ...descendants(pid)]
  assert.ok(tree.length >= 3, `the cluster's primary and workers: ${tree.join(', ')}`)
  child.stdin.end('stop\n')
  await child
  assert.equal(child.exitCode, 0)
  assert.deepEqual(JSON.parse(lines[1]).leftovers, [])
  assert.deepEqual(tree.filter((p) => alive(p)), [], 'no process of the server left')
}

// What the types need is in the tarball: the exports map's and `types`' declarations, and every file they
// import or reference (tsc on the same exports map and index.d.ts: test/api/types.test.js).
function typesPacked (app, files) {
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules', 'loadlab', 'package.json'), 'utf8'))
  const declared = [pkg.types, pkg.exports['.'].types].map((f) => f.replace(/^\.\//, ''))
  assert.deepEqual(declared, ['index.d.ts', 'index.d.ts'])
  for (const f of new Set(declared)) {
    const dts = readFileSync(join(app, 'node_modules', 'loadlab', f), 'utf8')
    const needs = [...dts.matchAll(/(?:from\s+|import\(|reference path=)['"](\.[^'"]+)['"]/g)].map((m) => m[1])
    for (const n of needs) assert.ok(files.some((p) => p.startsWith(join(dirname(f), n).replace(/\.js$/, ''))), `${f} needs ${n}`)
  }
}

test('pack: npm pack, install into a fresh project, and there loadlab runs, compares, serves (npx), refuses', async (t) => {
  const { dir, cleanup } = await tempDir('loadlab-pack-')
  t.after(cleanup)
  const env = userEnv()
  const { app, files, tarballBytes, installMs } = await packAndInstall(dir, env)
  t.diagnostic(`tarball ${(tarballBytes / 1024).toFixed(0)} kB, ${files.length} files; npm install ${installMs} ms`)
  for (const f of ['bin/loadlab.js', 'index.js', 'index.d.ts', 'report.schema.json', 'servers/simple/index.js']) {
    assert.ok(files.includes(f), `${f} in ${files.join(', ')}`)
  }
  assert.deepEqual(files.filter((f) => /^(test|bench|examples|docs|reports|scripts)\//.test(f)), [], 'only what runs')
  // a count of the code's files drifts with every change: docs/npx.md writes none (npm pack --dry-run lists them)
  assert.doesNotMatch(readFileSync(join(ROOT, 'docs', 'npx.md'), 'utf8'), /\d+ (kB|files)\b/, 'docs/npx.md: no pack size')

  typesPacked(app, files)

  const lab = await loadlab(app, ['--task', './tasks/x.mjs', '--server', 'simple,queued-threads',
    '--amount', '20', '--connections', '2', '--warmup', '0'], env)
  assert.equal(lab.exitCode, 0, lab.stderr)
  const reports = join(app, 'loadlab-reports')
  const json = readdirSync(reports).filter((f) => f.endsWith('.json'))
  assert.equal(json.length, 1, readdirSync(reports).join(', '))
  const report = JSON.parse(readFileSync(join(reports, json[0]), 'utf8'))
  assert.equal(report.method.task.path, join(app, 'tasks', 'x.mjs'))
  assert.deepEqual(report.results.map((r) => r.server), ['simple', 'queued-threads'])
  const versions = { ...report.machine.versions, autocannon: report.method.toolVersion }
  const installed = (name) => JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')).version
  for (const [name, v] of Object.entries(versions)) assert.equal(v, installed(name), `${name}: the version installed beside the lab`)
  for (const r of report.results) {
    assert.equal(r.status, 'ok', r.failure?.reason)
    assert.equal(r.requests.ok, 20, `${r.server}: every request answered 2xx`)
    assert.equal(r.requests.mismatches, 0, `${r.server}: every body verified against the task's own answer`)
  }

  // the Markdown and the page beside it, written with no dev dependency there (no browser, no js-yaml)
  const page = readFileSync(join(reports, json[0].replace(/\.json$/, '.html')), 'utf8')
  assert.match(page, /<svg/, 'the page has its charts inline')
  assert.ok(readdirSync(reports).includes(json[0].replace(/\.json$/, '.md')))
  const dev = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies)
  assert.deepEqual(dev.filter((d) => existsSync(join(app, 'node_modules', d))), [], 'no dev dependency installed')

  const file = join('loadlab-reports', json[0])
  const cmp = await loadlab(app, ['compare', file, file], env)
  assert.equal(cmp.exitCode, 0, cmp.stderr)
  assert.match(cmp.stdout, /queued-threads/)

  await serverByHand(t, app, env)
  await fromCode(t, app, env)

  const bad = await loadlab(app, ['serve'], env)
  assert.equal(bad.exitCode, 2)
  assert.deepEqual(ownLines(bad.stderr), ['loadlab: unknown command "serve"; commands: compare, merge, ab, history, fanout, server, help, or lab options (loadlab help)'])
})
