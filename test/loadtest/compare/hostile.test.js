// compare on hostile reports (issue 19): free text never reaches the terminal or the Markdown raw, bad
// entries are refused in one line (exit 2) instead of a stack trace, the Markdown is never lost to the
// page, an input report is never overwritten, and figures no measurement gives are flagged.
// The CLI runs as a real child process on reports written to a temporary folder; where a test has several
// cases, they run through the CLI's `run` in one child process (cliEach) rather than a process each.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { httpReport } from '../../fixtures/reports.js'
import { ROOT, cliEach } from '../../helpers/reports-real.js'

const cli = (args) => execa(process.execPath, ['loadtest/compare/cli.js', ...args], { cwd: ROOT, reject: false, stdin: 'ignore' })

// Terminal and Unicode controls that must never be printed: ESC, BEL, the bidi override, a line separator.
const CONTROLS = /[\x1b\x07\u202e\u2028]/ // eslint-disable-line no-control-regex

let dir
before(async () => { dir = await mkdtemp(join(tmpdir(), 'loadlab-hostile-')) })
after(async () => { if (dir) await rm(dir, { recursive: true, force: true }) })

async function save (name, value) {
  const file = join(dir, name)
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value))
  return file
}

describe('compare: free text is escaped in the Markdown and on the terminal', () => {
  const EVIL = 'evil\x1b]8;;http://x.example\x07link\x1b]8;;\x07\x1b[2J|pipe\u202eyxz\u2028\n## fake@loop:1e5'

  test('a hostile run key and label: no control sequence in stdout or stderr, the --fail-on line is one line', async () => {
    const a = httpReport({ label: `box\x1b[31m\u202e${EVIL}` })
    const b = httpReport({ label: 'other' })
    for (const r of [a, b]) r.results[0].key = EVIL
    b.results[0].rps = a.results[0].rps / 2
    const res = await cli([await save('evil-a.json', a), await save('evil-b.json', b), '--fail-on', 'rps:-5%'])
    assert.equal(res.exitCode, 99, res.stderr)
    assert.doesNotMatch(res.stdout, CONTROLS)
    assert.doesNotMatch(res.stderr, CONTROLS)
    assert.doesNotMatch(res.stdout, /^## fake/m)
    const gate = res.stderr.split('\n').filter((l) => l.includes('--fail-on: ✗') && l.includes('evil'))
    assert.equal(gate.length, 1, res.stderr)
    assert.equal(res.stderr.split('\n').length, 2, 'one line for the regression, one for the summary')
    assert.match(gate[0], /`evil.*pipeyxz\s+## fake@loop:1e5` rps/)
    assert.doesNotMatch(gate[0], /\\\|/, 'a terminal line is not a Markdown table cell')
  })

  test('a refusal quoting a file (a JSON parser quotes its text, a file name) is one clean line', async () => {
    const [notJson, missing] = await cliEach([
      [await save('bad.json', '\x1b[2J\x1b]0;pwned\x07{'), await save('ok.json', httpReport())],
      [join(dir, 'no\x1b[31mfile\u202e.json'), join(dir, 'ok.json')]
    ])
    assert.equal(notJson.exitCode, 2)
    assert.match(notJson.stderr, /^compare: .*bad\.json is not JSON/)
    assert.doesNotMatch(notJson.stderr, CONTROLS)
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /^compare: cannot read \S*nofile\.json: no such file$/)
  })
})

