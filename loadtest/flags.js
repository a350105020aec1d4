// A command's options in one table: the parser's options, the --help lines and
// docs/reference/options.md (scripts/reference-docs.js) are all made from it, so they cannot disagree.
// A table is a list of groups { title, doc?, note?, flags }; a flag is
//   { name, short?, arg? (a value's placeholder; none: a flag), multiple?, initial? (the parser's value
//     when not given), default? (what the help and the page say; else `initial`), range?: { min, max,
//     integer? } (the parser checks it), help (one sentence, without the default) }.

// The widest line a --help prints (test/docs.test.js holds every command's help to it).
export const HELP_WIDTH = 100

const flagsOf = (groups) => groups.flatMap((g) => g.flags)

// The flag's default as the help and the page write it, or null when it has none.
export function defaultOf (flag) {
  if (flag.default !== undefined) return flag.default === null ? null : String(flag.default)
  if (flag.initial === undefined || flag.initial === false || Array.isArray(flag.initial)) return null
  return String(flag.initial)
}

// The range as the page writes it: `1–10000`, whole numbers or not.
export function rangeOf (flag) {
  const r = flag.range
  return r ? `${r.min}–${r.max}${r.integer ? ', whole' : ''}` : null
}

// node:util parseArgs's `options` for a table.
export function parseArgsOptions (groups) {
  return Object.fromEntries(flagsOf(groups).map((f) => [f.name, {
    type: f.arg ? 'string' : 'boolean',
    ...(f.short && { short: f.short }),
    ...(f.multiple && { multiple: true }),
    ...(f.initial !== undefined ? { default: f.initial } : !f.arg && { default: false })
  }]))
}

// The flag's name as --help shows it: `-c, --connections N`.
export const flagName = (f) => `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.arg ? ` ${f.arg}` : ''}`

// Words wrapped to HELP_WIDTH, the first line from column `start`, the others indented by `indent`.
export function wrap (text, indent, start = indent) {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]
    const at = lines.length === 1 ? start : indent
    if (last && at + last.length + word.length + 1 > HELP_WIDTH) lines.push(word)
    else lines[lines.length - 1] = last ? `${last} ${word}` : word
  }
  return lines.join(`\n${' '.repeat(indent)}`)
}

// The option lines of a --help: each group's title (with its doc), its note, then a line per flag, its
// text from column `col` and its default at the end; a blank line between groups.
export function optionLines (groups, col) {
  return groups.map((g) => {
    const out = [`${g.title}${g.doc ? ` (${g.doc})` : ''}:`]
    if (g.note) out.push(`  ${wrap(g.note, 2)}`)
    for (const f of g.flags) {
      const name = `  ${flagName(f)}`.padEnd(col - 1) + ' '
      const def = defaultOf(f)
      const text = `${f.help}${def === null ? '' : ` (default ${def})`}`
      out.push(name.length > col ? `${name.trimEnd()}\n${' '.repeat(col)}${wrap(text, col)}` : name + wrap(text, col))
    }
    return out.join('\n')
  }).join('\n\n')
}

// The flag of that name in a table.
export function flagNamed (groups, name) {
  const f = flagsOf(groups).find((x) => x.name === name)
  if (!f) throw new Error(`no flag --${name}`)
  return f
}

export { flagsOf }
