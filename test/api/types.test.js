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

// tsc --noEmit --strict on the files, as Node's ES modules resolve (nodenext); { exitCode, stdout }.
function tsc (...files) {
  const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--lib', 'es2022,dom']
  return execa(process.execPath, [TSC, ...flags, ...files.map((f) => join(FIXTURES, f))], { cwd: ROOT, reject: false })
}

// One tsc program of both files (one compiler start, not two): each is a module of its own, so the errors
// are each file's own; the consumer has none, the wrong option its one.
test('types: the consumer compiles with tsc --noEmit --strict; an option of the wrong type does not', async () => {
  const both = await tsc('consumer.ts', 'wrong-option.ts')
  assert.notEqual(both.exitCode, 0)
  const errors = both.stdout.split('\n').filter((l) => /: error TS\d+:/.test(l))
  assert.deepEqual(errors.filter((l) => !/^\S*wrong-option\.ts\(/.test(l)), [], 'the consumer compiles')
  assert.equal(errors.length, 1, both.stdout)
  assert.match(both.stdout, /wrong-option\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)
})

test('types: index.d.ts declares what index.js exports, and nothing else', () => {
  const dts = readFileSync(join(ROOT, 'index.d.ts'), 'utf8')
  const declared = [...dts.matchAll(/^export declare (?:function|class) (\w+)/gm)].map((m) => m[1])
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(api).sort())
})

// The fields an interface of index.d.ts names (its own lines, not those of a nested type).
function declaredFields (dts, name) {
  const body = new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(dts)?.[1] ?? ''
  return new Set([...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]))
}

test('types: Decision names every field a reference capacity report\'s decision has, as readReport gives it', async () => {
  const dts = readFileSync(join(ROOT, 'index.d.ts'), 'utf8')
  const declared = declaredFields(dts, 'Decision')
  const { readReport } = api
  const report = await readReport(join(ROOT, 'reports', 'reference', '2026-11-26T16-16-56Z-vm-capacity.json.gz'))
  assert.deepEqual(Object.keys(report.decision).filter((k) => !declared.has(k)), [])
  for (const k of ['refused', 'confirm', 'unmet', 'changes']) assert.ok(declared.has(k), k)
})
