// --runtime / --node: servers under another runtime report it, a lab run under two runtimes gives one
// result per server per runtime with the right versions (and compare sets them side by side), every
// strategy answers under Bun and Deno with verified bodies, what a runtime cannot measure is null with
// its reason, a bad --runtime or --node exits 2 before anything starts. The other runtimes are a Node
// line the suite's own node is not, Bun and Deno: installed from the npm registry into .runtimes/ when
// missing by the project's own installer (run/watch/runtimes.js, as `npm run runtimes` does), in before().
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { OTHERS, PROVIDED, probeRuntime, resolveRuntimes } from '../../../../loadtest/run/watch/runtimes.js'
import { startServer } from '../../../../loadtest/run/watch/boot.js'
import { getJson } from '../../../../loadtest/run/generate/http.js'
import { compareReports, splitByRuntime } from '../../../../loadtest/compare/compare.js'
import { planLab } from '../../../../loadtest/lab.js'
import { parseOptions } from '../../../../loadtest/options.js'
import { ROOT, labReport, runLab, tempDir } from '../../../helpers/lab.js'
import { httpReport } from '../../../fixtures/reports.js'

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
import { cpuStrategyNames } from '../../../../loadtest/catalog.js'

// The instruments' check at start (servers/lib/instruments.js): Node trusts both; Bun's and Deno's
// utilisation is a stub; Bun's histogram works (without Node's 10 ms offset); Deno's sees a block now
// and then, so it may pass its three-block check on a rare start: whatever it says, an untrusted one
// carries its reason.
function checkInstrumentsOf (name, { eventLoopDelay, elu }, what) {
  const seen = `${what}: ${JSON.stringify({ eventLoopDelay, elu })}`
  assert.equal(elu.trusted, name === 'node', seen)
  if (name !== 'deno') assert.equal(eventLoopDelay.trusted, true, seen)
  if (name !== 'deno') assert.equal(eventLoopDelay.offsetMs, name === 'node' ? 10 : 0, seen)
  for (const i of [eventLoopDelay, elu]) assert.equal(i.trusted, i.reason === null, seen)
}

const OWN = process.versions.node.split('.')[0]
const OTHER = Object.keys(PROVIDED).find((m) => m !== OWN)
let other, bun, deno

before(async () => {
  ;[other] = await resolveRuntimes([OTHER])
  ;[bun, deno] = await resolveRuntimes(['bun', 'deno'], { flag: '--runtime' })
}, { timeout: 600000 })

test('a provided runtime is the pinned version from the npm registry, in its own folder', async () => {
  assert.equal(other.node, `v${PROVIDED[OTHER]}`)
  assert.equal(other.source, 'provided')
  assert.equal(other.label, `node${OTHER}`)
  assert.match(other.path, new RegExp(`node${OTHER}/node_modules/node/bin/node$`))
  const info = await probeRuntime(other.path)
  assert.deepEqual(info, {
    name: 'node', version: PROVIDED[OTHER], engine: `V8 ${other.v8}`, node: other.node, v8: other.v8, major: Number(OTHER)
  })
  assert.notEqual(info.v8, process.versions.v8)
  const [own] = await resolveRuntimes([OWN])
  assert.deepEqual([own.path, own.source, own.node], [process.execPath, 'lab', process.version])
})

test('bun and deno are the pinned versions from the npm registry, each in its own folder, named as they name themselves', async () => {
  for (const [r, name] of [[bun, 'bun'], [deno, 'deno']]) {
    assert.deepEqual([r.label, r.name, r.version, r.source], [name, name, OTHERS[name].version, 'provided'])
    assert.match(r.path, new RegExp(`\\.runtimes/${name}/node_modules/`))
    assert.deepEqual(r.args, name === 'deno' ? ['run', '-A'] : [])
    // both imitate a Node version that is not theirs and not the lab's
    assert.notEqual(r.node, process.version)
  }
  assert.equal(bun.v8, null, 'Bun runs JavaScriptCore: its process.versions.v8 is an imitation, not recorded')
  assert.match(bun.engine, /^JavaScriptCore \(WebKit [0-9a-f]+\)$/)
  assert.match(deno.engine, /^V8 /)
})

