// The lab's options (loadtest/options.js) and the load each entry gets (loadtest/run/round/load.js).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { HELP, INTERNAL_VARIABLES, REPEATABLE, SHORT, parseOptions } from '../../loadtest/options.js'
import { DEFAULTS } from '../../loadtest/settings.js'
import { parseFailOn } from '../../loadtest/compare/compare.js'
import { entryLoad } from '../../loadtest/run/round/load.js'
import { resolvePlan } from '../../loadtest/plan.js'
import { ROOT } from '../../loadtest/catalog.js'
import { join } from 'node:path'
import { existsSync } from 'node:fs'

test('options: defaults, numbers parsed, servers split and expanded', () => {
  const o = parseOptions([
    '--server',
    'simple,queued-threads',
    '--connections',
    '8',
    '--amount',
    '100',
    '--timeout',
    '2.5',
    '--runs',
    '3',
    '--warmup',
    '0'
  ])
  assert.deepEqual(o.server, ['simple', 'queued-threads'])
  assert.equal(o.connections, 8)
  assert.equal(o.amount, 100)
  assert.equal(o.timeout, 2.5)
  assert.equal(o.runs, 3)
  assert.equal(o.warmup, 0)
  assert.equal(o.duration, null)
  assert.equal(o.json, false)
  const none = parseOptions([])
  // not given: null (the experiment's defaults come first), flags and lists as DEFAULTS has them
  for (const k of Object.keys(DEFAULTS)) {
    if (k !== 'out') assert.deepEqual(none[k], typeof DEFAULTS[k] === 'boolean' || Array.isArray(DEFAULTS[k]) ? DEFAULTS[k] : null, k)
  }
  // an experiment that sets nothing gets DEFAULTS, the one home of the lab's defaults
  const load = resolvePlan(none, { defaults: {} }).load
  assert.deepEqual(
    [load.connections, load.arrival, load.seed, load.durationSec, load.timeoutSec, load.maxBody, load.runs,
      load.warmup],
    [DEFAULTS.connections, DEFAULTS.arrival, DEFAULTS.seed, DEFAULTS.duration, DEFAULTS.timeout, DEFAULTS['max-body'], DEFAULTS.runs, DEFAULTS.warmup]
  )
  assert.deepEqual([DEFAULTS.connections, DEFAULTS.seed, DEFAULTS.duration, DEFAULTS.timeout], [10, 1, 10, 10])
  // --out: absent, the checkout's reports/ (these tests run inside it); given, from the user's directory
  assert.equal(none.out, join(ROOT, 'reports'))
  assert.equal(none.cwd, process.cwd())
  assert.equal(parseOptions(['--out', 'r']).out, join(process.cwd(), 'r'))
  const all = parseOptions(['--server', 'all'])
  assert.ok(all.server.includes('simple') && all.server.includes('queued-threads'))
  assert.ok(!all.server.includes('all'))
})

test('options: every bad value is a usage error (exit 2) naming the option', () => {
  const cases = [
    [['--connections', '0'], '--connections'],
    [['--connections', '1e9'], '--connections'],
    [['--amount', 'x'], '--amount'],
    [['--duration', '0'], '--duration'],
    [['--timeout', 'abc'], '--timeout'],
    [['--runs', '0'], '--runs'],
    [['--warmup', '-1'], '--warmup'],
    [['--amount', '5', '--duration', '5'], '--amount and --duration'],
    [['--server', ''], '--server'],
    [['--server', 'simple,nope'], 'unknown server `nope`'],
    [['--experiment', 'zzz'], '--experiment'],
    [['--url', 'not a url'], '--url'],
    [['--url', 'http://127.0.0.1:1', '--server', 'simple'], '--url excludes'],
    [['--work', 'loop'], '--work'],
    [['--label', 'a\nb'], '--label'],
    [['--max-body', '-1'], '--max-body'],
    [['--max-body', '1.5'], '--max-body'],
    [['--out', ''], '--out: expected a directory'],
    [['--out', ' '], '--out: expected a directory'],
    [['--what'], "Unknown option '--what'"],
    [['stray'], 'unexpected argument `stray`']
  ]
  for (const [argv, needle] of cases) {
    assert.throws(
      () => parseOptions(argv),
      (err) => {
        assert.equal(err.exitCode, 2, argv.join(' '))
        assert.equal(err.code, 'LAB_USAGE')
        assert.ok(err.message.includes(needle), `${argv.join(' ')} → ${err.message}`)
        assert.ok(!err.message.includes('\n'), 'one line')
        return true
      }
    )
  }
})

