// --url against a service whose answers change every time (issue 48, M4): with a mix class's `expect`,
// mismatches are counted per class and shown in the Markdown. Without one no body is judged, and a URL's
// credentials reach no report file: mix-url.test.js's capacity sweep.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labReport, tempDir } from '../helpers/lab.js'
import { startOwnService } from '../helpers/own-service.js'

test('a mix class with an expect the answers miss: its mismatches counted per class and shown in the Markdown', async () => {
  const service = await startOwnService()
  const { dir, cleanup } = await tempDir()
  try {
    const mix = join(dir, 'expects.json')
    await writeFile(mix, JSON.stringify({
      requests: [
        { name: 'items', weight: 1, path: '/api/items?id=7', expect: { bodyIncludes: '"never-there"' } },
        { name: 'plain', weight: 1, path: '/api/items?id=8' }
      ]
    }))
    const { json, md } = await labReport(['--url', `${service.url}/`, '--mix', mix, '--rate', '100', '--amount', '100',
      '--warmup', '0', '--out', join(dir, 'out')], { html: false })
    const [r] = json.results
    const [items, plain] = r.classes
    assert.equal(items.requests.mismatches, items.requests.ok, 'every answer of the class misses its expect')
    assert.ok(items.requests.mismatches > 0)
    assert.equal(plain.requests.mismatches, 0, 'a class without expect judges no body')
    assert.equal(r.requests.mismatches, items.requests.mismatches)
    // the class's row in the results table, under its run: its mismatch column
    const lines = md.split('\n')
    const row = lines.find((l) => /^\| +· items \|/.test(l))
    assert.ok(row, md)
    const head = lines[lines.indexOf(row) - 3].split('|').map((c) => c.trim())
    assert.equal(row.split('|').map((c) => c.trim())[head.indexOf('mism')], String(items.requests.mismatches), row)
  } finally {
    await service.stop()
    await cleanup()
  }
})
