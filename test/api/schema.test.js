// report.schema.json: every lab report in reports/reference/ (recursively) is valid against it, with ajv
// (draft 2020-12) as another tool would read it, once upgraded from its lab's older forms (report/read.js
// upgradeReport: older labs wrote a capacity's bound in words); readReport refuses a hostile report in one line naming
// where the fault is. Files there that are not lab reports are skipped by their kind and counted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import { readReport } from '../../index.js'
import { readBounded, upgradeReport } from '../../loadtest/report/read.js'
import { decide } from '../../loadtest/result/decision.js'
import { ROOT, tempDir } from '../helpers/lab.js'
import {
  capacityReport, dispatchReport, httpReport, mixCapacityReport, rulerFixture, rulerReading, urlReport
} from '../fixtures/reports.js'

const schema = JSON.parse(readFileSync(join(ROOT, 'report.schema.json'), 'utf8'))

// Every .json and .json.gz file below dir.
function jsonFiles (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonFiles(join(dir, e.name)) : /\.json(\.gz)?$/.test(e.name) ? [join(dir, e.name)] : [])
}

// What a reference file holds: a lab report, or (skipped, each its own format) a bench report, one result
// of a validate-matrix cell (scripts/validate-capacity.js keeps a sweep's result apart), a brute-force
// search of a cell (scripts/capacity-brute-force.js), a cell's verdict, a matrix's summary, or a history
// validation's summary (scripts/validate-history.js: its synthetic part, or its real part's checks), or a
// capacity held again (scripts/validate-hold.js).
function kindOf (data) {
  if (data?.kind === 'loadlab-report') return 'lab report'
  if (data?.kind === 'loadlab-bench') return 'bench report'
  if (data?.kind === 'http') return 'validate-matrix sweep result'
  if (data?.gridStep !== undefined) return 'brute-force search'
  if (data?.expectedSec !== undefined) return 'validate-matrix cell verdict'
  if (Array.isArray(data?.cells) || data?.grid) return 'validate-matrix summary'
  if (data?.falseAlarmsPer100 !== undefined) return 'history synthetic validation'
  if (data?.checks !== undefined && data?.codeAtChange !== undefined) return 'history real validation'
  if (data?.falseAlarms !== undefined && data?.machine_pairs !== undefined) return 'compare validation'
  if (data?.kind === 'loadlab-hold') return 'hold validation'
  if (data?.kind === 'loadlab-ab') return 'ab report'
  if (data?.kind === 'loadlab-ab-validation') return 'ab validation'
  if (data?.kind === 'loadlab-rounds-validation') return 'rounds validation' // scripts/validate-rounds.js
  return 'unknown'
}

test('schema: every lab report in reports/reference/ is valid (ajv, draft 2020-12, strict), its old bounds upgraded', (t) => {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true })
  const validate = ajv.compile(schema)
  const validateAb = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'ab.schema.json'), 'utf8')))
  const skipped = {}
  let valid = 0
  for (const file of jsonFiles(join(ROOT, 'reports', 'reference'))) {
    const data = JSON.parse(readBounded(file)) // the reports are kept compressed
    const kind = kindOf(data)
    assert.notEqual(kind, 'unknown', `${relative(ROOT, file)}: a file of a kind this test does not know`)
    if (kind === 'ab report') { // ab's own format: its own schema
      assert.ok(validateAb(data), `${relative(ROOT, file)}: ${JSON.stringify(validateAb.errors?.slice(0, 3))}`)
    }
    if (kind !== 'lab report') {
      skipped[kind] = (skipped[kind] ?? 0) + 1
      continue
    }
    assert.ok(validate(upgradeReport(data)), `${relative(ROOT, file)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`)
    valid++
  }
  assert.ok(valid > 0, 'the reference lab reports were found')
  t.diagnostic(`${valid} lab reports valid; skipped (not lab reports): ${JSON.stringify(skipped)}`)
})

test('schema: the hand-made reports of the fixtures (the report and compare tests) are valid; draft 2020-12', () => {
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
  const validate = new Ajv2020({ allowUnionTypes: true }).compile(schema)
  for (const make of [httpReport, urlReport, dispatchReport, capacityReport, mixCapacityReport]) {
    assert.ok(validate(make()), `${make.name}: ${JSON.stringify(validate.errors)}`)
  }
})