test('load settings: experiment defaults < --quick < user flags; entry values win; amount >= connections', () => {
  const exp = { defaults: { connections: 10, amount: 200, timeoutSec: 10, warmup: 20 }, quick: { amount: 40 } }
  const base = parseOptions([])
  assert.deepEqual(resolvePlan(base, exp).load, {
    connections: 10,
    rate: null,
    userConnections: null,
    arrival: 'constant',
    seed: 1,
    sloMs: null,
    amount: 200,
    durationSec: null,
    timeoutSec: 10,
    maxBody: 1048576,
    warmup: 20,
    runs: 1,
    recovery: true,
    recoveryTimeoutSec: null,
    generators: 1
  })
  const open = resolvePlan(parseOptions(['--rate', '50', '--timeout', '2', '--arrival', 'poisson', '--seed', '7']), exp).load
  assert.deepEqual(
    [open.rate, open.arrival, open.seed, open.connections],
    [50, 'poisson', 7, 100],
    'open loop: the cap covers rate × timeout'
  )
  assert.equal(resolvePlan(parseOptions(['--rate', '50', '--connections', '3']), exp).load.connections, 3)
  assert.equal(resolvePlan(parseOptions(['--quick']), exp).load.amount, 40)
  assert.equal(resolvePlan(parseOptions(['--max-body', '4096']), exp).load.maxBody, 4096)
  const user = resolvePlan(parseOptions(['--duration', '3', '--connections', '2', '--timeout', '1']), exp).load
  assert.equal(user.amount, null)
  assert.equal(user.durationSec, 3)
  assert.equal(user.connections, 2)
  assert.equal(user.timeoutSec, 1)
  const dur = resolvePlan(base, { defaults: { connections: 100, durationSec: 20 } }).load
  assert.equal(dur.durationSec, 20)
  assert.equal(dur.amount, null)
  const e = entryLoad({ server: 'simple', connections: 4, amount: 4 }, resolvePlan(base, exp).load)
  assert.equal(e.connections, 4)
  assert.equal(e.amount, 4)
  assert.equal(e.recoveryTimeoutSec, 10)
  assert.equal(entryLoad({ server: 'simple', recovery: false }, resolvePlan(base, exp).load).recovery, false)
  assert.equal(resolvePlan(base, { defaults: { runs: 10 } }).load.runs, 10, 'an experiment default beats the built-in 1')
  assert.equal(resolvePlan(parseOptions(['--runs', '2']), { defaults: { runs: 10 } }).load.runs, 2)
  assert.throws(
    () => entryLoad({ server: 'simple', connections: 8, amount: 4 }, resolvePlan(base, exp).load),
    (err) => err.exitCode === 2
  )
})

// Options accepted without a word before : hexadecimal numbers, --slo outside the
// capacity experiment, --seed with constant arrivals, an option given twice, an infinite threshold, a
// bare efficiency of 80 (8000 %), and a 100 kB value echoed whole. Each is a usage error (exit 2) in
// one line of bounded length; the forms that mean what they say still parse.
function refused (argv, why) {
  assert.throws(() => parseOptions(argv), (err) => {
    assert.equal(err.exitCode, 2, `${argv.join(' ')}: ${err.stack}`)
    assert.match(err.message, why)
    assert.ok(err.message.length < 600, `${err.message.length} characters`)
    assert.doesNotMatch(err.message, /\n/)
    return true
  }, argv.join(' ').slice(0, 80))
}

