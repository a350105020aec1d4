// The documentation holds: every relative link in README.md, docs/, reports/README.md resolves (file
// and heading), every file examples/ and the docs name exists, every `npm run X` and `npx loadlab X`
// names a script, subcommand and options that exist, every table quoted from a report is still in it,
// every figure of a table whose lead-in names a report stands in that report,
// and the README stays a page a newcomer reads.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../loadtest/catalog.js'
import { HELP as LAB_HELP, INTERNAL_VARIABLES } from '../loadtest/options.js'
import { HELP as COMPARE_HELP } from '../loadtest/compare/cli.js'
import { HELP as MERGE_HELP } from '../loadtest/merge/cli.js'
import { HELP as AB_HELP } from '../loadtest/ab/options.js'
import { anchors, commands, links, problems, prose, slug, unnamedFiles, markdownTables } from './helpers/docs.js'
import { DEFAULTS } from '../loadtest/settings.js'
import { TUNABLE } from '../loadtest/tune.js'
import { defaultTable } from '../loadtest/report/table.js'
import { httpReport } from './fixtures/reports.js'

const pagesIn = (dir) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.md')).map((f) => `${dir}/${f}`)
// The hand-written pages of docs/, and the reference pages scripts/reference-docs.js writes (their words
// not counted: their source's are).
const WRITTEN = pagesIn('docs')
const DOCS = ['README.md', ...WRITTEN, ...pagesIn('docs/reference'), 'reports/README.md', 'reports/reference/README.md']

// Every text file under examples/, by its path from the root.
function examples (dir = 'examples') {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? examples(`${dir}/${e.name}`) : /\.(js|json|yml|md)$/.test(e.name) ? [`${dir}/${e.name}`] : [])
}

// bin/loadlab.js run with these arguments (it runs on import, so it is asked, not imported).
const bin = (...args) => spawnSync(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), ...args], { encoding: 'utf8' })

// The subcommands bin/loadlab.js has, as it lists them when refusing an unknown one.
function subcommands () {
  const run = bin('no-such-command')
  assert.equal(run.status, 2, run.stderr)
  const m = /commands: (.*?), or lab options/.exec(run.stderr)
  assert.ok(m, run.stderr)
  return new Set(m[1].split(', '))
}

function known () {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  return {
    scripts: new Set(Object.keys(pkg.scripts)),
    subcommands: subcommands(),
    options: { lab: LAB_HELP, npx: `${LAB_HELP}\n${bin('help').stdout}`, compare: COMPARE_HELP, merge: MERGE_HELP, ab: AB_HELP }
  }
}

const onDisk = (root) => ({
  read: (file) => readFileSync(join(root, file), 'utf8'),
  exists: (file) => existsSync(join(root, file))
})

test('every link, command, named file and quote in README.md, docs/, reports/README.md and examples/ holds', () => {
  const found = problems({ root: ROOT, docs: DOCS, texts: examples(), known: known(), ...onDisk(ROOT) })
  assert.deepEqual(found, [])
  // the check read what it should: the README links to every page in docs/, and runs commands
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const linked = new Set(links(readme).map((l) => l.target))
  for (const page of DOCS.filter((f) => f.startsWith('docs/'))) assert.ok(linked.has(page), `README links ${page}`)
  assert.ok(commands(readme).filter((c) => c.name === 'lab').length >= 5)
})

