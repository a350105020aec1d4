// One service time per work: docs/servers.md's table is what scripts/service-times.js makes from the
// reference reports, and every page that says how long a work takes says the table's figure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { PAGE, serviceTable, withTable } from '../../scripts/service-times.js'
import { ROOT } from '../../loadtest/catalog.js'

test('docs/servers.md\'s service times are the reference reports\' calibrations', () => {
  const page = readFileSync(PAGE, 'utf8')
  assert.equal(withTable(page, serviceTable()), page, 'run node scripts/service-times.js')
  assert.throws(() => withTable('no block', serviceTable()), /no <!-- service-times/)
})

test('a page that says how long a work takes says the table\'s figure', () => {
  const table = Object.fromEntries([...serviceTable().matchAll(/^\| `([^`]+)` \| ([\d.]+) ms/gm)].map((m) => [m[1], m[2]]))
  assert.equal(Object.keys(table).length, 4)
  const pages = ['README.md', 'reports/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)]
  const said = /`(loop:[\de]+)`[^.\n|]{0,30}?(?:about|≈|calibrated at|:)\s*([\d.]+) ms(?! of CPU)/g
  const wrong = []
  for (const file of pages) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(said)) {
      if (table[m[1]] && table[m[1]] !== m[2]) wrong.push(`${file}: ${m[0]} (the table: ${table[m[1]]} ms)`)
    }
  }
  assert.deepEqual(wrong, [])
})
