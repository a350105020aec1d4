// Write report files atomically (temp file + link/rename in the same folder), never overwriting.
import { mkdir, writeFile, link, rename, unlink, access } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

// A report id that sorts by time and says where and what: 2026-11-22T04-31-07Z-host-experiment.
export function reportId (date, host, experiment) {
  const time = date.toISOString().replace(/\.\d{3}Z$/, 'Z').replaceAll(':', '-')
  const clean = (s) => String(s).toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown'
  return `${time}-${clean(host)}-${clean(experiment)}`
}

async function exists (path) {
  try { await access(path); return true } catch { return false }
}

// An id whose .json/.md/.html do not exist yet in dir (adds -2, -3 ... when needed).
export async function freeId (dir, id) {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? id : `${id}-${n}`
    const taken = await Promise.all(['json', 'md', 'html'].map((ext) => exists(join(dir, `${candidate}.${ext}`))))
    if (!taken.some(Boolean)) return candidate
  }
}

// Write text to path atomically (a temporary file in the same folder, then link or rename): readers
// never see a half-written file, and a failed write leaves no temporary file behind. Without `force`
// it fails with EEXIST rather than replace an existing file, even one that appears meanwhile.
export async function writeAtomic (path, text, { force = false } = {}) {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  try {
    await writeFile(tmp, text, { flag: 'wx' })
    if (force) await rename(tmp, path)
    else await link(tmp, path) // atomic, and refuses to replace an existing file
  } finally {
    await unlink(tmp).catch(() => {})
  }
  return path
}

// Make sure the output folder exists.
export async function ensureDir (dir) {
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
