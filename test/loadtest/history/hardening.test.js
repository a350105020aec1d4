// history, hardened (issue 64): it never writes a page over a report it read (by path, a file link or a
// folder link); its refusals are one line, exit 2 (a page's missing folder, a bound that matches no
// series, no report at all); its CSV cells are never a formula and carry no control character; its
// params are checked; a time that is no time, a ruler no machine gives and a negative latency are left out
// with one line, and reports are ordered by time, not by text. Built reports only: no run, nothing timed.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { readBounded } from '../../../loadtest/report/read.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { history, timeOf } from '../../../loadtest/history/history.js'
import { main as historyMain } from '../../../loadtest/history/cli.js'
import { csvCell } from '../../../loadtest/text/escape.js'
import { ROOT } from '../../helpers/lab.js'

const dir = mkdtempSync(join(tmpdir(), 'loadlab-history64-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const A = JSON.parse(readBounded(join(ROOT,
  'reports/reference/compare-validation/2026-11-28T02-43-30Z-vm-tour.json.gz'))) // a kept tour with a ruler

// A small report of the lab's schema: one run with its rps and p99 (no histogram), at minute i.
function tiny (i, { rps = 100, p99 = 50, at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), ...extra } = {}) {
  return {
    schema: A.schema,
    kind: 'loadlab-report',
    id: `r${String(i).padStart(5, '0')}`,
    createdAt: at,
    experiment: 'tour',
    machine: A.machine,
    ruler: A.ruler,
    results: [{
      kind: 'http',
      key: 'simple@loop:1e7',
      server: 'simple',
      variant: null,
      work: 'loop:1e7',
      status: 'ok',
      trusted: true,
      untrusted: [],
      rps,
      latency: { p50: p99 / 2, p99 }
    }],
    ...extra
  }
}
// A folder of built reports.
function folder (name, reports) {
  const d = join(dir, name)
  mkdirSync(d)
  for (const r of reports) writeFileSync(join(d, `${r.id}.json`), JSON.stringify(r))
  return d
}
const loadlab = (args) => execa(process.execPath, [join(ROOT, 'bin/loadlab.js'), 'history', ...args], { reject: false })
// The CLI's main in this process, for a refusal past the first of its kind (the same one line, exit 2, through
// the real CLI once): resolves the error's message, asserting exit code 2 and one line.
async function refusal (args) {
  const err = await historyMain(args).then(() => null, (e) => e)
  assert.equal(err?.exitCode, 2, `${args.join(' ')}: ${err?.stack}`)
  assert.equal(err.message.split('\n').length, 1, err.message)
  return err.message
}

test('history --html never replaces an input report: by its path, a link to it, or through a folder link', async () => {
  const d = folder('one', [tiny(0)])
  const input = join(d, 'r00000.json')
  const before = readFileSync(input, 'utf8')
  symlinkSync(input, join(dir, 'link.html'))
  symlinkSync(d, join(dir, 'folder-link'))
  const cases = [[d, '--html', input, '--force'], [d, '--html', join(dir, 'link.html'), '--force'],
    [join(dir, 'folder-link'), '--html', input, '--force']]
  const why = /^history: --html \S+ is the input report \S+; write the page to another file$/
  // the first through the CLI's process, the others through its main here
  const r = await loadlab(cases[0])
  assert.equal(r.exitCode, 2, r.stderr)
  assert.match(r.stderr, why)
  for (const args of cases.slice(1)) assert.match(await refusal(args), why)
  assert.equal(readFileSync(input, 'utf8'), before, 'the report is as it was')
})

test('history: one line and exit 2 for a page with no folder, a bound that matches no series, no report', async () => {
  const d = folder('plain', [0, 1, 2].map((i) => tiny(i)))
  const page = await loadlab([d, '--html', join(dir, 'no', 'such', 'x.html')])
  assert.equal(page.exitCode, 2)
  assert.match(page.stderr, /^history: --html: cannot write \S+x\.html: its folder \S+ does not exist$/)
  // the first bound through the CLI's process, the others through its main here
  for (const [i, bound] of ['capacity:-5%', 'p99.9:+5%', 'max:+5%', 'efficiency:-5%'].entries()) {
    const why = new RegExp(`^history: the bound ${bound.replace(/[.+]/g, '\\$&')} matches no series: `)
    if (i > 0) {
      assert.match(await refusal([d, '--fail-on-change', bound]), why)
      continue
    }
    const r = await loadlab([d, '--fail-on-change', bound])
    assert.equal(r.exitCode, 2, bound)
    assert.match(r.stderr, why)
    assert.equal(r.stdout, '')
  }
  const empty = join(dir, 'empty')
  mkdirSync(empty)
  assert.match(await refusal([empty]), /^history: no report to follow in \S+: no \.json file in it$/)
  const junk = folder('junk', [])
  writeFileSync(join(junk, 'x.json'), '{ not json')
  const left = await loadlab([junk])
  assert.equal(left.exitCode, 2)
  assert.match(left.stderr, /left out: \S+x\.json is not JSON.*\nhistory: no report to follow in \S+: 1 file\(s\) left out/)
  assert.doesNotMatch(page.stderr + left.stderr, /\n\s+at /, 'no stack')
})

