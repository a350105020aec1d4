// One way to read a loadlab report from a file (compare, merge, history, --capacity-from,
// scripts/capacity-cost.js, the package's readReport): a regular file, plain or gzip (a .json.gz; not a
// FIFO, which would block the open, nor a device such as /dev/zero, which never ends, nor a directory) of
// at most MAX_REPORT_BYTES, read (and inflated) with that bound whatever its size says, parsed, checked
// to be a report of this schema with a `results` array and upgraded from
// older labs' forms (upgradeReport: the one place that reads them); validateReport then checks it against
// report.schema.json (JSON Schema draft 2020-12, with ajv). What is wrong is one line, exit 2.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { lazyRequire } from '../result/lazy.js'
import { LabError, clip } from '../errors.js'
import { SCHEMA } from '../result/build.js'
import { rulerFault } from '../result/ruler.js'
import { rulerFaultText } from '../text/ruler.js'

const ajv2020 = lazyRequire('ajv/dist/2020.js')

// The report's JSON Schema, at the package's root (exported as loadlab/report.schema.json).
export const SCHEMA_URL = new URL('../../report.schema.json', import.meta.url)

// The largest report file read (bytes). A run's result is a few kB (its histograms encoded); a capacity
// report of six strategies is under 2 MB. Far larger is not one the lab wrote, and parsing it would take
// the reader's memory (0.5 GB of text is past what a string may hold).
export const MAX_REPORT_BYTES = 64 * 1024 * 1024

// A report that cannot be read or is not one: one line, exit 2, `as` (the option or command) before it.
// Why a file could not be opened or looked at, in words (a system error's code otherwise).
const FILE_ERRORS = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  ELOOP: 'a loop of symbolic links',
  ENOTDIR: 'a part of its path is not a folder',
  ENAMETOOLONG: 'its name is too long'
}
export function fileErrorText (err) {
  return (Object.hasOwn(FILE_ERRORS, err?.code) ? FILE_ERRORS[err.code] : null) ?? err?.code ?? String(err?.message)
}

function refusal (as, message, code) {
  return new LabError(code, `${as ? `${as}: ` : ''}${message}`, { exitCode: 2 })
}

// The text of `file`, bounded (`max` bytes, MAX_REPORT_BYTES for a report); throws a refusal naming the
// file (codes `${code}_UNREADABLE`, `${code}_TOO_LARGE`; `what`: what a file that large is not).
// Synchronous: the lab reads a report or a mix while it plans, before anything starts. --mix reads its
// file here too.
export function readBounded (file, as, {
  max = MAX_REPORT_BYTES, code = 'LAB_REPORT', what = 'a report the lab wrote'
} = {}) {
  let fd
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK) // a FIFO must not block the open
  } catch (err) {
    throw refusal(as, `cannot read ${file}: ${fileErrorText(err)}`, `${code}_UNREADABLE`)
  }
  const tooLarge = () => refusal(as, `${file} is larger than ${mib(max)} MiB: not ${what}`, `${code}_TOO_LARGE`)
  try {
    const info = fstatSync(fd)
    if (info.isDirectory()) throw refusal(as, `cannot read ${file}: is a directory`, `${code}_UNREADABLE`)
    if (!info.isFile()) throw refusal(as, `cannot read ${file}: not a regular file`, `${code}_UNREADABLE`)
    if (info.size > max) throw tooLarge()
    const buf = Buffer.allocUnsafe(info.size + 1) // one more: a file that grew meanwhile is seen
    let size = 0
    for (let n = -1; n !== 0 && size < buf.length; size += n) n = readSync(fd, buf, size, buf.length - size, null)
    if (size > max) throw tooLarge()
    if (size < 2 || buf[0] !== 0x1f || buf[1] !== 0x8b) return buf.toString('utf8', 0, size)
    return gunzipBounded(buf.subarray(0, size), max, tooLarge, () =>
      refusal(as, `cannot read ${file}: not whole gzip data`, `${code}_UNREADABLE`))
  } finally {
    closeSync(fd)
  }
}

// A gzip file's text (its magic bytes 1f 8b, whatever its name), inflated to at most `max` bytes: the
// same bound as a plain file's, so a small bomb is refused as too large, not read into memory.
function gunzipBounded (data, max, tooLarge, broken) {
  let out
  try {
    out = gunzipSync(data, { maxOutputLength: max + 1 })
  } catch (err) {
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge()
    throw broken()
  }
  if (out.length > max) throw tooLarge()
  return out.toString('utf8')
}

const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 100) / 100

// The bounds older reports wrote in words (result/capacity.js writes codes; text/reasons.js boundText says
// them): each old form and its code. These are the old files' words, fixed as they were written, not the
// words the lab says today.
const OLD_BOUNDS = {
  'at least': 'at-least',
  'cannot meet the target': 'cannot-meet',
  'below the lowest rate offered': 'below-lowest',
  'no capacity at this target': 'no-target'
}
const OLD_UNDECIDED = {
  'budget spent': 'budget-spent',
  'step limit reached': 'step-limit',
  'a failure at the lowest rate not confirmed': 'lowest-pending',
  'too few requests at the lowest rate': 'few-at-lowest',
  'no step': 'no-step'
}
const OLD_OVERLAP = new RegExp(/^the floor was not measured where requests do not overlap /.source +
  /\((?:no answer|rate × p50 ([\d.]+) > ([\d.]+))\)$/.source)

