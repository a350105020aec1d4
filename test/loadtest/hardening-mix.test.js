// Hardening of --mix and of what a --url service receives (issue 48: H1, M1, L1, L2 and the mix probes).
// A mix file a careless user or an attacker writes is refused in one line naming the class and the key,
// exit 2, before any request; a path never leaves --url's origin; a service that does not announce the
// lab's endpoints receives only its mix's requests, in every way of loading.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseOptions } from '../../loadtest/options.js'
import { MAX_CLASSES, MAX_MIX_BYTES, checkMix, requestFactor, weightedCycle } from '../../loadtest/result/mix.js'
import { classPicker } from '../../loadtest/run/generate/classes.js'
import { reasonText } from '../../loadtest/text/reasons.js'
import { runEntry } from '../../loadtest/run/round/runner.js'
import { entryLoad } from '../../loadtest/run/round/load.js'
import { runLab, tempDir } from '../helpers/lab.js'

const cls = (extra) => ({ name: 'a', weight: 1, path: '/x', ...extra })
const mixOf = (...requests) => JSON.stringify({ requests })

// Each fault: the file's text, and what its one line must say (the class and the key).
const FAULTS = [
  ['{"requests": [', /^--mix \S+: not JSON: /],
  ['[]', /expected an object \{ "requests": \[\.\.\.\] \}, got \[\]/],
  ['{"requests": []}', /requests: expected a non-empty array, got \[\]/],
  [mixOf(cls({ weight: 0 })), /requests\[0\] \(a\): weight: expected a number > 0, got 0/],
  [mixOf(cls({ weight: -1 })), /requests\[0\] \(a\): weight: expected a number > 0, got -1/],
  [mixOf(cls({ weight: 'NaN' })), /requests\[0\] \(a\): weight: expected a number > 0, got "NaN"/],
  [mixOf(cls()).replace('"weight":1', '"weight":1e309'), /requests\[0\] \(a\): weight: expected a finite number \(past 1\.8e308 JSON reads Infinity\), got Infinity/],
  [mixOf(cls(), cls({ name: 'b', weight: 1e-300 })), /requests\[1\] \(b\): weight: 1e-300 is under 1\/1000 of the mix's weights/],
  [mixOf(...Array.from({ length: 10000 }, (_, i) => cls({ name: `c${i}` }))), new RegExp(`requests: at most ${MAX_CLASSES} classes, got 10000`)],
  [mixOf(cls({ path: '/x\r\nHost: evil' })), /requests\[0\] \(a\): path: expected printable ASCII without spaces or line breaks/],
  [mixOf(cls({ headers: { 'x-a': 'v\r\nX-B: w' } })), /requests\[0\] \(a\): headers\.x-a: expected printable ASCII on one line/],
  [mixOf(cls({ headers: { 'x-a\nb': 'v' } })), /requests\[0\] \(a\): headers: expected header names that are tokens, got "x-a\\nb"/],
  [mixOf(cls({ path: 'x' })), /requests\[0\] \(a\): path: expected a path starting with \/, got "x"/],
  [mixOf(cls({ path: 'http://127.0.0.1:9/x' })), /requests\[0\] \(a\): path: expected a path starting with \/, not a URL/],
  [mixOf(cls({ path: '//127.0.0.1:9/x' })), /requests\[0\] \(a\): path: a path starting with \/\/ or holding \\ names another host/],
  [mixOf(cls({ path: '/\\127.0.0.1:9/x' })), /requests\[0\] \(a\): path: a path starting with \/\/ or holding \\ names another host/],
  [mixOf(cls({ path: '/a/../x' })), /requests\[0\] \(a\): path: a \. or \.\. segment/],
  [mixOf(cls({ path: '/a/%2E%2e/x' })), /requests\[0\] \(a\): path: a \. or \.\. segment/],
  [mixOf(cls({ path: '/a/./x' })), /requests\[0\] \(a\): path: a \. or \.\. segment/],
  [mixOf(cls({ path: '/frag#x' })), /requests\[0\] \(a\): path: a fragment \(#\) is never sent/],
  [mixOf(cls(), cls()), /requests\[1\] \(a\): name: given twice/],
  [mixOf(cls({ retries: 3 })), /requests\[0\] \(a\): retries: unknown key/],
  [mixOf(cls({ method: 'GET /x HTTP/1.1' })), /requests\[0\] \(a\): method: expected one of GET, POST/],
  [mixOf(cls({ sloMs: 0 })), /requests\[0\] \(a\): sloMs: expected a number of ms > 0, got 0/],
  [mixOf(cls({ sloMs: -5 })), /requests\[0\] \(a\): sloMs: expected a number of ms > 0, got -5/],
  [mixOf(cls({ sloMs: 1e308 })), /requests\[0\] \(a\): sloMs: expected ms from 0\.1 to 3600000 \(as --slo\), got 1e\+308/],
  [mixOf(cls({ path: '/' + 'p'.repeat(9000) })), /requests\[0\] \(a\): path: expected at most 8192 bytes/],
  [mixOf(cls({ headers: { 'x-big': 'v'.repeat(9000) } })), /requests\[0\] \(a\): headers: expected at most 8192 bytes of header lines, got "9009 bytes"/],
  [`{"requests":${'['.repeat(200000)}${']'.repeat(200000)}}`, /requests\[0\]: expected an object, got an array nested too deep to show/],
  [`{"requests":[{"name":"a","weight":1,"path":"/x","headers":${'{"a":'.repeat(100000)}1${'}'.repeat(100000)}}]}`,
    /requests\[0\] \(a\): headers\.a: expected printable ASCII on one line, got an object nested too deep to show/],
  [mixOf(cls({ body: 'x'.repeat(64 * 1024 + 1) })), /requests\[0\] \(a\): body: expected at most 65536 bytes, got "65537 bytes"/]
]

test('--mix faults: one line naming the class and the key, exit 2, for each a careless user or an attacker writes', async () => {
  const { dir, cleanup } = await tempDir()
  try {
    for (const [i, [text, message]] of FAULTS.entries()) {
      const file = join(dir, `m${i}.json`)
      await writeFile(file, text)
      assert.throws(() => parseOptions(['--mix', file]), (err) => {
        assert.equal(err.exitCode, 2, `${text.slice(0, 60)}: ${err.message}`)
        assert.match(err.message, message)
        assert.doesNotMatch(err.message, /\n/, 'one line')
        return true
      }, text.slice(0, 80))
    }
  } finally {
    await cleanup()
  }
})

test('a mix file saved with a byte-order mark is read as its JSON', async () => {
  const { dir, cleanup } = await tempDir()
  try {
    const file = join(dir, 'bom.json')
    await writeFile(file, `\uFEFF${mixOf(cls())}`)
    assert.deepEqual(parseOptions(['--mix', file]).mix.requests.map((c) => c.path), ['/x'])
  } finally {
    await cleanup()
  }
})

test('--mix reads a regular file of bounded size only: /dev/zero, a FIFO, a directory and a 50 MB body are refused at once', async () => {
  const { dir, cleanup } = await tempDir()
  try {
    const fifo = join(dir, 'fifo.json')
    execFileSync('mkfifo', [fifo])
    const big = join(dir, 'big.json')
    await writeFile(big, mixOf(cls({ body: 'x'.repeat(50 * 1024 * 1024) })))
    const cases = [
      ['/dev/zero', /^--mix: cannot read \/dev\/zero: not a regular file$/],
      [fifo, /^--mix: cannot read \S+fifo\.json: not a regular file$/],
      [dir, /^--mix: cannot read \S+: is a directory$/],
      [big, new RegExp(`^--mix: \\S+big\\.json is larger than ${MAX_MIX_BYTES / 1024 / 1024} MiB: not a mix \\(at most 16 classes, bodies of at most 64 KiB\\)$`)]
    ]
    for (const [path, message] of cases) {
      const before = process.memoryUsage().rss
      assert.throws(() => parseOptions(['--mix', path]), (err) => err.exitCode === 2 && message.test(err.message), path)
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, `${path}: read within its bound`)
    }
  } finally {
    await cleanup()
  }
})

test('weights near the largest number: two of 1e308 are half each (never summed to Infinity), in both loops and the sweep', () => {
  const mix = checkMix({ requests: [cls({ weight: 1e308 }), cls({ name: 'b', weight: 1e308, path: '/y' })] }, 'm')
  const pick = classPicker(mix.requests, 7)
  const n = [0, 0]
  for (let i = 0; i < 4000; i++) n[pick(i)]++
  assert.ok(n[0] > 1600 && n[1] > 1600, `open loop: ${n}`)
  const cycle = weightedCycle(mix.requests)
  assert.equal(cycle.filter((k) => k === 0).length, cycle.length / 2, 'closed loop: half each')
  assert.equal(requestFactor(mix), 2.3, 'the sweep: each class half of a step')
  // integer weights keep their exact cycle: 80:20 is four to one in five slots
  assert.deepEqual(weightedCycle(checkMix({ requests: [cls({ weight: 80 }), cls({ name: 'b', weight: 20 })] }, 'm').requests), [0, 0, 1, 0, 0])
})

// A node:http service of the test's own, in this process, that logs every request it receives; with
// `health` it announces the lab's endpoints (a loadlab-strategy header) and answers GET /health with it.
async function loggingService ({ health = null } = {}) {
  const log = []
  const server = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`)
    req.resume()
    if (health) res.setHeader('loadlab-strategy', 'own')
    req.on('end', () => res.end(health && req.url === '/health' ? JSON.stringify(health) : 'ok'))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { log, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

test('a bad --mix through the CLI: exit 2, one line, and the --url service receives nothing', async () => {
  const service = await loggingService()
  const { dir, cleanup } = await tempDir()
  try {
    const file = join(dir, 'other-host.json')
    await writeFile(file, mixOf(cls({ path: `//${service.url.slice(7)}/x` })))
    const fifo = join(dir, 'fifo.json')
    execFileSync('mkfifo', [fifo])
    for (const mix of [file, fifo]) {
      const run = await runLab(['--url', `${service.url}/`, '--mix', mix, '--amount', '5', '--out', dir])
      assert.equal(run.exitCode, 2, run.stderr)
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
      assert.match(run.stderr, /--mix/)
    }
    assert.deepEqual(service.log, [])
  } finally {
    await service.close()
    await cleanup()
  }
})

