// Text from users, servers and failures reaches the Markdown, the terminal table and the SVG charts
// escaped: a label, a note or a --url server's strategy name cannot inject markup or control sequences.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { httpReport, httpResult } from '../../fixtures/reports.js'
import { defaultTable, renderText } from '../../../loadtest/report/table.js'
import { renderReportHtml } from '../../../loadtest/report/page.js'
import { mdCode, mdFence, mdSpan, mdText, termText } from '../../../loadtest/text/escape.js'
import { renderMarkdown } from '../../../loadtest/report/markdown.js'

const HOSTILE = 'evil<script>alert(1)</script>|\x1b[31mred\x1b[0m\nsecond line'

function hostileReport () {
  const report = httpReport({ label: HOSTILE })
  report.notes = [HOSTILE]
  const bad = httpResult(HOSTILE)
  bad.untrusted = [HOSTILE]
  bad.trusted = false
  bad.failure = { reason: HOSTILE, exitCode: 1, signal: null, stderrTail: ['a line with ``` in it', HOSTILE] }
  bad.status = 'failed'
  report.results.push(bad)
  return report
}

test('Markdown: labels, notes, server names, reasons and stderr lines are escaped', () => {
  const md = renderMarkdown(hostileReport())
  // Inside a fenced block or a code span text is shown literally; everywhere else it must be escaped.
  const outside = md.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '').replace(/`[^`\n]*`/g, '')
  assert.doesNotMatch(outside, /<script>/, 'no raw HTML outside code')
  assert.match(
    md,
    /`evil<script>alert\(1\)<\/script>\|red second line@loop:1e5`/,
    'a key in a code span, on one line, its `|` as it is outside a table'
  )
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(md, /\x1b/, 'no terminal escape sequence')
  assert.match(md, /evil\\<script\\>/, 'the text is still there, escaped')
  // The results row of the hostile server keeps the header's column count: its `|` is escaped.
  const cols = (l) => l.replace(/\\\|/g, '').split('|').length
  const lines = md.split('\n')
  const header = lines.find((l) => l.startsWith('| server | work |'))
  const row = lines.find((l) => l.startsWith('| evil'))
  assert.ok(header && row)
  assert.equal(cols(row), cols(header), row)
  // The stderr block's fence is longer than any backtick run inside it.
  const fence = md.split('\n').find((l) => /^`{4,}$/.test(l))
  assert.ok(fence, 'a four-backtick fence around a line holding ```')
})

test('terminal table: no control sequence reaches the terminal, one line per row', () => {
  const text = renderText(defaultTable(hostileReport()))
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f]/)
  assert.equal(text.trimEnd().split('\n').length, 2 + hostileReport().results.length)
  assert.match(text, /evil<script>/, 'plain text on a terminal: shown as it is, harmless there')
})

test('escapers: one line, no control characters, nothing that closes the construct', () => {
  assert.equal(termText('a\x1b[2Jb\x07c\nd'), 'abc d')
  assert.equal(mdText('a|b*c'), 'a\\|b\\*c')
  assert.equal(mdCode('x`y|z'), '``x`y\\|z``')
  assert.deepEqual(mdFence(['````']), ['`````', '````', '`````'])
})

test('SVG: a run named "a-clip2" keeps its name; two charts on a page never share a clip id', () => {
  const report = httpReport()
  report.results[0].key = 'a-clip2@loop:1e5'
  report.results[0].server = 'a-clip2'
  const html = renderReportHtml(report)
  assert.match(html, /a-clip2/, 'the name is on the page as written')
  assert.doesNotMatch(html, /a-[a-z]+-clip\d/, 'no chart id was spliced into the name')
  const ids = [...html.matchAll(/<clipPath id="([^"]+)"/g)].map((m) => m[1])
  assert.ok(ids.length >= 2)
  assert.equal(new Set(ids).size, ids.length, 'clip ids are unique on the page')
  for (const id of ids) assert.match(html, new RegExp(`url\\(#${id}\\)`), `${id} is referenced`)
})

// A code span read back as CommonMark reads one (spec 6.1): the text between a backtick run and the next
// run of the same length, one space stripped from each end when both ends have one and it is not all
// spaces. `cell`: the span stood in a GFM table cell, whose `\|` is `|` before the span is read.
function readSpan (md, cell = false) {
  const text = cell ? md.replaceAll('\\|', '|') : md
  const open = /^`+/.exec(text)[0]
  const inner = text.slice(open.length, text.length - open.length)
  assert.equal(text.slice(-open.length), open, `closed by the same run: ${md}`)
  const runs = inner.match(/`+/g) ?? []
  assert.ok(runs.every((r) => r.length !== open.length), `no run inside closes it early: ${md}`)
  return /^ .*[^ ].* $/.test(inner) || /^ [^ ] $/.test(inner) ? inner.slice(1, -1) : inner
}

test('a code span shows its text as it is, backticks and pipes included: outside a table and in a cell', () => {
  const commands = [
    'npm run lab -- --url \'http://127.0.0.1:8080/a|b\' -H \'x: `id`\'',
    '`start', 'end`', ' spaced ', '``double`` and ```triple```', 'a\\|b', 'plain', '` `'
  ]
  for (const c of commands) {
    assert.equal(readSpan(mdSpan(c)), c, `outside a table: ${mdSpan(c)}`)
    assert.equal(readSpan(mdCode(c), true), c, `in a cell: ${mdCode(c)}`)
    assert.ok(!mdCode(c).replaceAll('\\|', '').includes('|'), 'no bare pipe ends the cell')
  }
})

test('the Markdown\'s Method shows the command that ran, as it ran', () => {
  const report = httpReport()
  report.method.command = 'node loadtest/cli.js --url \'http://h/a|b\' -H \'X-Q: `q`\' --label \'x  y\''
  const line = renderMarkdown(report, null).split('\n').find((l) => l.startsWith('- **Command:** '))
  assert.equal(readSpan(line.slice('- **Command:** '.length)), report.method.command)
})
