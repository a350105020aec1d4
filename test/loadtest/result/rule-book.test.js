// The rule book is the only home of a verdict number: outside loadtest/result/rules.js, no numeric literal
// other than 0, 1, 2 or −1 stands in a comparison in the folders that judge (result/, run/round/, compare/).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Linter } from 'eslint'
import { ROOT, allServerNames, cpuStrategyNames, findServer } from '../../../loadtest/catalog.js'
import { COMPARE, TIE } from '../../../loadtest/result/rules.js'
import { STRATEGIES, warmFeed } from '../../../loadtest/result/strategies.js'

const JUDGING = ['loadtest/result', 'loadtest/run/round', 'loadtest/compare']
const BOOK = 'loadtest/result/rules.js'
const PLAIN = new Set([0, 1, 2, -1])
const COMPARISON = new Set(['<', '<=', '>', '>=', '==', '===', '!=', '!=='])

// The literal's number, its sign folded in (-1 is a unary minus over 1), or null.
function numberOf (node) {
  if (node.type === 'Literal' && typeof node.value === 'number') return node.value
  if (node.type === 'UnaryExpression' && node.operator === '-') {
    const v = numberOf(node.argument)
    return v === null ? null : -v
  }
  return null
}

// A rule that reports each numeric literal beside a comparison operator, or one step inside its operand
// (a product or sum: `x > 1.1 * y`), past the plain ones.
const bookOnly = {
  create: (context) => ({
    BinaryExpression (node) {
      if (!COMPARISON.has(node.operator)) return
      const sides = [node.left, node.right].flatMap((s) =>
        s.type === 'BinaryExpression' && !COMPARISON.has(s.operator) ? [s, s.left, s.right] : [s])
      for (const s of sides) {
        const v = numberOf(s)
        if (v !== null && !PLAIN.has(v)) context.report({ node: s, message: `${v} in a comparison` })
      }
    }
  })
}

// Every `file:line: n in a comparison` of `text` (named `file`).
export function strayNumbers (file, text) {
  const linter = new Linter()
  const config = {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    plugins: { house: { rules: { 'book-only': bookOnly } } },
    rules: { 'house/book-only': 'error' }
  }
  return linter.verify(text, config, file)
    .map((m) => (m.ruleId === 'house/book-only' || m.fatal ? `${file}:${m.line}: ${m.message}` : null))
    .filter(Boolean)
}

function files (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [])
}

test('rule book: no verdict number outside loadtest/result/rules.js stands in a comparison', () => {
  const found = JUDGING.flatMap((d) => files(join(ROOT, d)))
    .map((f) => relative(ROOT, f)).filter((f) => f !== BOOK)
    .flatMap((f) => strayNumbers(f, readFileSync(join(ROOT, f), 'utf8')))
  assert.deepEqual(found, [], 'a number a verdict compares against belongs in the rule book, with its why')
})

test('rule book: the check sees a number put back inline, beside a comparison or one step in', () => {
  assert.deepEqual(strayNumbers('a.js', 'if (workMs > 1.1 * cpuMs) f()\nif (share < 0.5) g()\n'),
    ['a.js:1: 1.1 in a comparison', 'a.js:2: 0.5 in a comparison'])
  assert.deepEqual(strayNumbers('b.js', 'if (x >= 0 && y === -1 && z < 2 * w) f()\n'), [])
})

test('strategy table: the catalog, the tie and compare\'s floors name the strategies of result/strategies.js', () => {
  assert.deepEqual(allServerNames().slice().sort(), Object.keys(STRATEGIES).sort())
  assert.deepEqual(TIE.simplicity, cpuStrategyNames().slice().sort((a, b) =>
    Object.keys(STRATEGIES).indexOf(a) - Object.keys(STRATEGIES).indexOf(b)))
  for (const key of Object.keys(COMPARE.serverFloors)) assert.ok(STRATEGIES[key.split('/')[0]], key)
  assert.equal(findServer('cluster-threads').starts, 'thread')
  assert.equal(warmFeed(findServer('cluster-threads')), null, 'a thread started per request is not a warm pool')
  assert.equal(warmFeed(findServer('queued-processes')), 'queue')
})