test('a class path that would name another host (a mix built past its check) goes to --url\'s origin as written: readiness, load and recovery', async () => {
  const target = await loggingService()
  const other = await loggingService()
  try {
    const path = `//${other.url.slice(7)}/x`
    const mix = { name: 'm', hash: '0', builtIn: false, requests: [{ ...cls({ path }), method: 'GET', headers: {}, body: null, sloMs: null, expect: {} }] }
    const load = entryLoad({ server: 'x' }, {
      connections: 2, amount: 6, durationSec: null, timeoutSec: 5, warmup: 0, runs: 1, recovery: true, rate: null, mix
    })
    const record = await runEntry({ server: 'x', work: null }, { ...load, mix }, { signal: new AbortController().signal, url: `${target.url}/` })
    assert.equal(record.failure, null)
    assert.deepEqual(other.log, [], 'the other host received nothing')
    assert.ok(target.log.length >= 8 && target.log.every((l) => l === `GET ${path}`), target.log.join('\n'))
  } finally {
    await target.close()
    await other.close()
  }
})

const entryOf = (mix) => {
  const load = entryLoad({ server: 'x' }, { connections: 2, amount: 6, durationSec: null, timeoutSec: 5, warmup: 0, runs: 1, recovery: true, rate: null })
  return { ...load, mix }
}
const oneClass = { name: 'm', hash: '0', builtIn: false, requests: [{ ...cls(), method: 'GET', headers: {}, body: null, sloMs: null, expect: {} }] }