test('the README is a page a newcomer reads; every docs page starts with what it is for', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const lines = readme.split('\n').length - 1
  assert.ok(lines <= 300, `README.md has ${lines} lines (at most about 300: move a topic to docs/)`)
  for (const page of DOCS.filter((f) => f.startsWith('docs/'))) {
    // a generated page may carry its generator's comment first
    const [title, blank, first] = readFileSync(join(ROOT, page), 'utf8').replace(/\n<!--[^\n]*-->\n/, '').split('\n')
    assert.match(title, /^# \S/, `${page}: a title first`)
    assert.equal(blank, '', page)
    assert.match(first, /^(?!```)[^#|<\s-]/, `${page}: a sentence saying what the page is for, before anything else`)
  }
})

// The words of a text: runs of non-space holding a letter or a digit.
const wordsIn = (text) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length

// The words of a Markdown text a reader reads as prose: code blocks, inline code and link targets left out.
function proseWords (md) {
  const text = prose(md).replace(/`[^`]*`/g, ' ').replace(/\]\([^)]*\)/g, '] ')
  return { text, words: wordsIn(text) }
}

test('the README is a front door: at most 1,200 words of prose, no date or clock time in it', () => {
  const { text, words } = proseWords(readFileSync(join(ROOT, 'README.md'), 'utf8'))
  assert.ok(words <= 1200, `README.md: ${words} words of prose (at most 1,200: move the detail to docs/)`)
  const dated = text.split('\n').filter((l) => /\b20\d\d-\d\d-\d\d|\bUTC\b|\b\d\d:\d\d\b/.test(l))
  assert.deepEqual(dated, [], 'no date, UTC or clock time in the README\'s prose')
  assert.equal(proseWords('A [link](docs/2026-11-26.md) and `2026-11-26`.\n```\n12:00\n```\n').text.includes('2026'), false)
})

test('the hand-written docs/ and reports/README.md are a reference one can read: at most 14,000 words', () => {
  const pages = [...WRITTEN, 'reports/README.md']
  // counted as `cat docs/*.md reports/README.md | wc -w` counts: every run of non-space
  const counts = pages.map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split(/\s+/).filter(Boolean).length])
  const total = counts.reduce((sum, [, n]) => sum + n, 0)
  const largest = counts.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([f, n]) => `${f} ${n}`).join(', ')
  assert.ok(total <= 14000, `${total} words (at most 14,000: a reference fact goes to its source, which ` +
    `docs/reference/ is generated from; history to CHANGELOG.md; the largest: ${largest})`)
})

test('the README and --help give the tour the same duration', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const said = /a quick tour of every server \(light load, ([^)]+)\)/.exec(LAB_HELP)?.[1]
  assert.ok(said, 'the --help text says how long the tour takes')
  const tourLines = readme.split('\n').filter((l) => /^npm (ci && npm )?run lab +#/.test(l))
  assert.ok(tourLines.length >= 1, 'the README runs the tour')
  for (const line of tourLines) assert.ok(line.includes(`(${said})`), `${line}\n--help says: ${said}`)
})

test('GitHub anchors: lower case, punctuation dropped, repeats numbered', () => {
  assert.equal(slug('Gates for CI: thresholds and `compare --fail-on`'), 'gates-for-ci-thresholds-and-compare---fail-on')
  assert.equal(slug('Runtimes: Node 20, 22 and 24, Bun and Deno, `--runtime`'), 'runtimes-node-20-22-and-24-bun-and-deno---runtime')
  assert.deepEqual([...anchors('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')], ['a', 'notes', 'notes-1'])
})

test('the checks catch a broken link, a missing anchor, an unknown script or option, a missing file, a changed quote or table figure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-docs-'))
  try {
    mkdirSync(join(dir, 'docs'))
    mkdirSync(join(dir, 'reports'))
    writeFileSync(join(dir, 'reports', 'r.md'), '| a | b |\n| 1 | 2 |\n')
    writeFileSync(join(dir, 'docs', 'page.md'), '# Page\n\nFor tests.\n\n## Real heading\n')
    writeFileSync(join(dir, 'README.md'), [
      '# Title', '',
      'Fine: [page](docs/page.md), [heading](docs/page.md#real-heading), [web](https://example.com/x).',
      'Broken: [gone](docs/gone.md) and [anchor](docs/page.md#no-such-heading).',
      '`[in code](docs/page.md#not-a-link)`', '',
      '```sh', 'npm run lab -- --server simple', 'npm run nosuch', 'npm run lab -- --no-such-option',
      'npx loadlab compare a.json b.json', 'npx loadlab frobnicate', '```', '',
      'See `loadtest/missing.js` and `reports/r.md`.', '',
      '<!-- quote: reports/r.md -->', '| a | b |', '| 1 | 3 |', '<!-- /quote -->', '',
      'From [the report](reports/r.md), one figure changed:', '',
      '| row | b | study |', '| --- | --- | --- |', '| x | 2 | 7 |', '| y | 2.5 | 7 |', ''
    ].join('\n'))
    const found = problems({
      root: dir,
      docs: ['README.md', 'docs/page.md'],
      known: { scripts: new Set(['lab']), subcommands: new Set(['compare']), options: { lab: '  --server a,b', npx: '', compare: '', merge: '' } },
      ...onDisk(dir)
    })
    assert.deepEqual(found, [
      'README.md:4: link docs/gone.md: no file docs/gone.md',
      'README.md:4: link docs/page.md#no-such-heading: no heading #no-such-heading in docs/page.md',
      'README.md:9: npm run nosuch: no such script in package.json',
      'README.md:10: npm run lab: no option --no-such-option in its --help',
      'README.md:12: npx loadlab frobnicate: no such subcommand in bin/loadlab.js',
      'README.md:17: quote from reports/r.md: not in that file as it is',
      'README.md:24: table figure 2.5 (row y) is in none of the reports it names',
      'README.md:15: names loadtest/missing.js, which does not exist'
    ])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// Every .js file below `dir` (paths from the root), node_modules and .runtimes left out.
function sources (dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.')) return []
    return e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.js') ? [`${dir}/${e.name}`] : []
  })
}

