// What the documentation test reads out of Markdown: links, heading anchors, the commands a reader is
// told to type, the paths of repository files it names, and tables quoted from reports. Pure functions
// of text; test/docs.test.js checks their findings against the repository.

const FENCE = /^(```|~~~)/

// The text outside fenced code blocks (a link in a code block is not a link), line numbers kept.
export function prose (md) {
  let inFence = false
  return md.split('\n').map((line) => {
    if (FENCE.test(line.trim())) {
      inFence = !inFence
      return ''
    }
    return inFence ? '' : line
  }).join('\n')
}

// Every Markdown link and image target outside code, with its line: { line, target }.
export function links (md) {
  const out = []
  prose(md).split('\n').forEach((text, i) => {
    // inline code is not a link either: `[a](b)` in backticks stays text
    const bare = text.replace(/`[^`]*`/g, '')
    for (const m of bare.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ line: i + 1, target: m[1] })
    }
  })
  return out
}

// A link that leaves the repository (a URL, mail) rather than naming one of its files.
export function isExternal (target) {
  return /^[a-z][a-z0-9+.-]*:/i.test(target)
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
export function slug (heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

// Every anchor a Markdown file offers: its headings, as GitHub numbers repeats (name, name-1, …), and its
// `<a id="…">` anchors.
export function anchors (md) {
  const seen = new Map()
  const out = new Set()
  for (const line of prose(md).split('\n')) {
    for (const a of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(a[1]) // an explicit anchor (the glossary's terms)
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!m) continue
    const base = slug(m[1])
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

// Every `npm run X` (also `npm run -s X`) and `npx loadlab X` a reader is told, code blocks included:
// { line, tool: 'npm' | 'npx', name, args } where args is the rest of the command up to a comment.
export function commands (md) {
  const out = []
  md.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/\bnpm run (?:-s |--silent )?([\w:.-]*\w)([^`#|]*)/g)) {
      out.push({ line: i + 1, tool: 'npm', name: m[1], args: m[2].trim() })
    }
    for (const m of text.matchAll(/\bnpx loadlab(?:\s+([^\s`#|)]+))?([^`#|]*)/g)) {
      const url = /^https?:\/\//.test(m[1] ?? '') // `npx loadlab URL …`: the lab, its URL given alone
      out.push({ line: i + 1, tool: 'npx', name: url ? '' : m[1] ?? '', args: m[2].trim() })
    }
  })
  return out
}

// The `--options` of a command line (not those after a `--` meant for a subcommand of the same tool).
export function flags (args) {
  return [...args.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((m) => m[1])
}

const ROOT_DIRS = ['bench', 'bin', 'docs', 'examples', 'loadtest', 'reports', 'scripts', 'servers', 'test']

// Paths of repository files the text names in passing (`loadtest/run/generate/body.js`, a comment's
// docs/shards.md): from a top folder to a file with an extension, no wildcard or placeholder in it.
export function filePaths (text) {
  const out = []
  const re = new RegExp(`(?<![\\w./~-])((?:${ROOT_DIRS.join('|')})/[\\w./-]*\\.(?:js|md|json\\.gz|json|yml|yaml|png|html))(?![\\w*<>/-])`, 'g')
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(re)) out.push({ line: i + 1, path: m[1] })
  })
  return out
}

// The blocks between `<!-- quote: FILE -->` and `<!-- /quote -->`: text that must stand in FILE as it is.
export function quotes (md) {
  const out = []
  const re = /<!-- quote: (\S+) -->\n([\s\S]*?)\n<!-- \/quote -->/g
  for (const m of md.matchAll(re)) {
    out.push({ line: md.slice(0, m.index).split('\n').length, file: m[1], text: m[2] })
  }
  return out
}

// The cells of a Markdown table row.
const cellsOf = (row) => row.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim())

// Every Markdown table outside code blocks: { line, head (header cells), rows (body rows' cells) }.
export function markdownTables (md) {
  const lines = md.split('\n')
  const out = []
  let inFence = false
  for (let i = 0; i < lines.length; i++) {
    if (FENCE.test(lines[i].trim())) inFence = !inFence
    if (inFence || !lines[i].startsWith('|') || lines[i - 1]?.startsWith('|')) continue
    const rows = []
    for (let j = i; lines[j]?.startsWith('|'); j++) rows.push(cellsOf(lines[j]))
    out.push({ line: i + 1, head: rows[0], rows: rows.slice(2) })
  }
  return out
}

