// compare on hostile reports (issue 19): free text never reaches the terminal or the Markdown raw, bad
// entries are refused in one line (exit 2) instead of a stack trace, the Markdown is never lost to the
// page, an input report is never overwritten, and figures no measurement gives are flagged.
// The CLI runs as a real child process on reports written to a temporary folder.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { httpReport } from '../../fixtures/reports.js'
import { ROOT } from '../../helpers/reports-real.js'

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
    const notJson = await cli([await save('bad.json', '\x1b[2J\x1b]0;pwned\x07{'), await save('ok.json', httpReport())])
    assert.equal(notJson.exitCode, 2)
    assert.match(notJson.stderr, /^compare: .*bad\.json is not JSON/)
    assert.doesNotMatch(notJson.stderr, CONTROLS)
    const missing = await cli([join(dir, 'no\x1b[31mfile\u202e.json'), join(dir, 'ok.json')])
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /^compare: cannot read \S*nofile\.json: no such file$/)
  })
})