test('docs/layout.md names every source file of the lab, the servers, the bench, the scripts and bin/', () => {
  const md = readFileSync(join(ROOT, 'docs/layout.md'), 'utf8')
  const files = ['loadtest', 'servers', 'bench', 'scripts', 'bin'].flatMap(sources)
  assert.ok(files.length > 100, `${files.length} files`)
  assert.deepEqual(unnamedFiles(md, files), [])
  // the check sees a file the map leaves out, and one in a folder it does not know
  assert.deepEqual(unnamedFiles(md, ['loadtest/report/no-such-module.js', 'nowhere/x.js']),
    ['loadtest/report/no-such-module.js', 'nowhere/x.js'])
})

test('npx loadlab --help gives its own usage line, never npm run lab\'s; --help names every LOADLAB_ variable the code reads but the lab\'s own', () => {
  const help = bin('--help').stdout
  assert.match(help, /Usage: npx loadlab \[options\]/)
  assert.doesNotMatch(help, /npm run lab --? \[/)
  const read = new Set()
  for (const dir of ['loadtest', 'servers/lib', 'scripts']) {
    for (const file of sources(dir)) {
      for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\b(LOADLAB_[A-Z_]+)\b/g)) read.add(m[1])
    }
  }
  assert.ok(read.size >= 5, [...read].join(' '))
  // the variables only the lab and its tests set stay out of the user's help
  assert.deepEqual([...read].filter((v) => !LAB_HELP.includes(v) && !Object.hasOwn(INTERNAL_VARIABLES, v)), [])
  for (const v of Object.keys(INTERNAL_VARIABLES)) assert.ok(!LAB_HELP.includes(v), v)
})

// Words a reader of the docs cannot follow: the project's history (an issue, a stage, other agents) and
// folders outside the repository.
const INTERNAL = /\bissue \d+|\bthe issue set\b|\b(first|second|third|fourth|fifth) stage\b|\bstage \d\b|other agents|\.\.\/shared\//i

test('the docs use no word of the project\'s history and name no folder outside the repository', () => {
  const hits = DOCS.flatMap((file) => readFileSync(join(ROOT, file), 'utf8').split('\n')
    .flatMap((line, i) => (INTERNAL.test(line) ? [`${file}:${i + 1}: ${line.match(INTERNAL)[0]}`] : [])))
  assert.deepEqual(hits, [])
  assert.ok(INTERNAL.test('as issue 18 asked') && INTERNAL.test('in `../shared/seeds`'), 'the check sees them')
})

// A page's Markdown tables whose first header cell is `first`, as { file, head, rows } (cells trimmed).
function tablesHeaded (file, first) {
  return markdownTables(readFileSync(join(ROOT, file), 'utf8')).filter((t) => t.head[0] === first).map((t) => ({ file, ...t }))
}