test('schema: closed where the report is the lab\'s own: an unknown top-level or result field is refused', () => {
  const validate = new Ajv2020({ allowUnionTypes: true }).compile(schema)
  const good = httpReport()
  assert.ok(validate(good), JSON.stringify(validate.errors))
  assert.equal(validate({ ...good, extra: 1 }), false, 'an unknown top-level field')
  assert.equal(validate.errors[0].keyword, 'additionalProperties')
  assert.equal(validate({ ...good, results: [{ ...good.results[0], rpsx: 1 }] }), false, 'an unknown result field')
  assert.equal(validate.errors[0].instancePath, '/results/0')
  // the figures the lab types: a probe, a recovery, the noise and a threshold are closed too
  const r = good.results[0]
  for (const field of ['probe', 'recovery', 'noise']) {
    const bad = { ...good, results: [{ ...r, [field]: { ...(r[field] ?? {}), extra: 1 } }] }
    assert.equal(validate(bad), false, `an unknown ${field} field`)
  }
  assert.equal(validate({ ...good, thresholds: [{ threshold: 'p99<100', status: 'passed', extra: 1 }] }), false)
  // and typed: an open loop's rate is a number, a class has a name
  assert.equal(validate({ ...good, results: [{ ...r, open: { rate: 'fast' } }] }), false)
  assert.equal(validate({ ...good, results: [{ ...r, classes: [{ sloMs: 5 }] }] }), false)
})

test('readReport: a hostile report is refused in one line naming the file, where and what (code LAB_REPORT_INVALID)', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const save = (name, text) => {
    const file = join(dir, name)
    writeFileSync(file, text)
    return file
  }
  const good = httpReport()
  assert.equal((await readReport(save('good.json', JSON.stringify(good)))).results.length, good.results.length)
  const cases = [
    // 1e999 parses to Infinity: no figure the lab measures
    ['infinite.json', JSON.stringify(good).replace(/"rps":[\d.]+/, '"rps":1e999'), /infinite\.json does not follow the report schema: results\[0\]\.rps must be number,null \(got Infinity\)$/],
    ['count.json', JSON.stringify({ ...good, results: [{ ...good.results[0], requests: { ...good.results[0].requests, sent: 'lots' } }] }),
      /count\.json does not follow the report schema: results\[0\]\.requests\.sent must be integer \(got "lots"\)$/],
    ['status.json', JSON.stringify({ ...good, status: 'done\x1b[2J' }),
      /status must be one of "complete", "failed", "partial" \(got "done\\u001b\[2J"\)$/],
    ['reason.json', JSON.stringify({ ...good, results: [{ ...good.results[0], untrusted: [['deep']] }] }),
      /results\[0\]\.untrusted\[0\] must be string or must be object \(got an array of 1\)$/],
    ['machine.json', JSON.stringify({ ...good, machine: undefined }), /the report must have required property 'machine'$/],
    ['not-json.json', '{"kind":', /not-json\.json is not JSON/],
    ['schema2.json', JSON.stringify({ ...good, schema: 2 }), /is a schema 2 report; this lab reads schema 1 only$/]
  ]
  for (const [name, text, why] of cases) {
    const err = await readReport(save(name, text)).then(() => null, (e) => e)
    assert.ok(err, `${name}: refused`)
    assert.match(err.code, /^LAB_REPORT_|^LAB_COMPARE_/, name)
    assert.equal(err.exitCode, 2, name)
    assert.equal(err.message.split('\n').length, 1, err.message)
    assert.match(err.message, why, name)
  }
})

