// Where an --html page may go, for every CLI that writes one (compare, history): checked before any work,
// so that a page never replaces an input report and a refusal comes before minutes of reading.
import { stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

// Why `page` cannot take the page, or null: { code, message } with code 'folder' (its folder is missing or
// not one), 'input' (it is one of `inputs`, by path or the same file through a link) or 'exists' (without
// `force`). `inputs`: every file the command reads.
export async function pageFault (page, inputs, { force = false } = {}) {
  const dir = dirname(resolve(page))
  const info = await stat(dir).catch((err) => err)
  if (info instanceof Error || !info.isDirectory()) {
    const why = info instanceof Error ? (info.code === 'ENOENT' ? 'does not exist' : info.code) : 'is not a folder'
    return { code: 'folder', message: `--html: cannot write ${page}: its folder ${dir} ${why}` }
  }
  const same = (a, b) => a && b && a.dev === b.dev && a.ino === b.ino
  const pageInfo = await stat(page).catch(() => null)
  for (const file of inputs) {
    if (resolve(file) === resolve(page) || same(pageInfo, await stat(file).catch(() => null))) {
      return { code: 'input', message: `--html ${page} is the input report ${file}; write the page to another file` }
    }
  }
  if (!force && pageInfo) return { code: 'exists', message: `${page} exists; pass --force to overwrite it` }
  return null
}

// Why a page could not be written (report/write.js writeAtomic's error), as one line.
export function pageWriteText (err, page) {
  if (err.code === 'EEXIST') return `${page} exists; pass --force to overwrite it`
  if (err.code === 'LAB_NOT_A_FILE') {
    return `--html: cannot write ${page}: it is ${err.what}, not a regular file (only one is replaced)`
  }
  return `--html: cannot write ${page}: ${err.code ?? err.message}`
}
