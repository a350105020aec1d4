// npm run compare: the pure comparison on fixtures, then the CLI on two REAL reports written by the
// lab (the second re-labelled as another machine), every refusal with its message and exit code 2,
// and --html never overwriting without --force.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { MAX_REPORT_BYTES } from '../../../loadtest/report/read.js'
import { checkReport, compareReports, CompareError, letter } from '../../../loadtest/compare/compare.js'
import { mdEsc, renderCompareHtml, renderCompareMarkdown } from '../../../loadtest/compare/render.js'
import { httpReport, dispatchReport } from '../../fixtures/reports.js'
import { assertRatio, cliEach, makeRealReport, ROOT } from '../../helpers/reports-real.js'

function entries (...reports) {
  return reports.map((report, i) => ({ file: `r${i}.json`, report }))
}

describe('compareReports (pure)', () => {
  test('lines up shared runs, one cell per report, with ratios to the baseline', () => {
    const a = httpReport({ label: 'fast box' })
    const b = httpReport({ label: 'slow box', rpsScale: 0.5 })
    b.results = b.results.filter((r) => r.server !== 'queued-threads')
    const cmp = compareReports(entries(a, b))
    assert.deepEqual(
      cmp.rows.map((r) => r.key),
      ['simple@loop:1e5', 'cluster@fib:20', 'child-process@loop:1e5']
    )
    assert.deepEqual(
      cmp.reports.map((r) => [r.letter, r.name, r.baseline]),
      [
        ['A', 'fast box', true],
        ['B', 'slow box', false]
      ]
    )
    const simple = cmp.rows[0]
    assert.equal(simple.cells[0].rpsRatio, 1)
    assert.equal(simple.cells[1].rpsRatio, b.results[0].rps / a.results[0].rps)
    assert.equal(simple.cells[1].p99Ratio, b.results[0].latency.p99 / a.results[0].latency.p99)
    assert.equal(cmp.reports[1].missing, 0)
    // with B as baseline the ratio inverts
    const inv = compareReports(entries(a, b), { baseline: 1 })
    assert.equal(inv.rows[0].cells[0].rpsRatio, a.results[0].rps / b.results[0].rps)
  })

  test('a run in only one report is left out; a third report missing a run shows no cell', () => {
    const a = httpReport()
    const b = httpReport({ rpsScale: 2 })
    const c = httpReport()
    c.results = c.results.slice(0, 1)
    a.results.push({ ...a.results[0], key: 'only-here@loop:1e5' })
    const cmp = compareReports(entries(a, b, c))
    assert.ok(!cmp.rows.some((r) => r.key === 'only-here@loop:1e5'))
    assert.equal(cmp.rows[1].cells[2], null)
    assert.equal(cmp.reports[2].missing, 3)
  })

  test('untrusted and failed runs are flagged with their reasons', () => {
    const cmp = compareReports(entries(httpReport(), httpReport()))
    const flagged = cmp.flags.map((f) => `${f.report} ${f.key} ${f.status}`)
    assert.deepEqual(
      flagged.sort(),
      [
        '0 child-process@loop:1e5 failed',
        '0 cluster@fib:20 ok',
        '1 child-process@loop:1e5 failed',
        '1 cluster@fib:20 ok'
      ].sort()
    )
    assert.deepEqual(cmp.flags.find((f) => f.key === 'cluster@fib:20').why, [
      '12 timeouts',
      'load generator saturated (97% CPU)'
    ])
    const md = renderCompareMarkdown(cmp)
    assert.match(md, /⚠ untrusted: A `cluster@fib:20`: 12 timeouts; load generator saturated \(97% CPU\)/)
    assert.match(md, /✗ failed: B `child-process@loop:1e5`: server exited before it answered \/health/)
  })

  test("--units service divides latency by each machine's calibrated service time, not rps", () => {
    const a = httpReport()
    const b = httpReport({ label: 'other' })
    b.calibration['loop:1e5'].medianMs = 2
    const cmp = compareReports(entries(a, b), { units: 'service' })
    const cells = cmp.rows[0].cells
    assert.equal(cells[0].p99, a.results[0].latency.p99 / a.calibration['loop:1e5'].medianMs)
    assert.equal(cells[1].p99, b.results[0].latency.p99 / 2)
    assert.equal(cells[1].rps, b.results[0].rps)
    assert.equal(cells[1].percentiles['50'], b.results[0].latency.percentiles['50'] / 2)
    delete b.calibration['fib:20']
    const missing = compareReports(entries(a, b), { units: 'service' })
    assert.equal(missing.rows.find((r) => r.key === 'cluster@fib:20').cells[1].p99, null)
    assert.ok(missing.notes.some((n) => n.includes('no calibration for fib:20')))
  })

  test('dispatch runs compare on mean time', () => {
    const a = dispatchReport()
    const b = dispatchReport()
    b.results = b.results.map((r) => ({ ...r, meanMs: r.meanMs * 3 }))
    const cmp = compareReports(entries(a, b))
    assert.equal(cmp.rows.length, a.results.length)
    assert.ok(cmp.rows.every((r) => r.kind === 'dispatch' && Math.abs(r.cells[1].meanRatio - 3) < 1e-9))
    assert.match(renderCompareMarkdown(cmp), /## In-process cases/)
    const html = renderCompareHtml(cmp)
    assert.match(html, new RegExp(`data-chart="dispatch" data-bars="${2 * a.results.length}"`))
    assert.equal(
      html.split('<table class="dispatch">')[1].split('</table>')[0].split('<tr').length - 2,
      a.results.length
    )
  })

  test('refusals: fewer than two, nothing in common, bad baseline, not a report, other schema', () => {
    const codeOf = (fn) => {
      try {
        fn()
      } catch (err) {
        assert.ok(err instanceof CompareError)
        return err.code
      }
      return null
    }
    assert.equal(
      codeOf(() => compareReports(entries(httpReport()))),
      'LAB_COMPARE_TOO_FEW'
    )
    const other = httpReport()
    other.results = other.results.map((r) => ({ ...r, key: `x-${r.key}` }))
    assert.equal(
      codeOf(() => compareReports(entries(httpReport(), other))),
      'LAB_COMPARE_NOTHING_IN_COMMON'
    )
    assert.equal(
      codeOf(() => compareReports(entries(httpReport(), httpReport()), { baseline: 2 })),
      'LAB_COMPARE_BASELINE'
    )
    assert.equal(
      codeOf(() => checkReport({ hello: 1 }, 'f')),
      'LAB_COMPARE_NOT_REPORT'
    )
    assert.equal(
      codeOf(() => checkReport([], 'f')),
      'LAB_COMPARE_NOT_REPORT'
    )
    assert.equal(
      codeOf(() => checkReport({ ...httpReport(), schema: 2 }, 'f')),
      'LAB_COMPARE_SCHEMA'
    )
    assert.equal(
      codeOf(() => checkReport(httpReport(), 'f')),
      null
    )
    assert.deepEqual([0, 1, 25, 26, 27].map(letter), ['A', 'B', 'Z', 'AA', 'AB'])
  })

  test('report strings are escaped in the Markdown and the HTML', () => {
    const a = httpReport({ label: '<script>alert(1)</script> | *x*' })
    const b = httpReport({ label: '&"\'<>' })
    const cmp = compareReports(entries(a, b))
    const md = renderCompareMarkdown(cmp)
    assert.ok(md.includes('\\<script\\>alert(1)\\</script\\> \\| \\*x\\*'))
    assert.equal(mdEsc('a|b\nc'), 'a\\|b c')
    const html = renderCompareHtml(cmp)
    assert.ok(!html.includes('<script'))
    assert.ok(!html.includes('&"\'<>'))
    assert.ok(html.includes('&amp;&quot;&#39;&lt;&gt;'))
    assert.ok(!/https?:\/\//.test(html), 'no URL in the page')
    assert.ok(!/<link|src=|@import/.test(html))
  })
})

describe('npm run compare on real reports', () => {
  let dir, a, b, bFile
  const cli = (args, opts = {}) =>
    execa(process.execPath, ['loadtest/compare/cli.js', ...args], {
      cwd: ROOT,
      env: { ...process.env },
      reject: false,
      ...opts
    })

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loadlab-compare-'))
    await mkdir(join(dir, 'a'))
    await mkdir(join(dir, 'b'))
    // compare reads the JSON only: the lab's own pages are left out
    a = await makeRealReport(join(dir, 'a'), [], { html: false })
    const second = await makeRealReport(join(dir, 'b'), [], { html: false })
    // The second real run, re-labelled as another machine.
    b = second.report
    b.label = 'the other machine'
    b.machine.hostname = 'other-host'
    bFile = join(dir, 'other-machine.json')
    await writeFile(bFile, JSON.stringify(b, null, 2))
  })
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  // Reads the Markdown table row of `key` into { header: value }.
  function row (md, key) {
    const lines = md.split('\n')
    const headAt = lines.findIndex((l) => l.startsWith('| run |'))
    const split = (l) =>
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim())
    const head = split(lines[headAt])
    const line = lines.find((l) => l.startsWith(`| \`${key}\` |`))
    assert.ok(line, `row for ${key}`)
    return Object.fromEntries(split(line).map((v, i) => [head[i], v]))
  }

  test('the ratio of requests/s matches the two JSON files, hand-checked from their rps', async () => {
    const res = await cli([a.json, bFile])
    assert.equal(res.exitCode, 0, res.stderr)
    assert.equal(res.stderr, '')
    for (const key of ['simple@loop:1e5', 'queued-threads@loop:1e5']) {
      const ra = a.report.results.find((r) => r.key === key)
      const rb = b.results.find((r) => r.key === key)
      assert.ok(ra.rps > 0 && rb.rps > 0)
      const cells = row(res.stdout, key)
      assert.equal(cells['A req/s'].replace(/[^\d.]/g, ''), String(Math.round(ra.rps)))
      assert.equal(cells['B req/s'].replace(/[^\d.]/g, ''), String(Math.round(rb.rps)))
      // the ratio, then its verdict (one round each: from each run's own intervals)
      // (disturbed: the lab marked a run of the busy suite, and the ratio is inside what that explains)
      const verdicts = 'within noise|better|worse|disturbed'
      assertRatio(cells['B req/s ×A'], rb.rps / ra.rps, verdicts)
      assertRatio(cells['B p99 ×A'], rb.latency.p99 / ra.latency.p99, verdicts)
    }
    assert.match(res.stdout, /\*\*B\*\* \| the other machine \|/)
    assert.match(res.stdout, new RegExp(`\\*\\*A\\*\\* \\(baseline\\) \\| ${a.report.machine.hostname} · `))
    // --baseline picks the other report: the ratio inverts
    const inv = await cli([a.json, bFile, '--baseline', bFile])
    assert.equal(inv.exitCode, 0, inv.stderr)
    const ra = a.report.results.find((r) => r.key === 'simple@loop:1e5')
    const rb = b.results.find((r) => r.key === 'simple@loop:1e5')
    assertRatio(row(inv.stdout, 'simple@loop:1e5')['A req/s ×B'], ra.rps / rb.rps, '.+')
  })

  test("--units service shows p99 in multiples of each machine's calibrated service time", async () => {
    const res = await cli([a.json, bFile, '--units', 'service'])
    assert.equal(res.exitCode, 0, res.stderr)
    const ra = a.report.results.find((r) => r.key === 'simple@loop:1e5')
    const expected = ra.latency.p99 / a.report.calibration['loop:1e5'].serviceMs
    const shown = Number(row(res.stdout, 'simple@loop:1e5')['A p99'].replace(/[,×]/g, ''))
    assert.ok(Math.abs(shown - expected) <= Math.max(0.05, expected * 0.001), `${shown} ≈ ${expected}`)
  })

  test('--html writes the page atomically and refuses to overwrite it without --force', async () => {
    const out = join(dir, 'cmp.html')
    const first = await cli([a.json, bFile, '--html', out])
    assert.equal(first.exitCode, 0, first.stderr)
    const html = await readFile(out, 'utf8')
    assert.match(html, /data-chart="spectrum" data-lines="4"/)
    assert.ok(!/https?:\/\//.test(html))
    const before = await stat(out)
    const again = await cli([a.json, bFile, '--html', out])
    assert.equal(again.exitCode, 2)
    assert.equal(again.stderr.trim(), `compare: ${out} exists; pass --force to overwrite it`)
    assert.equal(again.stdout, '')
    assert.equal((await stat(out)).mtimeMs, before.mtimeMs)
    assert.equal(await readFile(out, 'utf8'), html)
    const forced = await cli([a.json, bFile, '--html', out, '--force', '--units', 'service'])
    assert.equal(forced.exitCode, 0, forced.stderr)
    assert.notEqual(await readFile(out, 'utf8'), html)
  })

  test('every refusal: one line on stderr, nothing on stdout, exit code 2', async () => {
    const notJson = join(dir, 'not.json')
    await writeFile(notJson, '{ this is not json')
    const notReport = join(dir, 'package.json')
    await writeFile(notReport, JSON.stringify({ name: 'x', version: '1.0.0' }))
    const schema2 = join(dir, 'schema2.json')
    await writeFile(schema2, JSON.stringify({ ...a.report, schema: 2 }))
    const disjoint = join(dir, 'disjoint.json')
    await writeFile(
      disjoint,
      JSON.stringify({ ...b, results: b.results.map((r) => ({ ...r, key: `${r.server}@fib:20` })) })
    )
    const existing = join(dir, 'exists.html')
    await writeFile(existing, 'keep me')
    const missing = join(dir, 'missing.json')
    const huge = join(dir, 'huge.json')
    await writeFile(huge, ' '.repeat(MAX_REPORT_BYTES + 1))
    const cases = [
      [[a.json, missing], `compare: cannot read ${missing}: no such file`],
      [[a.json, dir], `compare: cannot read ${dir}: is a directory`],
      [[a.json, notJson], new RegExp(`^compare: ${notJson} is not JSON \\(`)],
      [[a.json, notReport], `compare: ${notReport} is not a loadlab report (expected "kind": "loadlab-report")`],
      [[a.json, schema2], `compare: ${schema2} is a schema 2 report; this lab reads schema 1 only`],
      // only regular files, of at most MAX_REPORT_BYTES: /dev/zero never ends
      [[a.json, '/dev/zero'], 'compare: cannot read /dev/zero: not a regular file'],
      [[a.json, huge], `compare: ${huge} is larger than 64 MiB: not a report the lab wrote`],
      [
        [a.json],
        `compare: compare needs at least two report files, or one made under lab --node with two runtimes; ${a.json} has one runtime`
      ],
      [
        [a.json, disjoint],
        'compare: the reports have no run in common (a run is matched by server, variant and work: its "key")'
      ],
      [[a.json, bFile, '--baseline', notJson], `compare: --baseline ${notJson} is not one of the given reports`],
      [[a.json, bFile, '--html', existing], `compare: ${existing} exists; pass --force to overwrite it`],
      [[a.json, bFile, '--units', 'furlongs'], 'compare: --units must be one of ms, service, got "furlongs"'],
      [[a.json, bFile, '--frobnicate'], /^compare: Unknown option '--frobnicate'.* \(see --help\)$/]
    ]
    // the first through the CLI's own process; the others through its `run`, all in one process
    const results = [await cli(cases[0][0]), ...(await cliEach(cases.slice(1).map(([args]) => args)))]
    for (const [i, [args, message]] of cases.entries()) {
      const res = results[i]
      assert.equal(res.exitCode, 2, `${args.join(' ')}: ${res.stderr}`)
      assert.equal(res.stdout, '', args.join(' '))
      const lines = res.stderr.trim().split('\n')
      assert.equal(lines.length, 1, res.stderr)
      if (typeof message === 'string') assert.equal(lines[0], message)
      else assert.match(lines[0], message)
    }
    assert.equal(await readFile(existing, 'utf8'), 'keep me')
  })

  test('--html into a missing folder or under a file: one line, exit 2, nothing written, no stack', async () => {
    const targets = [join(dir, 'no-such-folder', 'c.html'), join(a.json, 'c.html')]
    const results = await cliEach(targets.map((target) => [a.json, bFile, '--html', target]))
    for (const [i, target] of targets.entries()) {
      const res = results[i]
      assert.equal(res.exitCode, 2, target)
      assert.equal(res.stdout, '')
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr)
      assert.match(res.stderr, /^compare: --html: cannot write .*(does not exist|is not a folder)/)
      assert.doesNotMatch(res.stderr, /\bat \S+ \(/, 'no stack trace')
    }
  })

  test('--help prints usage and exits 0', async () => {
    const res = await cli(['--help'])
    assert.equal(res.exitCode, 0)
    assert.match(res.stdout, /^usage: npm run compare -- A\.json B\.json/)
  })
})
