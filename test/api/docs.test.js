// docs/api.md: every ```js example is a whole script, run as it stands (by its own node, from the lab's
// checkout, where `loadlab` resolves to this package by its name) and ending with exit 0 and output; every
// function the package exports has one, and the schema's example finds the report on disk valid.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../helpers/lab.js'
import * as api from '../../index.js'

const PAGE = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8')
const EXAMPLES = [...PAGE.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1])
// Every function the package exports (index.js), read from the package itself: a new export needs an example.
const FUNCTIONS = Object.entries(api).filter(([name, f]) => typeof f === 'function' && !/^[A-Z]/.test(name))
  .map(([name]) => name)

test('docs/api.md: one example per function, each run as it stands', async (t) => {
  assert.ok(FUNCTIONS.length >= 6 && FUNCTIONS.includes('history'), FUNCTIONS.join(' '))
  assert.ok(EXAMPLES.some((code) => code.includes('ajv')), 'an example validates a report with ajv')
  for (const name of FUNCTIONS) {
    assert.ok(EXAMPLES.some((code) => new RegExp(`\\b${name}\\(`).test(code)), `an example calls ${name}`)
  }
  mkdirSync(join(ROOT, 'test-output'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, 'test-output', 'api-examples-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const run = (code, i) => {
    const file = join(dir, `example-${i + 1}.mjs`)
    writeFileSync(file, code)
    return execa(process.execPath, [file], { cwd: ROOT, reject: false, timeout: 120_000 })
  }
  // an example that waits for a common start ahead (its shards' startAt, seconds off) runs beside the others,
  // which run one after another, so its wait is not added to theirs
  const beside = new Map(EXAMPLES.map((code, i) => [i, code]).filter(([, code]) => /\bstartAt\b/.test(code))
    .map(([i, code]) => [i, run(code, i)]))
  const done = []
  for (const [i, code] of EXAMPLES.entries()) if (!beside.has(i)) done[i] = await run(code, i)
  for (const [i, p] of beside) done[i] = await p
  for (const [i, code] of EXAMPLES.entries()) {
    const out = done[i]
    assert.equal(out.exitCode, 0, `example ${i + 1}:\n${code}\n${out.stderr}`)
    assert.ok(out.stdout.trim().length > 0, `example ${i + 1} prints what it found`)
    assert.doesNotMatch(out.stdout, /undefined|NaN/, `example ${i + 1}: ${out.stdout}`)
    // the schema's example says what ajv found: the report it reads, as it is on disk, is valid
    if (code.includes('ajv')) assert.equal(out.stdout.trim(), 'valid', `example ${i + 1}: ajv on the file on disk`)
    t.diagnostic(`example ${i + 1}: ${out.stdout.trim().split('\n').join(' | ')}`)
  }
})