// Why an old 'undecided: WHY' was undecided, as its code ({ code, …figures }; an unknown why keeps its words).
function oldUndecided (why) {
  if (OLD_UNDECIDED[why]) return { code: OLD_UNDECIDED[why] }
  const m = OLD_OVERLAP.exec(why)
  if (m) return { code: 'floor-overlap', overlap: m[1] ? Number(m[1]) : null, limit: m[2] ? Number(m[2]) : null }
  return { code: 'unknown', text: why }
}

// Upgrades the bound of one capacity (anything carrying `bound`) from an old report's words to its code, in
// place ('undecided: WHY' becomes bound 'undecided' with `undecided`, its why); a code is left as it is.
export function upgradeBound (c) {
  if (c === null || typeof c !== 'object' || typeof c.bound !== 'string') return c
  if (OLD_BOUNDS[c.bound]) c.bound = OLD_BOUNDS[c.bound]
  else if (c.bound.startsWith('undecided: ')) {
    Object.assign(c, { bound: 'undecided', undecided: oldUndecided(c.bound.slice(11)) })
  }
  return c
}

const list = (x) => (Array.isArray(x) ? x : [])

// The decision's rules, outcomes, refusals and tie-breaks older reports wrote in words, and their codes
// (result/decision.js; text/decision.js says them).
const OLD_DECISION = {
  rule: {
    'highest capacity': 'highest-capacity',
    'brackets apart': 'brackets-apart',
    'tie broken': 'tie-broken',
    'tie not broken': 'tie-not-broken',
    'past capacity': 'past-capacity'
  },
  outcome: { 'all collapse': 'all-collapse', 'none keeps': 'none-keeps' },
  reason: { 'runs disagree': 'runs-disagree', 'none meets the target': 'none-meets' },
  by: { 'peak RSS': 'peak-rss' }
}

// Upgrades `o[key]` from its old words to its code, in place (anything else is left as it is).
function upgradeField (o, key) {
  if (o && typeof o === 'object' && typeof o[key] === 'string' && Object.hasOwn(OLD_DECISION[key], o[key])) {
    o[key] = OLD_DECISION[key][o[key]]
  }
}

// Upgrades a decision's codes from older reports' words, in place: its bounds (upgradeBound), its rule and
// tie-break, its past-capacity outcome, its refusal's reason and lean.
function upgradeDecision (d) {
  for (const c of [d, d.target, d.runnerUp, ...list(d.targets), ...list(d.unmet)]) upgradeBound(c)
  upgradeField(d.decidedBy, 'rule')
  upgradeField(d.decidedBy?.tieBreak, 'by')
  upgradeField(d.pastRule, 'outcome')
  upgradeField(d.refused, 'reason')
  upgradeField(d.refused?.lean?.tieBreak, 'by')
}

// The percentile older labs judged and did not write: p99, the only one they knew.
const OLD_PERCENTILE = 99

// Gives a sweep and each of its capacities the percentile they were judged at, in place, where an older
// lab did not write it.
function upgradePercentile (sweep) {
  sweep.percentile ??= OLD_PERCENTILE
  for (const c of [sweep.capacity, ...list(sweep.targets), ...list(sweep.runs)]) {
    if (c && typeof c === 'object') c.percentile ??= sweep.percentile
  }
}

// Gives a decision's target its percentile, in place; a decision from before its target was written gets
// one that says only that (whose target it was is not known).
function upgradeTarget (d) {
  if (!d.target || typeof d.target !== 'object') d.target = {}
  d.target.percentile ??= OLD_PERCENTILE
}

// Upgrades a parsed report from older labs' forms to today's, in place, before the schema check: the
// capacities' bounds (upgradeBound) of every sweep, its targets and runs, its budget's cut, the percentile
// judged (upgradePercentile), and the decision's codes and target (upgradeDecision, upgradeTarget). Returns it.
export function upgradeReport (data) {
  for (const r of list(data?.results)) {
    const sweep = r?.capacity
    if (sweep && typeof sweep === 'object') {
      for (const c of [sweep.capacity, ...list(sweep.targets), ...list(sweep.runs)]) upgradeBound(c)
      if (sweep.budget?.cut === 'looser targets') sweep.budget.cut = 'looser-targets' // older labs' words
      upgradePercentile(sweep)
    }
  }
  const d = data?.decision
  if (d && typeof d === 'object') {
    upgradeDecision(d)
    upgradeTarget(d)
  }
  return data
}