test('numbers are decimal: --rate 0x10, 0b1, " 5" and "" are refused; 16, 1e2 and .5 are read', () => {
  for (const v of ['0x10', '0b1', ' 5', '', '1_0']) refused(['--rate', v], /--rate: expected a number from 0\.1 to 100000/)
  refused(['--connections', '0x2'], /--connections: expected an integer/)
  assert.equal(parseOptions(['--rate', '16']).rate, 16)
  assert.equal(parseOptions(['--rate', '1e2']).rate, 100)
  assert.equal(parseOptions(['--rate', '.5']).rate, 0.5)
})

test('--slo goes with the capacity experiment; --seed with poisson arrivals', () => {
  refused(['--slo', '50'], /^--slo goes with --experiment capacity/)
  refused(['--server', 'simple', '--slo', '50'], /^--slo goes with --experiment capacity/)
  assert.equal(parseOptions(['--experiment', 'capacity', '--slo', '50']).slo, 50)
  refused(['--rate', '5', '--seed', '3'], /^--seed goes with --arrival poisson/)
  refused(['--rate', '5', '--arrival', 'constant', '--seed', '3'], /^--seed goes with --arrival poisson/)
  assert.equal(parseOptions(['--rate', '5', '--arrival', 'poisson', '--seed', '3']).seed, 3)
})

test('an option that takes one value, given twice, is refused (the last won silently); --threshold repeats, a flag may', () => {
  refused(['--rate', '5', '--rate', '6'], /^--rate given 2 times \(5, 6\): give it once$/)
  assert.equal(parseOptions(['--quick', '--quick']).quick, true, 'a flag twice means it once')
  refused(['--label', 'a', '--label=b'], /^--label given 2 times \(a, b\)/)
  assert.equal(parseOptions(['--threshold', 'p99<500', '--threshold', 'rps>1']).threshold.length, 2)
})

test('thresholds: 1e999 is refused, a bare efficiency over 1 is refused with the % it would mean; 80% and 0.8 agree', () => {
  refused(['--threshold', 'p99<1e999'], /"p99<1e999": 1e999 is past the largest number/)
  refused(['--threshold', 'efficiency>80'], /efficiency 80 reads as a fraction, 8000 %: write 80% \(or 0\.8\)/)
  const [pct] = parseOptions(['--threshold', 'efficiency>80%']).threshold
  const [frac] = parseOptions(['--threshold', 'efficiency>0.8']).threshold
  assert.equal(pct.value, frac.value)
})

test('a 100 kB value is not echoed whole: the message is clipped and says the length', () => {
  const huge = 'p99<' + '9'.repeat(100_000) + 'x'
  refused(['--threshold', huge], /"p99<9{60,}… \(100007 characters\)/)
  refused(['--rate', '9'.repeat(100_000)], /… \(100000 characters\)/)
  assert.throws(() => parseFailOn('p99:' + '+'.repeat(100_000)), (err) => err.message.length < 600 && /characters\)/.test(err.message))
})

