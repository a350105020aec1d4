// Writing a report never loses the run: the JSON first, a fallback folder when --out cannot take it,
// no partial or temporary file left behind, and two labs with the same id both keep their report.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as fsp from 'node:fs/promises'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { freeId, reportId, writeAtomic, writeReport } from '../../../loadtest/report/write.js'
import { startLab, tempDir } from '../../helpers/lab.js'

const report = (id = '2026-11-22T10-00-00Z-box-custom') => ({
  schema: 1,
  kind: 'loadlab-report',
  id,
  results: [],
  notes: []
})

// fs whose writes into `dir` fail with `code` (as a full disk or a read-only folder would).
function failingIn (dir, code) {
  const fail = (path) => {
    if (String(path).startsWith(dir)) throw Object.assign(new Error(`${code}: simulated`), { code })
  }
  return {
    ...fsp,
    async writeFile (path, ...rest) {
      if (String(path).startsWith(dir)) {
        await fsp.writeFile(path, 'partial') // a half-written temporary file, as a full disk leaves
        fail(path)
      }
      return fsp.writeFile(path, ...rest)
    },
    async link (from, to) {
      fail(to)
      return fsp.link(from, to)
    }
  }
}

test('a folder that cannot take the report: the JSON goes to the fallback, nothing partial is left', async (t) => {
  const out = await tempDir()
  const spare = await tempDir()
  t.after(() => Promise.all([out.cleanup(), spare.cleanup()]))
  for (const code of ['ENOSPC', 'EROFS']) {
    const r = report()
    const res = await writeReport(r, {
      dir: out.dir,
      fallbackDir: spare.dir,
      renderers: { md: () => '# md' },
      fs: failingIn(out.dir, code)
    })
    assert.deepEqual(res.fallback, { from: out.dir, reason: code })
    assert.equal(res.dir, spare.dir)
    const saved = JSON.parse(await fsp.readFile(join(spare.dir, `${res.id}.json`), 'utf8'))
    assert.equal(saved.id, res.id)
    assert.deepEqual(await fsp.readdir(out.dir), [], `${code}: no .tmp or partial file left in --out`)
  }
  assert.deepEqual(
    (await fsp.readdir(spare.dir)).filter((f) => f.endsWith('.tmp')),
    []
  )
})

test('a renderer that throws: the JSON and the other files are written, the error is returned', async (t) => {
  const out = await tempDir()
  t.after(out.cleanup)
  const res = await writeReport(report(), {
    dir: out.dir,
    renderers: {
      md: () => '# md',
      html: () => {
        throw new Error('boom')
      }
    }
  })
  assert.equal(res.fallback, null)
  assert.deepEqual((await fsp.readdir(out.dir)).sort(), [`${res.id}.json`, `${res.id}.md`])
  assert.deepEqual(
    res.errors.map((e) => e.message),
    ['boom']
  )
})

test('two labs writing the same report id at the same moment: both reports kept, each under its own id', async (t) => {
  const out = await tempDir()
  t.after(out.cleanup)
  const a = report()
  const b = report()
  const [ra, rb] = await Promise.all([writeReport(a, { dir: out.dir }), writeReport(b, { dir: out.dir })])
  assert.notEqual(ra.id, rb.id)
  assert.deepEqual([ra.id, rb.id].sort(), ['2026-11-22T10-00-00Z-box-custom', '2026-11-22T10-00-00Z-box-custom-2'])
  for (const r of [ra, rb]) {
    const saved = JSON.parse(await fsp.readFile(join(out.dir, `${r.id}.json`), 'utf8'))
    assert.equal(saved.id, r.id, 'the JSON carries the id it was written under')
  }
})