test('schema: a reason or verdict may be a sentence or a code with its figures; a bound is a code', () => {
  const ajv = new Ajv2020({ allowUnionTypes: true })
  const validate = ajv.compile(schema)
  const r = httpReport()
  r.results[0].untrusted = ['a sentence', { code: 'LAG', lagP99Ms: 12, text: 'the generator lagged 12 ms' }]
  r.notes = [{ code: 'NOTE', n: 1 }]
  r.decision = { bound: 'at-least', decidedBy: { code: 'CAPACITY' }, capacityRps: 90 }
  assert.ok(validate(r), JSON.stringify(validate.errors))
  r.decision.decidedBy = { rps: 90 }
  r.decision.refused = { reason: { rps: 90 } } // an object without its code is not a reason
  assert.equal(validate(r), false)
  r.decision = { bound: 'undecided', undecided: { code: 'budget-spent' } }
  assert.ok(validate(r), JSON.stringify(validate.errors))
  r.decision.bound = 'at least' // an older lab's words: valid only once upgraded (report/read.js)
  assert.equal(validate(r), false)
  assert.ok(validate(upgradeReport(r)), JSON.stringify(validate.errors))
  assert.equal(r.decision.bound, 'at-least')
})

test('schema: a decision on a tie carries the alternative, typed; one without its command is refused', async () => {
  const validate = new Ajv2020({ allowUnionTypes: true }).compile(schema)
  // a reference run whose two queued pools tied on capacity (75–76.5 req/s each), decided again by today's rule
  const report = await readReport(join(ROOT, 'reports', 'reference', '2026-11-26T16-47-34Z-vm-capacity.json.gz'))
  report.decision = decide(report)
  assert.equal(report.decision.alternative.server, 'queued-processes')
  assert.ok(validate(report), JSON.stringify(validate.errors))
  delete report.decision.alternative.command
  assert.equal(validate(report), false)
})

test('schema: a ruler is typed strictly; one with a figure no machine gives is refused, and readReport names it', async (t) => {
  const validate = new Ajv2020({ allowUnionTypes: true, strict: true }).compile(schema)
  const withRuler = (change = () => {}) => {
    const r = { ...httpReport(), ruler: rulerFixture(rulerReading(), rulerReading({ scale: 2 })) }
    change(r.ruler)
    return r
  }
  assert.ok(validate(withRuler()), JSON.stringify(validate.errors))
  assert.ok(validate({ ...httpReport(), ruler: rulerFixture(rulerReading(), null) }), 'an interrupted run: no end')
  assert.ok(validate(withRuler((r) => { r.start.timerLagMs.value = 0 })), 'an idle timer that never lagged')
  assert.ok(validate(httpReport()), 'a report without a ruler (older, --no-ruler)')
  const bad = [
    [(r) => { r.start.cores.offered = 0 }, '/ruler/start/cores/offered'],
    [(r) => { r.start.cores.effective.value = 0 }, '/ruler/start/cores/effective/value'],
    [(r) => { r.end.single.loop.value = -0.5 }, '/ruler/end/single/loop/value'],
    [(r) => { r.start.loopback.rps.value = Infinity }, '/ruler/start/loopback/rps/value'],
    [(r) => { r.start.spawn.processMs.spreadPct = -1 }, '/ruler/start/spawn/processMs/spreadPct'],
    [(r) => { r.start.single.json.n = 0 }, '/ruler/start/single/json/n'],
    [(r) => { r.start.cores.scaling[0].threads = 0.5 }, '/ruler/start/cores/scaling/0/threads'],
    [(r) => { r.drift[0].ratio = 0 }, '/ruler/drift/0/ratio'],
    [(r) => { delete r.moved }, '/ruler']
  ]
  for (const [change, where] of bad) {
    assert.equal(validate(withRuler(change)), false, where)
    assert.ok(validate.errors.some((e) => e.instancePath === where), `${where}: ${JSON.stringify(validate.errors)}`)
  }
  // the reader says which figure, and why no machine gives it, in one line
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const file = join(dir, 'zero-cores.json')
  writeFileSync(file, JSON.stringify(withRuler((r) => { r.start.cores.effective.value = 0 })))
  await assert.rejects(readReport(file), {
    code: 'LAB_REPORT_INVALID',
    message: `${file} does not follow the report schema: ruler.start.cores.effective is 0: no machine gives 0 cores`
  })
  writeFileSync(file, JSON.stringify(withRuler()).replace(/"rps":\{"value":[\d.]+/, '"rps":{"value":1e999'))
  await assert.rejects(readReport(file), { message: /: ruler\.start\.loopback\.rps is Infinity: no machine gives an infinite figure$/ })
  writeFileSync(file, JSON.stringify(withRuler()))
  assert.equal((await readReport(file)).ruler.moved, true)
})