// The tables outside code and quote blocks whose lead-in, the paragraph right above them, names files
// under reports/: { line, reports (the paths as written), head (header cells), rows (body rows' cells) }.
export function reportTables (md) {
  const lines = md.split('\n')
  const out = []
  let inFence = false
  let inQuote = false
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    if (FENCE.test(l.trim())) inFence = !inFence
    if (l.startsWith('<!-- quote:')) inQuote = true
    if (l.startsWith('<!-- /quote -->')) inQuote = false
    if (inFence || inQuote || !l.startsWith('|') || lines[i - 1]?.startsWith('|')) continue
    const rows = []
    for (let j = i; lines[j]?.startsWith('|'); j++) rows.push(cellsOf(lines[j]))
    let k = i - 1
    while (k >= 0 && lines[k].trim() === '') k--
    const lead = []
    while (k >= 0 && lines[k].trim() !== '' && !/^[|#]/.test(lines[k])) lead.unshift(lines[k--])
    const reports = [...new Set([...lead.join(' ').matchAll(/(?:\.\.\/)*reports\/[\w./-]+?\.(?:md|json|html)\b/g)].map((m) => m[0]))]
    if (reports.length) out.push({ line: i + 1, reports, head: rows[0], rows: rows.slice(2) })
  }
  return out
}

// Columns a report does not hold: `study`, the published study's own figures, and `label`, the verdict
// in words. The first column names the row.
const NOT_FROM_THE_REPORT = new Set(['study', 'label'])

// The numbers written in a text, commas dropped.
const numbersIn = (text) => [...text.matchAll(/\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?/g)]
  .map((m) => Number(m[0].replace(/,/g, ''))).filter(Number.isFinite)

// A JSON report's text as far as a table row can draw on it: where results' keys name the row (`simple`
// names `simple@…`, `simple/under-pressure@…` not), those results and the report's other fields; else all.
function jsonOfRow (text, name) {
  let report
  try { report = JSON.parse(text) } catch { return text }
  const mine = (report.results ?? []).filter((r) => typeof r?.key === 'string' && (r.key === name || r.key.startsWith(`${name}@`)))
  return mine.length ? JSON.stringify({ ...report, results: mine }) : text
}

// The figures of a report table (reportTables) that its reports do not hold: `markdown` and `json`, the
// named reports' texts. A figure stands where a number rounds to it at the precision it is written with (a
// percentage also as a share, seconds also as milliseconds), in the Markdown's lines that name the row
// (its first cell, code marks and a trailing remark dropped; every line where none does) or in the JSON
// (jsonOfRow). Code spans are not figures. Each { row, figure }.
export function unbackedFigures (table, { markdown = [], json = [] }) {
  const out = []
  for (const row of table.rows) {
    const name = row[0].replace(/`/g, '').replace(/\s*\(.*\)$/, '').trim()
    const own = markdown.flatMap((t) => t.split('\n')).filter((l) => name && l.includes(name))
    const drawn = [...(own.length ? own : markdown), ...json.map((j) => jsonOfRow(j, name))]
    const numbers = numbersIn(drawn.join('\n'))
    const rounds = (x, digits, figure) => Math.abs(Math.round(x * 10 ** digits) / 10 ** digits - figure) < 1e-9
    const holds = (figure, digits, unit) => numbers.some((n) => rounds(n, digits, figure) ||
      (unit === '%' && rounds(n * 100, digits, figure)) || (unit === 's' && rounds(n / 1000, digits, figure)))
    row.forEach((cell, i) => {
      if (i === 0 || NOT_FROM_THE_REPORT.has(table.head[i])) return
      for (const m of cell.replace(/`[^`]*`/g, '').matchAll(/(\d[\d,]*(?:\.\d+)?)(?:\s*(%|s\b))?/g)) {
        const written = m[1].replace(/,$/, '').replace(/,/g, '')
        if (!holds(Number(written), (written.split('.')[1] ?? '').length, m[2])) out.push({ row: row[0], figure: m[0].trim() })
      }
    })
  }
  return out
}

// Figures quoted in prose from a kept report, each a link to the report whose title is the field's path:
// `[75.3](../reports/reference/X.json "results[1].capacity.capacity.rps")`. { line, figure, target, field }.
export function figureLinks (md) {
  const out = []
  prose(md).split('\n').forEach((text, i) => {
    for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\[([^\]]*\d[^\]]*)\]\(([^)\s]+\.json(?:\.gz)?)\s+"([^"]+)"\)/g)) {
      out.push({ line: i + 1, figure: m[1], target: m[2], field: m[3] })
    }
  })
  return out
}

// The value at a path such as `results[1].capacity.rps` in parsed JSON (undefined where there is none).
export function fieldAt (data, path) {
  let at = data
  for (const m of path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) at = at?.[m[1] !== undefined ? Number(m[1]) : m[2]]
  return at
}

// Does a figure as written (`75.3`, `32,000`, `1.8 ×`) stand for the value, at the precision it is written with?
export function figureHolds (figure, value) {
  const m = /-?\d[\d,]*(?:\.\d+)?/.exec(figure)
  if (!m || typeof value !== 'number') return false
  const written = m[0].replace(/,/g, '')
  const digits = (written.split('.')[1] ?? '').length
  return Math.abs(Math.round(value * 10 ** digits) / 10 ** digits - Number(written)) < 1e-9
}