test('--out replaced by a file mid-run: the lab writes to the fallback folder, says where, exits 1', async (t) => {
  const out = await tempDir()
  const tmp = await tempDir()
  t.after(() => Promise.all([out.cleanup(), tmp.cleanup()]))
  const dir = join(out.dir, 'reports')
  const lab = startLab(
    [
      '--server',
      'simple',
      '--work',
      'loop:1e5',
      '--connections',
      '2',
      '--amount',
      '2000',
      '--warmup',
      '0',
      '--out',
      dir
    ],
    {
      env: { LOADLAB_PROGRESS: '1', TMPDIR: tmp.dir }
    }
  )
  let stderr = ''
  await new Promise((resolve, reject) => {
    lab.stderr.on('data', async (d) => {
      stderr += d
      if (/measuring/.test(stderr) && !lab.replaced) {
        lab.replaced = true
        await fsp.rm(dir, { recursive: true, force: true })
        await fsp.writeFile(dir, 'not a folder any more')
        resolve()
      }
    })
    lab.then(() => reject(new Error(`lab ended before measuring: ${stderr}`)), reject)
  })
  const res = await lab
  assert.equal(res.exitCode, 1, res.stderr)
  const where = join(tmp.dir, 'loadlab-reports')
  assert.match(
    res.stderr,
    new RegExp(`could not write into ${dir} \\((ENOTDIR|EEXIST)\\): the report went to ${where}`)
  )
  const files = await fsp.readdir(where)
  const json = files.find((f) => f.endsWith('.json'))
  const saved = JSON.parse(await fsp.readFile(join(where, json), 'utf8'))
  assert.equal(saved.results[0].requests.completed, 2000, 'the whole measured run is in the fallback report')
  assert.ok(files.some((f) => f.endsWith('.html')) && files.some((f) => f.endsWith('.md')))
  assert.deepEqual(
    files.filter((f) => f.endsWith('.tmp')),
    []
  )
  assert.equal(await fsp.readFile(dir, 'utf8'), 'not a folder any more', 'nothing written over what took its place')
})

test('write: ids sort by time, files are written atomically and never overwritten', async () => {
  const id = reportId(new Date('2026-11-22T04:31:07.123Z'), 'My Host', 'heavy-cpu')
  assert.equal(id, '2026-11-22T04-31-07Z-my-host-heavy-cpu')
  assert.equal(reportId(new Date('2026-11-22T04:31:07.123Z'), 'My Host', 'custom', { index: 2, count: 3 }),
    '2026-11-22T04-31-07Z-my-host-custom-shard-2-of-3', 'shards of one plan started in one second on one host differ')
  const out = await tempDir()
  try {
    const first = await freeId(out.dir, id)
    assert.equal(first, id)
    await writeAtomic(join(out.dir, `${first}.json`), '{"a":1}')
    await assert.rejects(writeAtomic(join(out.dir, `${first}.json`), '{"a":2}'), { code: 'EEXIST' })
    assert.equal(await fsp.readFile(join(out.dir, `${first}.json`), 'utf8'), '{"a":1}')
    assert.equal(await freeId(out.dir, id), `${id}-2`)
    assert.deepEqual(await fsp.readdir(out.dir), [`${id}.json`], 'no temporary file left')
  } finally {
    await out.cleanup()
  }
})

test('writeAtomic with force replaces a regular file only: a link, FIFO, folder or device is refused', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const file = join(dir, 'page.html')
  await fsp.writeFile(file, 'old')
  await writeAtomic(file, 'new', { force: true })
  assert.equal(await fsp.readFile(file, 'utf8'), 'new', 'a regular file is replaced')
  const target = join(dir, 'target.txt')
  await fsp.writeFile(target, 'kept')
  await fsp.symlink(target, join(dir, 'link.html'))
  execFileSync('mkfifo', [join(dir, 'fifo.html')])
  await fsp.mkdir(join(dir, 'folder.html'))
  for (const [name, what] of [['link.html', 'a symbolic link'], ['fifo.html', 'a FIFO'], ['folder.html', 'a folder']]) {
    const path = join(dir, name)
    await assert.rejects(writeAtomic(path, 'page', { force: true }), (err) => {
      assert.equal(err.code, 'LAB_NOT_A_FILE')
      assert.equal(err.message, `${path} is ${what}, not a regular file: only a regular file is replaced`)
      return true
    })
  }
  assert.ok((await fsp.lstat(join(dir, 'link.html'))).isSymbolicLink(), 'the link is still a link')
  assert.ok((await fsp.lstat(join(dir, 'fifo.html'))).isFIFO(), 'the FIFO is still a FIFO')
  assert.equal(await fsp.readFile(target, 'utf8'), 'kept')
  // a device (as root a rename over /dev/full made it a file): lstat says so, nothing is written
  const no = () => false
  const info = { isFile: no, isSymbolicLink: no, isDirectory: no, isFIFO: no, isBlockDevice: no }
  info.isCharacterDevice = () => true
  const device = { ...fsp, lstat: async () => info, writeFile: async () => assert.fail('nothing written') }
  const full = writeAtomic(join(dir, 'full'), 'page', { force: true, fs: device })
  await assert.rejects(full, /is a device, not a regular file/)
  assert.deepEqual((await fsp.readdir(dir)).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left')
})
