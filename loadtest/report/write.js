// Write report files atomically (temp file + link/rename in the same folder), never overwriting, and
// never losing a measured run: the JSON first, a free id even against a concurrent lab, and a fallback
// folder when the chosen one cannot take it.
import * as fsp from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { LabError } from '../errors.js'

const { mkdir, writeFile, unlink } = fsp

// Where reports go when the --out folder cannot take them (full, gone, read-only, not a folder).
const FALLBACK_DIR = join(tmpdir(), 'loadlab-reports')

// A report id that sorts by time and says where and what: 2026-11-22T04-31-07Z-host-experiment, and a shard's
// part (-shard-2-of-3): the shards of one plan start in the same second, often on hosts of one name.
export function reportId (date, host, experiment, shard = null) {
  const time = date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-')
  const clean = (s) =>
    String(s)
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'unknown'
  const part = shard ? `-shard-${shard.index}-of-${shard.count}` : ''
  return `${time}-${clean(host)}-${clean(experiment)}${part}`
}

async function exists (path, fs = fsp) {
  try {
    await fs.access(path)
    return true
  } catch {
    return false
  }
}

// The files a report id takes: its JSON (plain or --gzip), Markdown and page.
const EXTS = ['json', 'json.gz', 'md', 'html']

// An id whose .json/.json.gz/.md/.html do not exist yet in dir (adds -2, -3 ... when needed).
export async function freeId (dir, id, fs = fsp) {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? id : `${id}-${n}`
    const taken = await Promise.all(EXTS.map((ext) => exists(join(dir, `${candidate}.${ext}`), fs)))
    if (!taken.some(Boolean)) return candidate
  }
}

// What a path is, in words, when it is there and not a regular file (lstat: a link is a link); else null.
async function notRegular (path, fs) {
  const info = await fs.lstat(path).catch((err) => (err.code === 'ENOENT' ? null : err))
  if (info === null || info instanceof Error || info.isFile()) return info instanceof Error ? info.code : null
  if (info.isSymbolicLink()) return 'a symbolic link'
  if (info.isDirectory()) return 'a folder'
  if (info.isFIFO()) return 'a FIFO'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  return 'a socket'
}

// A path `force` would replace that is not a regular file (a link, FIFO, device, folder): one line, code
// LAB_NOT_A_FILE with `what` it is; a rename over it would replace the node itself (as root, /dev/full became a file).
async function checkReplaceable (path, fs) {
  const what = await notRegular(path, fs)
  if (!what) return
  const err = new LabError('LAB_NOT_A_FILE', `${path} is ${what}, not a regular file: only a regular file is replaced`)
  throw Object.assign(err, { what })
}

// Write text to path atomically (a temporary file in the same folder, then link or rename): readers
// never see a half-written file, and a failed write leaves no temporary file behind. Without `force`
// it fails with EEXIST rather than replace an existing file, even one that appears meanwhile; with it,
// only a regular file is replaced (checkReplaceable, before the write and again before the rename).
export async function writeAtomic (path, text, { force = false, fs = fsp } = {}) {
  if (force) await checkReplaceable(path, fs)
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`) // never shared
  try {
    await fs.writeFile(tmp, text, { flag: 'wx' })
    if (force) await checkReplaceable(path, fs)
    if (force) await fs.rename(tmp, path)
    else await fs.link(tmp, path) // atomic, and refuses to replace an existing file
  } finally {
    await fs.unlink(tmp).catch(() => {})
  }
  return path
}

// Write a report: `<id>.json` first (the measurement; `<id>.json.gz` with gzip), then one file per
// renderer ({ md: (report) → text, html: … }). The id is report.id or the next free suffix (a concurrent
// lab that took it first gets EEXIST and this one moves on); the JSON carries the id it was written
// under. When `dir` cannot take the JSON (disk full, folder gone or read-only), it goes to FALLBACK_DIR.
// Never throws for a file it could not write: returns { dir, id, paths, fallback: { from, reason } |
// null, errors }.
export async function writeReport (report, {
  dir, renderers = {}, fallbackDir = FALLBACK_DIR, fs = fsp, gzip = false
}) {
  const errors = []
  let fallback = null
  let placed = null
  for (const target of [dir, fallbackDir]) {
    try {
      placed = await writeJson(report, target, fs, gzip)
      break
    } catch (err) {
      if (target === fallbackDir) throw err // nowhere to put it: the caller still holds the report
      fallback = { from: dir, reason: err.code ?? err.message }
    }
  }
  const paths = [placed.path]
  for (const [ext, render] of Object.entries(renderers)) {
    const path = join(placed.dir, `${report.id}.${ext}`)
    try {
      await writeAtomic(path, render(report), { fs })
      paths.push(path)
    } catch (err) {
      errors.push({ file: path, message: err.code ?? err.message.split('\n')[0] })
    }
  }
  return { dir: placed.dir, id: report.id, paths, fallback, errors }
}

// The JSON under the first free id in dir (gzip: compressed, as <id>.json.gz); report.id is set to that id
// before it is serialised.
async function writeJson (report, dir, fs, gzip) {
  await fs.mkdir(dir, { recursive: true })
  const base = report.id
  for (let n = 1; n < 1000; n++) {
    const id = n === 1 ? base : `${base}-${n}`
    const taken = await Promise.all(EXTS.map((ext) => exists(join(dir, `${id}.${ext}`), fs)))
    if (taken.some(Boolean)) continue
    report.id = id
    try {
      const text = JSON.stringify(report, null, 2) + '\n'
      const path = join(dir, gzip ? `${id}.json.gz` : `${id}.json`)
      await writeAtomic(path, gzip ? gzipSync(text) : text, { fs })
      return { dir, path }
    } catch (err) {
      report.id = base
      if (err.code !== 'EEXIST') throw err // EEXIST: another lab took this id a moment ago
    }
  }
  throw new Error(`no free report name for ${base} in ${dir}`)
}

// Make sure the output folder exists.
async function ensureDir (dir) {
  await mkdir(dir, { recursive: true })
}

// Make sure reports can be written into dir (created if missing) by writing and removing a probe file:
// checked before any server starts, so a bad --out never costs a measured run.
export async function checkWritableDir (dir) {
  await ensureDir(dir)
  const probe = join(dir, `.loadlab-write-check-${process.pid}`)
  await writeFile(probe, '', { flag: 'wx' })
  await unlink(probe)
}