test('the docs\' option tables name only options the parser takes, and --tune\'s table is the parser\'s', () => {
  // the hand-written pages' (docs/reference/options.md is the parsers' own tables)
  const tables = ['README.md', ...WRITTEN].flatMap((f) => tablesHeaded(f, 'option'))
  assert.ok(tables.length >= 1)
  const unknown = tables.flatMap((t) => t.rows.flatMap((r) => [...r[0].matchAll(/--([a-z][a-z-]*)/g)]
    .filter((m) => !Object.hasOwn(DEFAULTS, m[1])).map((m) => `${t.file}: --${m[1]}`)))
  assert.deepEqual(unknown, [])
  const [tune] = tablesHeaded('docs/decision.md', 'setting').filter((t) => t.head[1] === 'servers')
  const rows = Object.fromEntries(tune.rows.map((r) => [r[0].replace(/`/g, ''), r]))
  assert.deepEqual(Object.keys(rows).sort(), Object.keys(TUNABLE).sort(), 'one row per setting')
  for (const [name, t] of Object.entries(TUNABLE)) {
    assert.deepEqual(rows[name][1].split(', '), t.servers, `${name}: its servers`)
    assert.ok(rows[name][2].includes(`${t.min ?? 1}–${t.max ?? 256}`), `${name}: ${t.min ?? 1}–${t.max ?? 256}`)
    assert.equal(rows[name][2].includes('`inf`'), t.inf, `${name}: inf`)
  }
})

test('lab.md\'s columns are the terminal table\'s', () => {
  const [cols] = tablesHeaded('docs/lab.md', 'column')
  const head = defaultTable(httpReport()).head
  const named = cols.rows.flatMap((r) => r[0].split(/ \/ | … /))
  const missing = named.filter((c) => !head.includes(c))
  assert.deepEqual(missing, [], 'a column lab.md names that the terminal does not print')
  const unnamed = head.filter((c) => c !== 'server' && c !== 'work' && c !== 'c' && !/^p(97\.5|99)$/.test(c) &&
    !named.includes(c))
  assert.deepEqual(unnamed, [], 'a column the terminal prints that lab.md does not name')
})

// The pages that link each term to the glossary at its first use (glossary.md says which).
const GLOSSED = ['docs/capacity.md', 'docs/decision.md', 'docs/lab.md', 'docs/overload.md', 'docs/servers.md',
  'docs/studies.md', 'docs/task.md', 'docs/trust.md', 'docs/your-service.md', 'docs/generator.md', 'docs/bench.md',
  'docs/runtimes.md', 'docs/timelines.md', 'docs/gates.md', 'docs/findings.md', 'docs/shards.md']

test('the glossary is linked where it says it is, and says where', () => {
  const glossary = readFileSync(join(ROOT, 'docs/glossary.md'), 'utf8')
  const ids = new Set([...glossary.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]))
  for (const page of GLOSSED) {
    const md = readFileSync(join(ROOT, page), 'utf8')
    const used = [...md.matchAll(/glossary\.md#([a-z0-9-]+)/g)].map((m) => m[1])
    assert.ok(used.length > 0, `${page} links no term of the glossary`)
    for (const id of used) assert.ok(ids.has(id), `${page}: glossary.md#${id} is no term`)
    assert.ok(glossary.includes(`(${page.slice(5)})`), `glossary.md names ${page} among the pages that link it`)
  }
  for (const term of ['round', 'step', 'sweep', 'ideal', 'class', 'shard', 'calibration', 'slo']) {
    assert.ok(ids.has(term), `glossary: ${term}`)
  }
})

test('CHANGELOG.md: [Unreleased] on top, each release dated, its changes under Added/Changed/Fixed/Removed, one line each', () => {
  const md = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
  const releases = [...md.matchAll(/^## (.*)$/gm)].map((m) => m[1])
  assert.equal(releases[0], '[Unreleased]')
  for (const r of releases.slice(1)) assert.match(r, /^\[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d$/, r)
  const kinds = [...md.matchAll(/^### (.*)$/gm)].map((m) => m[1])
  assert.deepEqual(kinds.filter((k) => !['Added', 'Changed', 'Fixed', 'Removed'].includes(k)), [])
  const released = md.slice(md.indexOf('\n## [', md.indexOf('## [Unreleased]') + 1))
  const wrapped = released.split('\n').filter((l) => /^ {2}\S/.test(l))
  assert.deepEqual(wrapped, [], 'a released change on one line')
})
