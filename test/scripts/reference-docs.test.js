// docs/reference/ is what scripts/reference-docs.js makes from each page's one source: a changed option,
// export or report field fails here until its page is written again. And the sources hold what the pages
// say: every export typed, every event typed, every field described, every command's help within 100
// columns and saying each paragraph once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'
import { HELP_WIDTH, flagsOf } from '../../loadtest/flags.js'
import { DEFAULTS } from '../../loadtest/settings.js'
import * as api from '../../index.js'
import {
  DIR, apiDoc, commands, declarations, optionsDoc, referencePages, reportDoc, schemaObjects
} from '../../scripts/reference-docs.js'

const schema = () => JSON.parse(readFileSync(join(ROOT, 'report.schema.json'), 'utf8'))
const bin = (...args) => spawnSync(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), ...args], { encoding: 'utf8' })

test('every page under docs/reference/ is what its source makes, and --check says so', async () => {
  const pages = await referencePages()
  assert.deepEqual(Object.keys(pages).sort(), readdirSync(DIR).sort(), 'one page per source, none left over')
  for (const [name, text] of Object.entries(pages)) {
    assert.equal(readFileSync(join(DIR, name), 'utf8'), text, `docs/reference/${name}: node scripts/reference-docs.js`)
  }
  const check = spawnSync(process.execPath, ['scripts/reference-docs.js', '--check'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(check.status, 0, check.stderr)
})

test('a changed option, export or report field changes its page', async () => {
  const cmds = await commands()
  const lab = cmds.find((c) => c.name === 'lab')
  const page = optionsDoc(cmds)
  const added = [{ ...lab, flags: [...lab.flags, { title: 'x', flags: [{ name: 'new-one', arg: 'N', help: 'new' }] }] }]
  assert.notEqual(optionsDoc([...added, ...cmds.slice(1)]), page, 'an option added')
  const changed = structuredClone(lab.flags)
  changed[1].flags[0].default = 'another'
  assert.notEqual(optionsDoc([{ ...lab, flags: changed }, ...cmds.slice(1)]), page, 'a default changed')

  const dir = mkdtempSync(join(tmpdir(), 'loadlab-reference-'))
  try {
    const dts = join(dir, 'index.d.ts')
    writeFileSync(dts, `${readFileSync(join(ROOT, 'index.d.ts'), 'utf8')}\n/** New. */\nexport declare function more (): void\n`)
    assert.notEqual(apiDoc(declarations(dts), lab.flags), apiDoc(declarations(), lab.flags), 'an export added')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  const s = schema()
  s.$defs.requests.properties.extra = { type: 'integer', description: 'new' }
  assert.notEqual(reportDoc(s), reportDoc(schema()), 'a field added')
})

test('the report\'s schema describes every field of every object', () => {
  const objects = schemaObjects(schema())
  assert.ok(objects.length >= 20, `${objects.length} objects`)
  const bare = objects.flatMap((o) => o.fields.filter((f) => !f.description).map((f) => `${o.name}.${f.name}`))
  assert.deepEqual(bare, [], 'a field without its description in report.schema.json')
})

test('index.js exports what index.d.ts declares, and LabOptions are the lab\'s options', async () => {
  const decls = declarations()
  const values = decls.filter((d) => d.kind === 'function' || d.kind === 'class').map((d) => d.name).sort()
  assert.deepEqual(Object.keys(api).sort(), values, 'the package\'s exports, typed')
  for (const d of decls.filter((x) => values.includes(x.name))) assert.ok(d.doc.length > 10, `${d.name}: a doc comment`)
  const options = decls.find((d) => d.name === 'LabOptions').members.map((m) => m.name).sort()
  const lab = (await commands()).find((c) => c.name === 'lab')
  const camel = (n) => n.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
  const flags = flagsOf(lab.flags).map((f) => camel(f.name)).filter((n) => !['help', 'list', 'json'].includes(n))
  assert.deepEqual(options, flags.sort(), 'LabOptions has a member per lab option (help, list, json aside)')
  assert.deepEqual(flagsOf(lab.flags).map((f) => f.name).sort(), Object.keys(DEFAULTS).sort(), 'a default per flag')
})

test('the progress events the code sends are the ones ProgressEvent types', () => {
  const files = ['index.js', ...['loadtest'].flatMap(function walk (dir) {
    return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => e.isDirectory()
      ? walk(`${dir}/${e.name}`)
      : e.name.endsWith('.js') ? [`${dir}/${e.name}`] : [])
  })]
  const sent = new Set()
  for (const f of files) {
    for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(/onProgress\(\{ type: '([a-z]+)'/g)) sent.add(m[1])
  }
  const typed = new Set(declarations().find((d) => d.name === 'ProgressEvent').variants
    .flatMap((v) => [.../type: ((?:'[a-z]+'(?: \| )?)+)/.exec(v.text)[1].matchAll(/'([a-z]+)'/g)].map((m) => m[1])))
  assert.ok(sent.size >= 6, [...sent].join(' '))
  assert.deepEqual([...sent].filter((t) => !typed.has(t)), [], 'an event sent that the type lacks')
  assert.deepEqual([...typed].filter((t) => !sent.has(t)), [], 'an event typed that no code sends')
})

// The paragraphs of a help text (blank-line separated) said more than once.
const repeated = (text) => text.split(/\n\s*\n/).map((p) => p.trim()).filter((p, i, all) => p && all.indexOf(p) !== i)

test('every command\'s --help: at most 100 columns, each paragraph once, its table the parser\'s', async () => {
  const cmds = await commands()
  assert.ok(cmds.length >= 5, cmds.map((c) => c.name).join(' '))
  const texts = [...cmds.map((c) => [c.name, c.help]), ['loadlab --help', bin('--help').stdout], ['loadlab help', bin('help').stdout]]
  for (const [name, text] of texts) {
    assert.deepEqual(text.split('\n').filter((l) => l.length > HELP_WIDTH), [], `${name}: a line over ${HELP_WIDTH}`)
    assert.deepEqual(repeated(text), [], `${name}: a paragraph said twice`)
  }
  assert.deepEqual(repeated('a\n\nb\n\na\n'), ['a'], 'the check sees a repeat')
  // bin/loadlab.js's commands are these (and `server`, `help`, which have none of their own)
  const listed = /commands: (.*?), or lab options/.exec(bin('no-such').stderr)[1].split(', ')
  assert.deepEqual(listed.filter((c) => !['server', 'help'].includes(c)).sort(),
    cmds.map((c) => c.name).filter((c) => c !== 'lab').sort())
})
