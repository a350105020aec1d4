// `npm run ab` as a user runs it: usage errors are one line and exit 2 before anything starts; one
// small real run of two servers, capped at once, writes a report valid against ab.schema.json whose
// pair ran in the seed's order; two URLs receive only the request asked. Figures are this
// machine's: never asserted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { join } from 'node:path'
import { execa } from 'execa'
import Ajv2020 from 'ajv/dist/2020.js'
import { ROOT, tempDir } from '../../helpers/lab.js'
import { pairOrders } from '../../../loadtest/ab/decide.js'
import { checkAbOptions, parseAbArgs } from '../../../loadtest/ab/options.js'
import { abCompare, LabError } from '../../../index.js'

const CLI = join(ROOT, 'loadtest', 'ab', 'cli.js')
const ab = (args) =>
  execa(process.execPath, [CLI, ...args], { cwd: ROOT, reject: false, env: { LOADLAB_RULER: 'off' } })
const validate = new Ajv2020({ allowUnionTypes: true, strict: true })
  .compile(JSON.parse(readFileSync(join(ROOT, 'ab.schema.json'), 'utf8')))

test('ab options: each bad option is a usage error (exit 2) naming the option, before any block', async () => {
  const cases = [
    [['simple'], /expected two things to compare, A and B, got 1/],
    [['simple', 'loop:1e6'], /A is a server and B a work: give two of one kind/],
    [['simple', 'cluster', '--kind', 'nope'], /--kind: expected one of url, runtime, server/],
    [['simple', 'cluster', '--effect', '0.5'], /--effect: expected a number from 1.01/],
    [['simple', 'cluster', '--max-time', '-3'], /--max-time: expected a number from 1/],
    [['simple', 'cluster', '--fail-on', 'efficiency:-5%'], /ab judges rps, p50, p99/],
    [['simple', 'cluster', '--fail-on', 'rps:+5%'], /for rps a regression is a fall/],
    [['loop:1e6', 'loop:2e6', '--work', 'loop:1e6'], /--work: A and B are the works/],
    [['simple', 'cluster', '--server', 'simple'], /--server goes with a task, a work or a runtime/],
    [['simple', 'nope-server'], /cannot tell what `nope-server`/],
    [['simple', 'cluster', '--bogus'], /Unknown option '--bogus'/],
    [['simple', 'cluster', '--seed', '1', '--seed', '2'], /--seed given 2 times/]
  ]
  for (const [args, message] of cases) {
    const err = (() => {
      try {
        checkAbOptions(parseAbArgs(args))
      } catch (e) {
        return e
      }
    })()
    assert.ok(err instanceof LabError, args.join(' '))
    assert.equal(err.exitCode, 2, args.join(' '))
    assert.match(err.message, message)
    assert.doesNotMatch(err.message, /\n/)
  }
  // a task file that is not there: the lab's own check, before any block runs
  await assert.rejects(abCompare({ a: './none-a.mjs', b: './none-b.mjs' }),
    (e) => e.exitCode === 2 && /--task/.test(e.message))
})

test('ab cli: a usage error is one line on stderr and exit 2 (npm run ab and loadlab ab)', async () => {
  const [own, bin] = await Promise.all([
    ab(['simple', 'loop:1e6']),
    execa(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), 'ab', 'simple'],
      { cwd: ROOT, reject: false })
  ])
  for (const r of [own, bin]) {
    assert.equal(r.exitCode, 2, r.stderr)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.equal(r.stdout, '')
  }
  assert.match(own.stderr, /^ab: A is a server and B a work/)
  assert.match(bin.stderr, /^ab: expected two things to compare/)
})

test('ab cli: two servers, capped after one pair: the report\'s fields, its schema and the seed\'s order', async (t) => {
  const { dir: out, cleanup } = await tempDir()
  t.after(cleanup)
  const seed = 7
  const r = await ab(['simple', 'queued-threads', '--work', 'loop:1e5', '-a', '20', '--warmup', '0', '-c', '2',
    '--max-time', '1', '--seed', String(seed), '--json', '--out', out])
  assert.equal(r.exitCode, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  assert.ok(validate(report), JSON.stringify(validate.errors))
  const file = join(out, readdirSync(out)[0])
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), report, 'the file is the JSON')
  assert.equal(report.stopped, 'max-time')
  assert.equal(report.pairs, 1)
  assert.deepEqual([report.a, report.b],
    [{ kind: 'server', name: 'simple' }, { kind: 'server', name: 'queued-threads' }])
  assert.equal(report.settings.seed, seed)
  const order = report.blocks.sort((x, y) => x.position - y.position).map((b) => b.arm).join('')
  assert.equal(order, pairOrders(seed, 1)[0], 'the pair ran in the seed\'s order')
  for (const f of report.figures) {
    assert.equal(f.verdict, 'undecided', 'one pair decides nothing')
    assert.equal(f.pairs, 1)
  }
  assert.match(r.stderr, /figure +B \/ A +interval/)
  assert.match(r.stderr, /stopped: another pair would pass --max-time after 1 pairs/)
})

test('ab cli: two URLs receive only the request asked, nothing of the lab\'s own', async (t) => {
  const seen = []
  const servers = await Promise.all([0, 1].map(async () => {
    const s = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      res.end('ok')
    }).listen(0, '127.0.0.1')
    await once(s, 'listening')
    return s
  }))
  try {
    const [a, b] = servers.map((s) => `http://127.0.0.1:${s.address().port}/api/x?y=1`)
    const { dir: out, cleanup } = await tempDir()
    t.after(cleanup)
    const r = await ab([a, b, '-a', '10', '--warmup', '0', '-c', '1', '--max-time', '1', '--out', out])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.ok(seen.length >= 20, `${seen.length} requests`)
    assert.deepEqual([...new Set(seen)], ['GET /api/x?y=1'])
  } finally {
    for (const s of servers) s.close()
  }
})

test('ab cli: two commands are started on $PORT per block, loaded and stopped', async (t) => {
  const { dir: out, cleanup } = await tempDir()
  t.after(cleanup)
  const service = (word) => `node -e "require('http').createServer((q, s) => s.end('${word}'))` +
    '.listen(process.env.PORT, \'127.0.0.1\')"'
  const r = await ab([service('a'), service('b'), '--kind', 'command', '-a', '10', '--warmup', '0', '-c', '1',
    '--max-time', '1', '--json', '--out', out])
  assert.equal(r.exitCode, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  assert.ok(validate(report), JSON.stringify(validate.errors))
  assert.deepEqual([report.a.kind, report.b.kind], ['command', 'command'])
  assert.equal(report.blocks.length, 2)
  for (const b of report.blocks) assert.equal(b.status, 'ok')
})