// Everything wrong with a set of documents, as one line each: links that do not resolve (file, then
// anchor in a Markdown file), commands that name no script, subcommand or option, repository files
// named in passing that do not exist, quoted blocks their file no longer holds, and figures of a table
// that names reports (reportTables) that none of them holds, and figures quoted from a report (figureLinks)
// that its field does not hold (`readJson`: a report file's parsed JSON). `known` says what
// exists: { scripts: Set, subcommands: Set, options: { lab, npx, compare, merge }: their help texts }.
export function problems ({ root, docs, texts = [], known, read, exists, readJson = (f) => JSON.parse(read(f)) }) {
  const out = []
  const where = (file, line) => `${file}:${line}`
  const dirOf = (file) => file.split('/').slice(0, -1).join('/')
  const join = (dir, rel) => {
    const parts = dir ? dir.split('/') : []
    for (const p of rel.split('/')) {
      if (p === '..') parts.pop()
      else if (p !== '.' && p !== '') parts.push(p)
    }
    return parts.join('/')
  }
  for (const file of docs) {
    const md = read(file)
    for (const { line, target } of links(md)) {
      if (isExternal(target)) continue
      const [path, anchor] = target.split('#')
      const resolved = path === '' ? file : join(dirOf(file), decodeURI(path))
      if (!exists(resolved)) {
        out.push(`${where(file, line)}: link ${target}: no file ${resolved}`)
        continue
      }
      if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) {
        out.push(`${where(file, line)}: link ${target}: no heading #${anchor} in ${resolved}`)
      }
    }
    for (const { line, tool, name, args } of commands(md)) {
      if (/^(…|\.\.\.)$/.test(name)) continue // `npx loadlab …`: any of them, in prose
      const sub = tool === 'npm' ? name : (name === '' || name.startsWith('-') ? 'lab' : name)
      if (tool === 'npm' && !known.scripts.has(name)) {
        out.push(`${where(file, line)}: npm run ${name}: no such script in package.json`)
        continue
      }
      if (tool === 'npx' && sub !== 'lab' && !known.subcommands.has(sub)) {
        out.push(`${where(file, line)}: npx loadlab ${name}: no such subcommand in bin/loadlab.js`)
        continue
      }
      const help = tool === 'npx' && sub === 'lab' ? known.options.npx : known.options[sub]
      const given = flags(tool === 'npx' && sub === 'lab' ? `${name} ${args}` : args)
      for (const flag of help ? given : []) {
        if (!new RegExp(`(^|[\\s,(|\\[])${flag}(?![\\w-])`).test(help)) {
          out.push(`${where(file, line)}: ${tool === 'npm' ? 'npm run' : 'npx loadlab'} ${sub}: no option ${flag} in its --help`)
        }
      }
    }
    for (const { line, file: quoted, text } of quotes(md)) {
      const source = join(dirOf(file), quoted)
      if (!exists(source)) out.push(`${where(file, line)}: quote from ${quoted}: no such file`)
      else if (!read(source).includes(text)) out.push(`${where(file, line)}: quote from ${quoted}: not in that file as it is`)
    }
    for (const { line, figure, target, field } of figureLinks(md)) {
      const source = join(dirOf(file), target)
      if (!exists(source)) continue // the link check names the missing file
      const value = fieldAt(readJson(source), field)
      if (!figureHolds(figure, value)) {
        out.push(`${where(file, line)}: figure ${figure}: ${target} ${field} is ${JSON.stringify(value)}`)
      }
    }
    for (const table of reportTables(md)) {
      // the named reports' Markdown and JSON, whichever of the two the link names
      const stems = table.reports.map((r) => join(dirOf(file), r).replace(/\.(md|json|html)$/, ''))
      const markdown = stems.map((s) => `${s}.md`).filter(exists).map(read)
      // the JSON as written or gzipped (a kept reference report)
      const jsonOf = (s) => {
        if (exists(`${s}.json`)) return [read(`${s}.json`)]
        return exists(`${s}.json.gz`) ? [JSON.stringify(readJson(`${s}.json.gz`))] : []
      }
      const json = stems.flatMap(jsonOf)
      if (!markdown.length && !json.length) continue // the link check names the missing file
      for (const { row, figure } of unbackedFigures(table, { markdown, json })) {
        out.push(`${where(file, table.line)}: table figure ${figure} (row ${row}) is in none of the reports it names`)
      }
    }
  }
  for (const file of [...docs, ...texts]) {
    // a link's target is the link check's; what is left is text naming a file
    for (const { line, path } of filePaths(read(file).replace(/\]\([^)]*\)/g, ']()'))) {
      if (!exists(path)) out.push(`${where(file, line)}: names ${path}, which does not exist`)
    }
  }
  return out
}
