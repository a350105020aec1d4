// --url against a service whose answers change every time (issue 48, M4, L3): without a mix class's
// `expect` no body is judged by the first answer (no mismatch counted, the capacity decided by latency);
// with an `expect`, mismatches are counted per class and shown in the Markdown; a URL's credentials
// reach no report file (JSON, Markdown, page); and a capacity sweep of `-m -H -b` sends that request and
// nothing else (its closed and open loops: lab-request.test.js).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labReport, runLab, tempDir } from '../helpers/lab.js'
import { startOwnService } from '../helpers/own-service.js'

test('--url -m POST -H … -b … capacity --quick of a service whose bodies change every answer, its URL with user:password: only that request, no mismatch, a capacity, no credentials in any report file', { timeout: 240000 }, async () => {
  const service = await startOwnService()
  const { dir, cleanup } = await tempDir()
  try {
    const url = service.url.replace('http://', 'http://user:s3cret-pw@') + '/api/render?v=1'
    const request = ['-m', 'POST', '-H', 'content-type: application/json', '-b', '{"rows":3}']
    const run = await runLab(['--url', url, ...request, '--experiment', 'capacity', '--quick', '--slo', '800', '--out', dir])
    assert.equal(run.exitCode, 0, run.stderr)
    const files = await readdir(dir)
    assert.deepEqual(files.map((f) => f.split('.').at(-1)).sort(), ['html', 'json', 'md'])
    for (const f of files) {
      const text = await readFile(join(dir, f), 'utf8')
      assert.doesNotMatch(text, /s3cret-pw/, `${f} holds no password`)
      assert.doesNotMatch(text, /user:/, `${f} holds no user information`)
    }
    assert.doesNotMatch(run.stderr, /s3cret-pw/, 'nor the terminal')
    const json = JSON.parse(await readFile(join(dir, files.find((f) => f.endsWith('.json'))), 'utf8'))
    const [r] = json.results
    assert.equal(r.status, 'ok', JSON.stringify(r.failure))
    assert.equal(r.requests.mismatches, 0, 'bodies that differ every time are no mismatch')
    assert.ok(r.capacity.capacity.rps > 0, JSON.stringify(r.capacity.capacity))
    assert.ok(r.notes.some((n) => /--url: bodies not compared/.test(n)), r.notes.join('\n'))
    assert.match(json.method.command, /http:\/\/\*\*\*@127\.0\.0\.1/)
    // the sweep, its range probe, readiness and recovery: that request and nothing else, each with a User-Agent
    const seen = await service.seen()
    assert.deepEqual(Object.keys(seen.counts), ['POST /api/render?v=1 {"rows":3}'], JSON.stringify(seen.counts))
    assert.equal(seen.noUserAgent, 0)
  } finally {
    await service.stop()
    await cleanup()
  }
})

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