// Read, parse and check one report file: the parsed report ({ kind: 'loadlab-report', schema,
// results: [...] }); throws a LabError (exit 2) whose one line names `as` and the file.
export function readReportFile (file, { as = null } = {}) {
  const text = readBounded(file, as)
  let data
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw refusal(as, `${file} is not JSON (${err.message.split('\n')[0]})`, 'LAB_REPORT_NOT_JSON')
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data) || data.kind !== 'loadlab-report') {
    throw refusal(as, `${file} is not a loadlab report (expected "kind": "loadlab-report")`, 'LAB_REPORT_NOT_REPORT')
  }
  if (data.schema !== SCHEMA) {
    const got = JSON.stringify(data.schema ?? null)
    throw refusal(as, `${file} is a schema ${got} report; this lab reads schema ${SCHEMA} only`, 'LAB_REPORT_SCHEMA')
  }
  if (!Array.isArray(data.results)) {
    throw refusal(as, `${file} is not a loadlab report (no "results" array)`, 'LAB_REPORT_NOT_REPORT')
  }
  return upgradeReport(data)
}

let validator = null // compiled on first use: most commands never read a report

// The compiled schema (ajv: stops at the first fault; its `number` refuses Infinity, which 1e999 parses to).
function schemaValidator () {
  if (validator) return validator
  const ajv = new (ajv2020())({ allErrors: false, allowUnionTypes: true, strict: true })
  validator = ajv.compile(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')))
  return validator
}

const unescape = (p) => p.replaceAll('~1', '/').replaceAll('~0', '~')

// `/results/0/requests/sent` as a reader writes it: results[0].requests.sent.
function pathOf (pointer) {
  const step = (out, p) => /^\d+$/.test(p)
    ? `${out}[${p}]`
    : /^[A-Za-z_$][\w$]*$/.test(p) ? `${out}${out ? '.' : ''}${p}` : `${out}[${clip(JSON.stringify(p), 40)}]`
  return pointer.split('/').slice(1).map(unescape).reduce(step, '')
}

// The value at a JSON pointer of `data`, for one line: a number or string as JSON (clipped), else what
// it is (an array is never turned into text: a hostile one may nest past what String() can walk).
function shownAt (data, pointer) {
  const v = pointer.split('/').slice(1).map(unescape).reduce((x, p) => x?.[p], data)
  if (v === null || typeof v !== 'object') {
    return typeof v === 'number' && !Number.isFinite(v) ? String(v) : clip(JSON.stringify(v) ?? 'nothing')
  }
  return Array.isArray(v) ? `an array of ${v.length}` : 'an object'
}

// Checks a parsed report against report.schema.json, once upgraded from older labs' forms (upgradeReport, in
// place), its ruler first by its figures; returns it, or throws a LabError (exit 2) whose
// one line names `as`, the file, where the first fault is, the rule and the value found there.
export function validateReport (data, { file = 'the report', as = null } = {}) {
  // a ruler with a figure no machine gives is said by its figure (result/ruler.js rulerFault): where the
  // schema would say `must be > 0`, this says why no machine gives it
  const fault = data?.ruler === undefined ? null : rulerFault(data.ruler)
  if (fault) {
    throw refusal(as, `${file} does not follow the report ` +
    `schema: ${rulerFaultText(fault)}`, 'LAB_REPORT_INVALID')
  }
  const validate = schemaValidator()
  if (validate(upgradeReport(data))) return data
  // ajv stops at the first fault; under an anyOf it lists each branch's, then the anyOf's own. A branch
  // that failed deeper inside the value says where (requests.sent); else the branches say what was allowed.
  const errors = validate.errors
  let e = errors.at(-1).keyword === 'anyOf' ? errors.at(-1) : errors[0]
  const deeper = errors.filter((x) => x.keyword !== 'anyOf' && x.instancePath.length > e.instancePath.length)
  if (deeper.length) e = deeper.reduce((a, x) => (x.instancePath.length > a.instancePath.length ? x : a))
  const alternatives = errors.filter((x) => x.keyword !== 'anyOf' && x.instancePath === e.instancePath)
  const says = (x) => x.keyword === 'enum'
    ? `must be one of ${x.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
    : x.message
  const rule = alternatives.length ? [...new Set(alternatives.map(says))].join(' or ') : says(e)
  const got = e.keyword === 'required' ? '' : ` (got ${shownAt(data, e.instancePath)})`
  const where = e.instancePath === '' ? 'the report' : pathOf(e.instancePath)
  throw refusal(as, `${file} does not follow the report schema: ${where} ${rule}${got}`, 'LAB_REPORT_INVALID')
}

// A number read from a report that stands for an option: finite and within [min, max], else a refusal
// naming where it was, what it stands for and the range (`what`: e.g. 'a rate (--rate)').
export function checkedNumber (value, { file, as, where, what, min, max }) {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) return value
  const got = typeof value === 'number' ? String(value) : JSON.stringify(value) ?? 'nothing'
  throw refusal(as, `${file}: ${where} ${got} is not ${what} from ${min} to ${max}`, 'LAB_REPORT_OUT_OF_RANGE')
}
