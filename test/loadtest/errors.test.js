// How every CLI ends (loadtest/errors.js runMain): run as a script, through a link too; a LabError is one
// line and its exit code, a bug keeps its stack; imported, nothing runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { isMain } from '../../loadtest/errors.js'

const ERRORS = pathToFileURL(join(import.meta.dirname, '../../loadtest/errors.js')).href

function script (dir, name, body) {
  const file = join(dir, name)
  writeFileSync(file, `import { runMain, usageError } from '${ERRORS}'\n${body}\n`)
  return file
}

test('runMain: a usage error is one line and exit 2; a bug keeps its stack and exits 1; a link to the script runs it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-errors-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const usage = script(dir, 'usage.mjs', "runMain(import.meta.url, 'prog', () => { throw usageError('--x: bad') })")
  const bug = script(dir, 'bug.mjs', "runMain(import.meta.url, 'prog', () => null.x)")
  const ok = script(dir, 'ok.mjs', "runMain(import.meta.url, 'prog', (argv) => { console.log(argv.join(' ')); return 0 })")
  symlinkSync(ok, join(dir, 'link.mjs'))
  const a = await execa(process.execPath, [usage], { reject: false })
  assert.equal(a.exitCode, 2)
  assert.equal(a.stderr, 'prog: --x: bad')
  const b = await execa(process.execPath, [bug], { reject: false })
  assert.equal(b.exitCode, 1)
  assert.match(b.stderr, /^prog: TypeError: Cannot read properties of null[\s\S]*\n\s+at /, 'the stack of a bug')
  const c = await execa(process.execPath, [join(dir, 'link.mjs'), 'a', 'b'], { reject: false })
  assert.equal(c.exitCode, 0)
  assert.equal(c.stdout, 'a b')
  // imported, a CLI module runs nothing
  const d = await execa(process.execPath, ['--input-type=module', '-e', `await import('${pathToFileURL(ok).href}')`], { reject: false })
  assert.equal(d.exitCode, 0)
  assert.equal(d.stdout, '')
  assert.equal(isMain(pathToFileURL(ok).href, join(dir, 'link.mjs')), true)
  assert.equal(isMain(pathToFileURL(ok).href, usage), false)
})
