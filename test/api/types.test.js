// index.d.ts: a TypeScript script using the API compiles under tsc --noEmit --strict (the package resolved
// by its own name, through the exports map, as a user's project resolves it), a script giving an option
// of the wrong type does not, and the declarations name every function index.js exports.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { execa } from 'execa'
import * as api from '../../index.js'
import { ROOT } from '../helpers/lab.js'

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const FIXTURES = join(ROOT, 'test', 'fixtures', 'types')

// tsc --noEmit --strict on one file, as Node's ES modules resolve (nodenext); { exitCode, stdout }.
function tsc (file) {
  const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--lib', 'es2022,dom']
  return execa(process.execPath, [TSC, ...flags, join(FIXTURES, file)], { cwd: ROOT, reject: false })
}

test('types: the consumer compiles with tsc --noEmit --strict; an option of the wrong type does not', async () => {
  const ok = await tsc('consumer.ts')
  assert.equal(ok.exitCode, 0, ok.stdout)
  const wrong = await tsc('wrong-option.ts')
  assert.notEqual(wrong.exitCode, 0)
  assert.match(wrong.stdout, /wrong-option\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)
})

test('types: index.d.ts declares what index.js exports, and nothing else', () => {
  const dts = readFileSync(join(ROOT, 'index.d.ts'), 'utf8')
  const declared = [...dts.matchAll(/^export declare (?:function|class) (\w+)/gm)].map((m) => m[1])
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(api).sort())
})