test('--mix: a file checked at the boundary (one line naming the entry and the key, exit 2), or the built-in', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const dir = await mkdtemp(join(tmpdir(), 'loadlab-mix-'))
  try {
    const bad = join(dir, 'bad.json')
    await writeFile(bad, JSON.stringify({ requests: [{ name: 'cheap', weight: 0, path: '/' }] }))
    assert.throws(() => parseOptions(['--url', 'http://127.0.0.1:1/', '--mix', bad]), (err) => {
      assert.equal(err.exitCode, 2)
      assert.equal(err.message, `--mix ${bad}: requests[0] (cheap): weight: expected a number > 0, got 0`)
      return true
    })
    assert.throws(() => parseOptions(['--mix', join(dir, 'none.json')]), { exitCode: 2, message: /^--mix: cannot read .*none\.json: no such file/ })
    const o = parseOptions(['--server', 'simple', '--mix', 'heavy:80,cheap:20'])
    assert.deepEqual(o.mix.requests.map((c) => c.path), ['/', '/cheap'])
    assert.equal(resolvePlan(o, { defaults: {} }).load.mix, o.mix)
    // with a mix, --seed seeds the class stream too (not only a poisson schedule)
    assert.equal(parseOptions(['--server', 'simple', '--mix', 'heavy:80,cheap:20', '--rate', '10', '--seed', '4']).seed, 4)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('short flags: autocannon\'s letters (-R an open loop); the long names stay', () => {
  const short = parseOptions(['--server', 'simple', '-c', '100', '-d', '20', '-t', '3', '-j'])
  const long = parseOptions(['--server', 'simple', '--connections', '100', '--duration', '20', '--timeout', '3', '--json'])
  for (const k of ['connections', 'duration', 'timeout', 'json']) assert.deepEqual(short[k], long[k], k)
  assert.deepEqual([short.connections, short.duration, short.timeout, short.json], [100, 20, 3, true])
  assert.equal(parseOptions(['-a', '20', '-c', '2']).amount, 20)
  assert.equal(parseOptions(['-R', '50']).rate, 50)
  assert.equal(parseOptions(['-c100']).connections, 100, 'the value joined to its letter, as autocannon reads it')
  assert.equal(parseOptions(['-h']).help, true)
  // a short flag is the same option as its long name: given both ways, it is given twice
  refused(['-c', '1', '--connections', '2'], /^--connections given 2 times \(1, 2\): give it once$/)
  // a negative value is checked by its option's rule, under either name
  refused(['-c', '-1'], /^--connections: expected an integer from 1 to 10000, got `-1`/)
  refused(['-x'], /^Unknown option '-x' \(see --help; options: .*-c\/--connections/)
})

test('-m -H -b: one request, made a one-class mix with the --url\'s path and query; refused with --mix', () => {
  const o = parseOptions(['--url', 'http://127.0.0.1:1/api/x?q=1', '-m', 'post', '-H', 'content-type: application/json',
    '-H', 'x-team:lab', '-b', '{"n":1}'])
  assert.equal(o.mix.requests.length, 1)
  const [c] = o.mix.requests
  assert.deepEqual({ method: c.method, path: c.path, headers: c.headers, body: c.body, weight: c.weight },
    { method: 'POST', path: '/api/x?q=1', headers: { 'content-type': 'application/json', 'x-team': 'lab' }, body: '{"n":1}', weight: 1 })
  assert.equal(resolvePlan(o, { defaults: {} }).load.mix, o.mix, 'every loop gets it as it gets a mix')
  // only a header: GET of the URL as given, the header on it; no flag of the three: no mix
  const h = parseOptions(['--url', 'http://127.0.0.1:1/', '-H', 'authorization: Bearer x']).mix.requests[0]
  assert.deepEqual([h.method, h.path, h.body, h.headers], ['GET', '/', null, { authorization: 'Bearer x' }])
  assert.equal(parseOptions(['--url', 'http://127.0.0.1:1/']).mix, null)
  assert.deepEqual(parseOptions(['--server', 'simple', '-b', 'x']).mix.requests[0].path, '/', 'a lab server: its /')
  refused(['--url', 'http://127.0.0.1:1/', '--mix', 'heavy:80,cheap:20', '-m', 'POST'], /^-m excludes --mix/)
  refused(['--url', 'http://127.0.0.1:1/', '-m', 'HEAD'], /^-m\/--method: expected one of GET, POST/)
  refused(['--url', 'http://127.0.0.1:1/', '-H', 'no-colon'], /^-H\/--header: expected 'NAME: VALUE'/)
  refused(['--url', 'http://127.0.0.1:1/', '-H', 'a: 1', '-H', 'A: 2'], /^-H\/--header: A given twice/)
  refused(['--url', 'http://127.0.0.1:1/', '-H', 'Host: x'], /^-H: headers\.Host: set by the lab itself/)
  refused(['--url', 'http://127.0.0.1:1/', '-b', 'x'.repeat(70 * 1024)], /^-b: body: expected at most 65536 bytes/)
  // -H repeats (each header kept, in order), as --threshold does: the library turns an array into repeats
  assert.deepEqual([...REPEATABLE].sort(), ['header', 'threshold'])
})

test('--help: examples first, then the groups; at most 80 lines, none over 100 columns; no test-only variable', () => {
  const lines = HELP.replace(/\n$/, '').split('\n')
  assert.ok(lines.length <= 80, `${lines.length} lines`)
  const wide = lines.filter((l) => l.length > 100)
  assert.deepEqual(wide, [], 'no line over 100 columns')
  const headings = lines.filter((l) => /^[A-Z][^:]*( \([^)]*\))?:$/.test(l)).map((l) => l.replace(/ \(.*\)/, '').slice(0, -1))
  assert.deepEqual(headings, ['Examples', 'What to run', 'Load', 'Open loop', 'Capacity and decision', 'Your own work', 'Output'])
  // every option, by its long name, and each short flag beside its long name
  for (const k of Object.keys(DEFAULTS)) assert.match(HELP, new RegExp(`(^|[ ,])--${k}\\b`, 'm'), `--${k}`)
  for (const [k, s] of Object.entries(SHORT)) assert.match(HELP, new RegExp(`^  -${s}, --${k}\\b`, 'm'), `-${s}`)
  for (const v of Object.keys(INTERNAL_VARIABLES)) assert.ok(!HELP.includes(v), v)
  // the docs it names exist
  const named = [...new Set(HELP.match(/docs\/[a-z-]+\.md/g))]
  assert.ok(named.length >= 6, named.join(' '))
  for (const page of named) assert.ok(existsSync(join(ROOT, page)), page)
})

test('the plan: every option resolved once, the experiment named, its settings and --quick\'s in between', async () => {
  const { allServerNames } = await import('../../loadtest/catalog.js')
  const exp = { defaults: { connections: 7, amount: 70, work: 'loop:1e5' }, quick: { amount: 14 } }
  const plain = resolvePlan(parseOptions([]), exp)
  assert.equal(plain.experimentName, 'tour')
  assert.deepEqual(plain.settings, exp.defaults)
  assert.deepEqual([plain.load.connections, plain.load.amount, plain.load.timeoutSec], [7, 70, DEFAULTS.timeout])
  assert.deepEqual([plain.servers, plain.url, plain.thresholds, plain.cwd], [null, null, [], process.cwd()])
  // the work: --work, else the experiment's; the user's own apart (a --url entry runs no work of the lab's)
  assert.deepEqual([plain.work, plain.user.work], ['loop:1e5', null])
  assert.deepEqual([resolvePlan(parseOptions(['--work', 'fib:9']), exp).work, resolvePlan(parseOptions([]), {}).work],
    ['fib:9', null])
  const quick = resolvePlan(parseOptions(['--quick', '--server', 'simple', '-c', '3']), exp)
  assert.deepEqual([quick.experimentName, quick.settings.amount, quick.load.amount, quick.load.connections],
    ['custom', 14, 14, 3])
  const user = { connections: 3, amount: null, durationSec: null, timeoutSec: null, warmup: null, work: null }
  assert.deepEqual(quick.user, user)
  assert.equal(resolvePlan(parseOptions(['--url', 'http://127.0.0.1:1/']), exp).experimentName, 'custom')
  // a --task of its own (no --experiment, no --server): every server, one round each
  const task = resolvePlan(parseOptions(['--task', 'x.mjs']), exp)
  assert.deepEqual([task.experimentName, task.servers], ['custom', allServerNames()])
  assert.equal(resolvePlan(parseOptions(['--task', 'x.mjs', '--experiment', 'capacity']), exp).servers, null)
})