test('csvCell: a formula is text, a control character is gone, a number stays a number', () => {
  assert.equal(csvCell("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0")
  for (const lead of ['+', '-', '@', '\t']) assert.ok(csvCell(`${lead}SUM(1)`).startsWith("'"), JSON.stringify(lead))
  assert.equal(csvCell('\x1b[31mred\x1b[0m'), 'red')
  assert.equal(csvCell('a\u202eb'), 'ab')
  assert.equal(csvCell('a,"b"'), '"a,""b"""')
  assert.equal(csvCell('two\nlines'), 'two lines')
  assert.equal(csvCell(-5), '-5')
  assert.equal(csvCell(null), '')
})

test('history --csv and --json: labels from reports reach neither a spreadsheet as a formula nor the terminal raw', async () => {
  const d = folder('escape', [0, 1].map((i) => tiny(i, { label: '=cmd|\' /C calc\'!A0 \x1b[31mred\u202e' })))
  const csv = await loadlab([d, '--csv'])
  assert.equal(csv.exitCode, 0, csv.stderr)
  const row = csv.stdout.split('\n')[1].split(',')
  assert.equal(row[1].slice(0, 5), "'=cmd")
  // eslint-disable-next-line no-control-regex
  const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/
  assert.doesNotMatch(csv.stdout, control)
  const json = await loadlab([d, '--json'])
  assert.doesNotMatch(json.stdout, control)
  assert.ok(JSON.parse(json.stdout).reports[0].commit.includes('\u001b[31mred\u202e'), 'the data itself unchanged')
})

test('history(): every param checked against its type and range, a LAB_USAGE naming it, promptly', async () => {
  const d = folder('params', [0, 1, 2].map((i) => tiny(i)))
  const bad = [
    [{ params: { minSegment: 0, maxPValue: 2, maxPoints: -1 } }, /params\.minSegment/],
    [{ params: { minSegment: -1 } }, /params\.minSegment/],
    [{ params: { minSegment: 0.5 } }, /params\.minSegment/],
    [{ params: { minSegment: NaN } }, /params\.minSegment: expected a whole number/],
    [{ params: { maxPValue: NaN } }, /params\.maxPValue/],
    [{ params: { maxPValue: 2 } }, /params\.maxPValue/],
    [{ params: { maxPoints: 0 } }, /params\.maxPoints/],
    [{ params: { constructor: 1 } }, /params\.constructor: no such parameter/],
    [{ params: 'x' }, /params: expected an object/],
    [{ figures: ['constructor'] }, /figures: `constructor` \(string\) is no figure/],
    [{ figures: 'p99' }, /figures: expected an array/],
    [{ failOnChange: 'p99:+10%' }, /failOnChange: expected an array/],
    [{ failOnChange: [{ metric: 'p99', sign: '+', bound: NaN }] }, /failOnChange\[0\]: bound/]
  ]
  for (const [options, message] of bad) {
    await assert.rejects(history([d], options), (err) => err.code === 'LAB_USAGE' && message.test(err.message),
      JSON.stringify(options))
  }
})

test('history: a time that is no time is left out; reports are ordered by time, not by their text', async () => {
  for (const t of ['', 'zzzz', '2026-13-45T99:99:99Z', '2026-02-30T00:00:00Z', '\u202e2026', '2026-01-01']) {
    assert.equal(timeOf(t), null, JSON.stringify(t))
  }
  assert.equal(timeOf('2026-01-01T02:00:00+02:00'), Date.UTC(2026, 0, 1))
  // r00001 is written at 00:30 local +02:00, i.e. 22:30 the day before: the first in time, the last as text
  const d = folder('times', [
    tiny(0, { at: '2026-01-01T00:00:00.000Z' }),
    tiny(1, { at: '2026-01-01T00:30:00+02:00' }),
    tiny(2, { at: 'zzzz' }),
    tiny(3, { at: '2026-13-01T00:00:00Z' })
  ])
  const h = await history([d])
  assert.deepEqual(h.reports.map((r) => r.id), ['r00001', 'r00000'])
  assert.deepEqual(h.skipped.map((s) => s.message.replace(/^\S+ /, '')), [
    'has createdAt `zzzz` (string): not a time (ISO 8601, as the lab writes it)',
    'has createdAt `2026-13-01T00:00:00Z` (string): not a time (ISO 8601, as the lab writes it)'
  ])
})

test('history: a ruler no machine gives leaves its report out; a negative latency is not followed', async () => {
  const bad = structuredClone(A.ruler)
  bad.start.single.loop.value = -1
  const d = folder('rulers', [
    tiny(0), tiny(1, { ruler: { start: 5 } }), tiny(2, { ruler: bad }), tiny(3, { p99: -5 })
  ])
  const h = await history([d])
  assert.deepEqual(h.reports.map((r) => r.id), ['r00000', 'r00003'])
  const lines = h.skipped.map((s) => s.message).join('\n')
  assert.match(lines, /r00001\.json: ruler\.\S+ is [^:]+: expected an object/) // the first field the schema names
  assert.match(lines, /r00002\.json: ruler\.start\.single\.loop is -1/)
  assert.match(lines, /r00003\.json: run simple@loop:1e7: latency\.p99 -5 is not a measurement \(negative\): not followed/)
  const p99 = h.series.find((s) => s.figure === 'p99')
  assert.deepEqual(p99.points.map((p) => p.value), [50], 'the negative one is no point')
})
