// The architecture, checked: loadtest/result/ (the result, its key and trust rules) is pure data below
// everything and imports nothing above it; the run (measuring) and the report (rendering) never import
// each other; compare lines reports up with result/ and renders with report/, never the run; merge (shard
// reports into one) neither.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../loadtest/catalog.js'

// Every .js file below dir.
function files (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [])
}

// The relative imports of a file (static and dynamic with a literal), as paths from the root.
function importsOf (file) {
  const text = readFileSync(file, 'utf8')
  const out = []
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    out.push(relative(ROOT, resolve(dirname(file), m[1] ?? m[2])))
  }
  return out
}

// [file, import] pairs below `from` whose import falls under one of `banned` (folders from the root).
function violations (from, banned) {
  const out = []
  for (const file of files(join(ROOT, from))) {
    for (const target of importsOf(file)) {
      if (banned.some((b) => target === b || target.startsWith(b + '/'))) out.push(`${relative(ROOT, file)} → ${target}`)
    }
  }
  return out
}

test('import rules: result/ imports only result/ (and packages)', () => {
  const outside = []
  for (const file of files(join(ROOT, 'loadtest/result'))) {
    for (const target of importsOf(file)) if (!target.startsWith('loadtest/result/')) outside.push(`${file} → ${target}`)
  }
  assert.deepEqual(outside, [])
})

test('import rules: run and report never import each other; compare and merge never import the run', () => {
  assert.deepEqual(violations('loadtest/run', ['loadtest/report', 'loadtest/compare', 'loadtest/experiments']), [])
  assert.deepEqual(violations('loadtest/report', ['loadtest/run', 'loadtest/compare', 'loadtest/lab.js']), [])
  assert.deepEqual(violations('loadtest/compare', ['loadtest/run', 'loadtest/lab.js']), [])
  assert.deepEqual(violations('loadtest/merge', ['loadtest/run', 'loadtest/lab.js']), [])
})

test('import rules: the checker sees a violation when there is one', () => {
  // The rule above is only as good as the import scan: it must find known imports.
  assert.ok(importsOf(join(ROOT, 'loadtest/lab.js')).includes('loadtest/result/build.js'))
  assert.ok(violations('loadtest/lab.js'.replace('/lab.js', ''), ['loadtest/result']).length > 0)
})