test('a server started under another runtime says so: its ready message and /health carry its name and version', async (t) => {
  const cases = [[other, 'simple'], [other, 'cluster'], [bun, 'simple'], [deno, 'simple']]
  for (const [r, name] of cases) {
    const entry = join(ROOT, 'servers', name, 'index.js')
    const server = await startServer({ entry, execPath: r.path, execArgs: r.args })
    t.after(() => server.stop())
    const what = `${name} under ${r.label}`
    assert.deepEqual(server.ready.runtime, { name: r.name, version: r.version, engine: r.engine }, what)
    assert.equal(server.ready.node, r.node, what)
    assert.equal(server.ready.v8, r.v8, what)
    const health = await getJson(`${server.url}/health`, { timeoutMs: 5000 })
    assert.equal(health.status, 200)
    assert.deepEqual(health.json.runtime, server.ready.runtime, what)
    checkInstrumentsOf(r.name, server.ready.instruments, what)
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
    assert.deepEqual([r.runtime.name, r.runtime.version], ['node', r.runtime.node.slice(1)])
    // Node measures both: the utilisation is a figure, the delay one or a window without a sample
    assert.equal(typeof r.telemetry.elu, 'number')
    assert.equal(r.telemetry.unmeasured.elu, undefined)
    if (r.telemetry.unmeasured.eventLoop) assert.match(r.telemetry.unmeasured.eventLoop, NO_SAMPLE)
    // efficiency from its own runtime's calibration
    assert.equal(r.ideal.serviceMs, json.calibration[`loop:1e5#${r.runtime.label}`].serviceMs)
  }
  assert.deepEqual(json.method.runtimes.map((r) => [r.label, `v${r.version}`, r.source]), [
    [`node${OWN}`, process.version, 'lab'],
    [`node${OTHER}`, other.node, 'provided']
  ])
  assert.equal(json.machine.nodeSupported, PACKAGE.engines.node)
  // the table, the Markdown and the page group the runs by runtime
  assert.deepEqual(json.results.length, 4)
  const rows = md.split('\n').filter((l) => /^\| node \d+\./.test(l)).map((l) => l.split(' | ').slice(0, 2).join(' '))
  assert.deepEqual(rows, want.map(([s, v]) => `| node ${v.slice(1)} ${s}`))
  assert.match(md, new RegExp(`Servers and calibration under:\\*\\* node ${process.versions.node} \\(V8 .*, node ${other.node.slice(1)} `))
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  assert.match(html, /<th[^>]*>runtime<\/th>/)
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
  assert.match(cmp.stdout, new RegExp(`\\| \\*\\*A\\*\\* \\(baseline\\) \\| [^|]*node ${process.versions.node.replaceAll('.', '\\.')} \\|`))
  assert.match(cmp.stdout, new RegExp(`\\| \\*\\*B\\*\\* \\| [^|]*node ${other.node.slice(1).replaceAll('.', '\\.')} \\|`))
  assert.match(cmp.stdout, /\| `queued-threads@loop:1e5` \| /)
})

// The CPU strategies (catalog.js; the two study servers are for their own experiments).
const STRATEGIES = cpuStrategyNames()
// Deno 2.9.6 starts a worker thread of a cluster worker process as a cluster worker too, which throws:
// cluster-threads cannot run under it, and fails as a result with the one line the server answers.
const DENO_CLUSTER_THREADS =
  /^no request answered 2xx \([^)]*\): (could not start a worker: )?process\.connected is not supported in workers$/