describe('compare: bad entries are refused in one line (exit 2), never a stack trace', () => {
  const oneLine = (res) => {
    assert.equal(res.exitCode, 2, res.stderr)
    assert.equal(res.stderr.split('\n').length, 1, res.stderr)
    assert.match(res.stderr, /^compare: /)
    assert.equal(res.stdout, '')
  }
  const deep = '['.repeat(20000) + ']'.repeat(20000)

  test('a null run, a run without a string key in a multi-runtime report, 20k-deep arrays', async () => {
    const withNull = httpReport()
    withNull.results.splice(1, 0, null)
    const ok = await save('plain.json', httpReport())
    const runtimes = httpReport()
    runtimes.results = runtimes.results.flatMap((r) => ['node20', 'node24'].map((label) => ({ ...r, key: `${r.key}#${label}`, runtime: { label, node: label } })))
    runtimes.results[2].key = 42
    const cpu = JSON.stringify({ ...httpReport(), label: null }).replace('"Intel(R) Xeon(R) CPU @ 2.20GHz"', deep)
    const untrusted = httpReport()
    untrusted.results[0].untrusted = 'DEEP'
    const [res, multi, deepCpu, res2] = await cliEach([
      [await save('null-run.json', withNull), ok],
      [await save('runtimes.json', runtimes)],
      [await save('deep-cpu.json', cpu), ok, '--html', join(dir, 'deep.html')],
      [ok, await save('deep-untrusted.json', JSON.stringify(untrusted).replace('"DEEP"', deep))]
    ])
    oneLine(res)
    assert.match(res.stderr, /null-run\.json results\[1\] is not a run \(null\)/)
    oneLine(multi)
    assert.match(multi.stderr, /results\[2\] has no string "key" \(got number\)/)
    oneLine(deepCpu)
    oneLine(res2)
    assert.match(res2.stderr, /deep-untrusted\.json nests deeper than 64 levels/)
  })

  test('--html: a null timeline point or a 200k-point timeline is noted, not drawn; the rest of the page is written', async () => {
    const timeline = (n, at = -1) => ({
      intervalMs: 100,
      endMs: n * 100,
      recoveryEndMs: null,
      points: Array.from({ length: n }, (_, i) => (i === at ? null : { t: i * 100, rps: 100, latency: { p99: 5 } }))
    })
    const a = httpReport()
    const b = httpReport()
    a.results[0].timeline = timeline(20)
    b.results[0].timeline = timeline(20, 3)
    a.results[1].timeline = timeline(200_000)
    b.results[1].timeline = timeline(20)
    a.results[2].timeline = timeline(20)
    b.results[2].timeline = timeline(30)
    const page = join(dir, 'timelines.html')
    const res = await cli([await save('tl-a.json', a), await save('tl-b.json', b), '--html', page])
    assert.equal(res.exitCode, 0, res.stderr)
    assert.match(res.stdout, /B \(\S+tl-b\.json\): the timeline of simple@loop:1e5 is not drawn: point 3 is not a point \(null\)/)
    assert.match(res.stdout, /A \(\S+tl-a\.json\): the timeline of queued-threads@loop:1e5 is not drawn: 200000 points/)
    const html = await readFile(page, 'utf8')
    assert.match(html, /data-chart="rps"/)
    assert.deepEqual([...html.matchAll(/data-chart="timeline" data-server="([^"]+)"/g)].map((m) => m[1]), ['cluster@fib:20'],
      'only the run with two drawable timelines is overlaid')
  })

  test('when the page cannot be written the Markdown is printed all the same, with one line and exit 2', async () => {
    const res = await cli([join(dir, 'plain.json'), join(dir, 'tl-a.json'), '--html', dir, '--force'])
    assert.equal(res.exitCode, 2, res.stderr)
    assert.match(res.stdout, /^# loadlab compare/)
    assert.match(res.stdout, /## HTTP runs/)
    assert.equal(res.stderr.split('\n').length, 1, res.stderr)
    assert.match(res.stderr, /^compare: --html: cannot write /)
  })
})

describe('compare: an input report is never the output', () => {
  test('--html A.json --force (by path or through a symbolic link) is refused before anything is written', async () => {
    const a = await save('input-a.json', httpReport())
    const b = await save('input-b.json', httpReport({ label: 'other' }))
    const before = await readFile(a, 'utf8')
    await symlink(a, join(dir, 'link-to-a.json'))
    const pages = [a, join(dir, '.', 'input-a.json'), join(dir, 'link-to-a.json')]
    const results = await cliEach([...pages.map((page) => [a, b, '--html', page, '--force']),
      [a, b, '--html', join(dir, 'page.html'), '--force']])
    const ok = results.pop()
    for (const res of results) {
      assert.equal(res.exitCode, 2, res.stderr)
      assert.match(res.stderr, /^compare: --html \S+ is the input report \S+input-a\.json; write the page to another file$/)
      assert.equal(res.stdout, '')
    }
    assert.equal(await readFile(a, 'utf8'), before, 'the input report is unchanged')
    assert.equal(ok.exitCode, 0, ok.stderr)
  })
})

test('compare: --html F --force replaces only a regular file; a link or a FIFO is refused in one line', async () => {
  const a = await save('nonfile-a.json', httpReport())
  const other = await save('elsewhere.txt', httpReport())
  const link = join(dir, 'nonfile-link.html')
  await symlink(other, link)
  const fifo = join(dir, 'nonfile-fifo.html')
  await execa('mkfifo', [fifo])
  const cases = [[link, 'a symbolic link'], [fifo, 'a FIFO']]
  const results = await cliEach(cases.map(([page]) => [a, a, '--html', page, '--force']))
  for (const [i, [page, what]] of cases.entries()) {
    const res = results[i]
    assert.equal(res.exitCode, 2, res.stderr)
    const why = `it is ${what}, not a regular file (only one is replaced)`
    assert.equal(res.stderr, `compare: --html: cannot write ${page}: ${why}`)
  }
  assert.ok((await lstat(link)).isSymbolicLink() && (await lstat(fifo)).isFIFO(), 'both left as they were')
})

describe('compare: figures no measurement gives are flagged, not shown', () => {
  test('rps -5 and 1e308, a negative p99 and a round at -1: shown as —, flagged with the figure, out of ratios and gates', async () => {
    const a = httpReport()
    const b = httpReport()
    b.results[0].rps = -5
    b.results[1].rps = 1e308
    b.results[1].latency.p99 = -3
    a.results[1].runs = [{ rps: 300 }, { rps: 320 }]
    b.results[1].runs = [{ rps: 310 }, { rps: -1 }]
    const res = await cli([await save('abs-a.json', a), await save('abs-b.json', b), '--fail-on', 'rps:-5%'])
    assert.equal(res.exitCode, 0, res.stderr)
    assert.doesNotMatch(res.stdout, /-5\b.*\|/, 'rps -5 is not in a table')
    assert.doesNotMatch(res.stdout, /000,000,000,000/, '1e308 is not printed in full')
    const row = (key) => res.stdout.split('\n').find((l) => l.startsWith(`| \`${key}\``)).split(' | ')
    assert.deepEqual(row('simple@loop:1e5').slice(7, 8), ['- ⚠'])
    assert.match(res.stdout, /⚠ untrusted: B `simple@loop:1e5`: rps -5 is not a measurement \(negative\)/)
    assert.match(res.stdout, /⚠ untrusted: B `queued-threads@loop:1e5`: rps 1e\+308 is not a measurement \(over 1,000,000,000 req\/s\); latency\.p99 -3 is not a measurement \(negative\); round 2: rps -1 is not a measurement \(negative\)/)
    assert.match(res.stdout, /not comparable: B `simple@loop:1e5` rps 180\.0 req\/s → - \(-, bound -5%; a figure is not a measurement \(flagged\)\)/)
  })
})

test('compare: --html, --baseline or --units given twice is refused (the last won silently)', async () => {
  const res = await cli([join(dir, 'plain.json'), join(dir, 'plain.json'), '--html', join(dir, 'x.html'), '--html', join(dir, 'y.html')])
  assert.equal(res.exitCode, 2)
  assert.equal(res.stderr, 'compare: --html given 2 times: give it once')
})
