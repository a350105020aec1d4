// docs/api.md: every ```js example is a whole script, run as it stands (by its own node, from the lab's
// checkout, where `loadlab` resolves to this package by its name) and ending with exit 0 and output.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../helpers/lab.js'

const PAGE = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8')
const EXAMPLES = [...PAGE.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1])
const FUNCTIONS = ['runLab', 'startServer', 'readReport', 'compareReports', 'mergeReports', 'abCompare']

test('docs/api.md: one example per function, each run as it stands', async (t) => {
  for (const name of FUNCTIONS) {
    assert.ok(EXAMPLES.some((code) => new RegExp(`\\b${name}\\(`).test(code)), `an example calls ${name}`)
  }
  mkdirSync(join(ROOT, 'test-output'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, 'test-output', 'api-examples-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const [i, code] of EXAMPLES.entries()) {
    const file = join(dir, `example-${i + 1}.mjs`)
    writeFileSync(file, code)
    const run = await execa(process.execPath, [file], { cwd: ROOT, reject: false, timeout: 120_000 })
    assert.equal(run.exitCode, 0, `example ${i + 1}:\n${code}\n${run.stderr}`)
    assert.ok(run.stdout.trim().length > 0, `example ${i + 1} prints what it found`)
    assert.doesNotMatch(run.stdout, /undefined|NaN/, `example ${i + 1}: ${run.stdout}`)
    t.diagnostic(`example ${i + 1}: ${run.stdout.trim().split('\n').join(' | ')}`)
  }
})
