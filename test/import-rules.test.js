// The architecture, checked: loadtest/settings.js (every default and shared constant) and loadtest/result/
// (the result, its key and trust rules) are pure data below everything and reach nothing above them; the
// run (measuring) and the report (rendering) never import each other; compare lines reports up with result/
// and renders with report/, never the run; merge (shard reports into one) neither.
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

// The relative imports of a file (static, for its side effects, and dynamic with a literal), as paths from the root.
function importsOf (file) {
  const text = readFileSync(file, 'utf8')
  const out = []
  const re = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)import\s*['"](\.[^'"]+)['"]/g
  for (const m of text.matchAll(re)) {
    out.push(relative(ROOT, resolve(dirname(file), m[1] ?? m[2] ?? m[3])))
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

// Every file a file reaches through its imports, directly or not (itself excluded), as paths from the root.
function reach (file) {
  const seen = new Set()
  const walk = (f) => {
    for (const target of importsOf(join(ROOT, f))) {
      if (seen.has(target)) continue
      seen.add(target)
      walk(target)
    }
  }
  walk(file)
  seen.delete(file)
  return seen
}

// [file → reached] pairs of the files below `from` that reach a file for which allowed(path) is false.
function reachedOutside (from, allowed) {
  const start = from.endsWith('.js') ? [join(ROOT, from)] : files(join(ROOT, from))
  return start.flatMap((f) => [...reach(relative(ROOT, f))].filter((t) => !allowed(t)).map((t) => `${relative(ROOT, f)} → ${t}`))
}

test('import rules: settings.js and result/ reach only each other (and packages), directly or not', () => {
  const below = (t) => t.startsWith('loadtest/result/') || t === 'loadtest/settings.js'
  assert.deepEqual(reachedOutside('loadtest/settings.js', below), [])
  assert.deepEqual(reachedOutside('loadtest/result', below), [])
})

test('import rules: text/ (every figure, name and sentence) reaches only result/ and settings.js below it', () => {
  const allowed = (t) => /^loadtest\/(text|result)\//.test(t) || t === 'loadtest/settings.js'
  assert.deepEqual(reachedOutside('loadtest/text', allowed), [])
})

test('import rules: what run/, report/, compare/ and merge/ reach, directly or not', () => {
  const under = (banned) => (t) => !banned.some((b) => t === b || t.startsWith(b + '/'))
  const above = ['loadtest/options.js', 'loadtest/lab.js', 'loadtest/cli.js']
  assert.deepEqual(reachedOutside('loadtest/run', under(['loadtest/report', 'loadtest/compare', 'loadtest/experiments', ...above])), [])
  assert.deepEqual(reachedOutside('loadtest/report', under(['loadtest/run', 'loadtest/compare', 'loadtest/experiments', ...above])), [])
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
  // and what a file reaches through another: lab.js reaches result/stats.js only through others
  assert.ok(!importsOf(join(ROOT, 'loadtest/lab.js')).includes('loadtest/result/stats.js'))
  assert.ok(reach('loadtest/lab.js').has('loadtest/result/stats.js'))
})

// The packages the files a package ships import by name (static, dynamic, require, a worker's module).
function packagesImported () {
  const shipped = ['index.js', ...['bin', 'loadtest', 'servers'].flatMap((d) => filesOf(join(ROOT, d)))]
  const names = new Set()
  const re = /(?:from|import\(|require\(|lazyRequire\(|import)\s*['"]((?:@[\w.-]+\/)?[\w.-]+)[^'"]*['"]/g
  for (const file of shipped) {
    for (const m of readFileSync(resolve(ROOT, file), 'utf8').matchAll(re)) {
      if (!m[1].startsWith('node:') && !m[1].startsWith('.')) names.add(m[1])
    }
  }
  return names
}

// Every .js, .cjs and .mjs file below dir.
function filesOf (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOf(join(dir, e.name)) : /\.[cm]?js$/.test(e.name) ? [join(dir, e.name)] : [])
}

test('a runtime dependency is one the installed package imports; the package imports no dev dependency', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const used = packagesImported()
  assert.deepEqual(Object.keys(pkg.dependencies).filter((d) => !used.has(d)), [], 'dependencies nothing shipped imports')
  assert.deepEqual(Object.keys(pkg.devDependencies).filter((d) => used.has(d)), [], 'dev dependencies a shipped file imports')
})