test('lab --runtime bun,deno: every strategy answers with verified bodies, or fails as a result with one line', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  // a few requests a server: child-process and worker-per-request start a Bun or Deno per request (1-5 a second)
  const amount = 6
  const args = ['--server', STRATEGIES.join(','), '--work', 'loop:1e5', '--connections', '2', '--amount', `${amount}`,
    '--warmup', '0']
  const { json, md, files } = await labReport([...args, '--runtime', 'bun,deno', '--out', dir])
  assert.deepEqual(json.results.map((r) => `${r.server}#${r.runtime.label}`), [
    ...STRATEGIES.map((s) => `${s}#bun`), ...STRATEGIES.map((s) => `${s}#deno`)
  ])
  for (const r of json.results) {
    const what = `${r.key}: ${r.failure?.reason ?? ''}`
    const want = r.runtime.label === 'bun' ? bun : deno
    // named as the server named itself, not by process.version (26.3.0 under both)
    const { name, version, engine } = r.runtime
    assert.deepEqual([name, version, engine], [want.name, want.version, want.engine], what)
    if (r.server === 'cluster-threads' && r.runtime.name === 'deno') {
      assert.equal(r.status, 'failed', what)
      assert.match(r.failure.reason, DENO_CLUSTER_THREADS)
      continue
    }
    assert.equal(r.status, 'ok', what)
    // every answer 2xx with the expected body (the lab checks each body against loop:1e5's)
    const q = r.requests
    assert.deepEqual([q.completed, q.non2xx, q.mismatches, q.errors], [amount, 0, 0, 0], what)
    checkUnmeasured(r, what)
  }
  // calibrated under each runtime
  assert.equal(json.calibration['loop:1e5#bun'].runtimeName, `bun ${bun.version}`)
  assert.equal(json.calibration['loop:1e5#deno'].runtimeName, `deno ${deno.version}`)
  // the table shows "—" for what a runtime cannot measure, and says why under it
  const simpleDeno = md.split('\n').find((l) => l.startsWith(`| deno ${deno.version} | simple |`))
  assert.ok(simpleDeno, md)
  if (json.results.find((r) => r.key === 'simple@loop:1e5#deno').telemetry.unmeasured.eventLoop) assert.match(simpleDeno, / — /)
  assert.match(md, new RegExp(`^- — ELU \\(event-loop utilisation\\) under bun ${bun.version.replaceAll('.', '\\.')}: not measured \\(at start, eventLoopUtilization read 3 blocks of 50 ms as 0 ms active\\)$`, 'm'))
  assert.match(md, /### Failure: `cluster-threads@loop:1e5#deno`\n\nno request answered 2xx/, 'a failure has its own section')
  // the page: "—" cells with their reason on hover, the reasons under the table
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  assert.match(html, /<span class="muted" title="at start, eventLoopUtilization read 3 blocks of 50 ms as 0 ms active" data-unmeasured="elu">—<\/span>/)
  // (a line per runtime and instrument, in the order the results met them: Bun's event-loop delay may come
  // first, where its start check found it reading wrong on a busy machine)
  assert.match(html, new RegExp(`<ul class="unmeasured">(<li>[^<]*</li>)*<li>— ELU \\(event-loop utilisation\\) under bun ${bun.version.replaceAll('.', '\\.')}: `))
  // compare: the runtimes side by side, and in its notes what each could not measure
  const { notes } = compareReports(splitByRuntime([{ file: 'r.json', report: json }]))
  assert.ok(notes.some((n) => n.startsWith(`A: — ELU (event-loop utilisation) under bun ${bun.version}: not measured`)), notes.join('\n'))
  assert.ok(notes.some((n) => n.startsWith(`B: — ELU (event-loop utilisation) under deno ${deno.version}: not measured`)), notes.join('\n'))
})