test('a service that announces the lab\'s endpoints gets /health and the stats calls; one whose /health is not in the lab\'s shape (a strategy with a terminal escape) gets one GET /health and nothing else of the lab\'s', async () => {
  const lab = await loggingService({ health: { status: 'ok', strategy: 'own', node: process.version } })
  const odd = await loggingService({ health: { status: 'ok', strategy: '\u001b[2Jown', node: process.version } })
  try {
    const signal = new AbortController().signal
    const a = await runEntry({ server: 'x', work: null }, entryOf(oneClass), { signal, url: `${lab.url}/` })
    assert.equal(a.entry.server, 'own', 'named by its strategy')
    assert.ok(lab.log.includes('GET /health') && lab.log.includes('POST /__lab/stats/reset'), lab.log.join('\n'))
    const b = await runEntry({ server: 'x', work: null }, entryOf(oneClass), { signal, url: `${odd.url}/` })
    assert.equal(b.entry.server, 'x')
    const said = b.notes.map(reasonText) // the run's notes are codes, worded in text/
    assert.ok(said.some((n) => /sent loadlab-strategy but GET \/health did not answer in the lab's shape/.test(n)),
      said.join('\n'))
    assert.ok(b.notes.some((n) => n.code === 'url-health-shape'))
    assert.deepEqual([...new Set(odd.log)].sort(), ['GET /health', 'GET /x'])
    assert.equal(odd.log.filter((l) => l === 'GET /health').length, 1)
  } finally {
    await lab.close()
    await odd.close()
  }
})

// A --url capacity --quick sweep with a two-class mix, the service's own log holding only the mix's requests,
// each with a User-Agent and no Connection: close: checked on mix-url.test.js's sweep (the same run, made once).