const NO_SAMPLE = /^monitorEventLoopDelay took no sample in the window \(/
const DELAY_REASONS =
  /^at start, monitorEventLoopDelay (read 3 blocks of 50 ms as [\d., ]+ ms|took no sample around a 50 ms block)$|^monitorEventLoopDelay took no sample in the window \(/

// Bun's and Deno's utilisation is null with its reason, never 0; Bun's delay histogram is measured;
// wherever a reason is given, its figure is null.
function checkUnmeasured (r, what) {
  const { eventLoop, elu, unmeasured } = r.telemetry
  assert.equal(elu, null, what)
  assert.match(unmeasured.elu, /^at start, eventLoopUtilization read 3 blocks of 50 ms as 0 ms active$/, what)
  // Bun's histogram passes its check (a null can only be a window without a sample); Deno's may not
  if (r.runtime.name === 'bun' && unmeasured.eventLoop) assert.match(unmeasured.eventLoop, NO_SAMPLE, what)
  if (unmeasured.eventLoop) {
    assert.equal(eventLoop, null, what)
    assert.match(unmeasured.eventLoop, DELAY_REASONS, what)
  }
  for (const p of r.telemetry.processes) assert.equal(p.elu, null, `${what}: process ${p.role}`)
}

test('a bad --runtime exits 2 with one line naming what it tried, before any server starts', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const starts = join(dir, 'starts.txt')
  const notRuntime = join(dir, 'not-a-runtime')
  await writeFile(notRuntime, '#!/bin/sh\necho hello\n', { mode: 0o755 })
  const names = 'node20, node22, node24, node26, bun, deno'
  // through the CLI once (exit code 2, one line, nothing started, nothing written): a binary probed and
  // refused, the refusal furthest into the plan; every refusal takes the same way out of the CLI …
  const r = await runLab(['--server', 'records-start', '--runtime', notRuntime, '--out', join(dir, 'reports')], {
    env: { LOADLAB_FIXTURE_STARTS: starts }
  })
  assert.equal(r.exitCode, 2, r.stderr)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr.trim(), /^loadlab lab: --runtime .*not-a-runtime: .*not-a-runtime is not a working node, bun or deno binary \(/)
  assert.equal(existsSync(starts), false, 'no server was started')
  assert.deepEqual(await readdir(dir), ['not-a-runtime'], 'no report written')
  // … and every rule where the CLI meets it, as the usage error (exit 2, one line) it prints
  const planned = [
    [['--runtime', 'bun2'], new RegExp(`^--runtime bun2: expected one of ${names} or a path to a node, bun or deno binary$`)],
    [['--runtime', 'bun', '--url', 'http://127.0.0.1:9/'], /^--runtime excludes --url/],
    [['--runtime', 'node19'], /^--runtime node19: this project provides Node 20, 22, 24, 26 \(the lab runs v[\d.]+\); give a path/],
    [['--runtime', '24'], new RegExp(`^--runtime 24: expected one of ${names} or`)],
    [['--runtime', 'bun,'], /^--runtime: expected a comma-separated list of node20, node22, node24, node26, bun, deno or paths, got/],
    [['--runtime', 'bun,bun'], /^--runtime bun: bun 1\.4\.5 is already in the list$/],
    [['--runtime', './no/such/bun'], /^--runtime \.\/no\/such\/bun: no such file \(.*no\/such\/bun\)$/],
    [['--runtime', 'deno', '--node', OWN], /^--runtime and --node exclude each other: --node 24 is --runtime node24$/],
    [['--node', 'bun'], /^--node bun: expected a major version \(20, 22, 24, 26\) or a path to a node binary$/],
    [['--node', bun.path], /^--node .*bun\.exe: .*bun\.exe is bun, not node \(use --runtime\)$/],
    [['--runtime', 'bun', '--experiment', 'dispatch'], /^--runtime: experiment dispatch runs in-process, without servers$/]
  ]
  for (const [flags, why] of planned) {
    const server = flags.includes('--experiment') || flags.includes('--url') ? [] : ['--server', 'simple']
    await assert.rejects(async () => planLab(parseOptions([...server, ...flags, '--out', join(dir, 'reports')])), (err) => {
      assert.equal(err.exitCode, 2, `${flags.join(' ')}: ${err.message}`)
      assert.match(err.message, why)
      assert.doesNotMatch(err.message, /\n/, 'one line')
      return true
    })
  }
})

test('a bad --node exits 2 with one line naming what it tried, before any server starts', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const starts = join(dir, 'starts.txt')
  const notNode = join(dir, 'not-node')
  await writeFile(notNode, '#!/bin/sh\necho hello\n', { mode: 0o755 })
  // through the CLI once (exit code 2, one line, nothing started, nothing written): one resolved twice, the
  // refusal that comes after a runtime was resolved …
  const r = await runLab(['--server', 'records-start', '--node', `${OWN},${OWN}`, '--out', join(dir, 'reports')], {
    env: { LOADLAB_FIXTURE_STARTS: starts }
  })
  assert.equal(r.exitCode, 2, r.stderr)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr.trim(), /^loadlab lab: --node \d+: Node v[\d.]+ is already in the list$/)
  assert.equal(existsSync(starts), false, 'no server was started')
  assert.deepEqual(await readdir(dir), ['not-node'], 'no report written')
  // … and every rule where the CLI meets it, as the usage error (exit 2, one line) it prints
  const planned = [
    [['--node', notNode], /^--node .*not-node: .*not-node is not a working node binary \(/],
    [['--node', '19'], /^--node 19: this project provides Node 20, 22, 24, 26 \(the lab runs v[\d.]+\); give a path/],
    [['--node', 'latest'], /^--node latest: expected a major version \(20, 22, 24, 26\) or a path to a node binary$/],
    [['--node', './no/such/node'], /^--node \.\/no\/such\/node: no such file \(.*no\/such\/node\)$/],
    [['--node', `${OWN},`], /^--node: expected a comma-separated list/],
    [['--url', 'http://127.0.0.1:9/', '--node', OWN], /--node excludes --url/]
  ]
  for (const [flags, why] of planned) {
    const server = flags.includes('--url') ? [] : ['--server', 'simple']
    await assert.rejects(async () => planLab(parseOptions([...server, ...flags, '--out', join(dir, 'reports')])), (err) => {
      assert.equal(err.exitCode, 2, `${flags.join(' ')}: ${err.message}`)
      assert.match(err.message, why)
      assert.doesNotMatch(err.message, /\n/, 'one line')
      return true
    })
  }
})

test('compare notes servers under different runtimes: Bun beside Node, not a report from before --runtime beside one after', () => {
  const under = (runtime) => {
    const report = httpReport()
    report.results = report.results.map((r) => ({ ...r, runtime }))
    return report
  }
  const before = under({ label: null, node: 'v24.21.0', v8: '13.6', source: null })
  const after = under({ label: null, name: 'node', version: '24.21.0', engine: 'V8 13.6', node: 'v24.21.0', v8: '13.6', source: null })
  const bunNow = under({ label: null, name: 'bun', version: '1.4.5', engine: 'JavaScriptCore', node: 'v26.3.0', v8: null, source: null })
  const notes = (a, b) => compareReports([{ file: 'a.json', report: a }, { file: 'b.json', report: b }]).notes
  assert.equal(notes(before, after).filter((n) => /different runtimes/.test(n)).length, 0)
  const differ = notes(after, bunNow).find((n) => /different runtimes/.test(n))
  assert.match(differ, /^the servers ran under different runtimes \(A v24\.21\.0, B bun 1\.4\.5\): /)
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
