// The validation of compare's verdicts (docs/compare.md "How often it is wrong"): RUNS real tours into a
// kept folder, then JUDGES them with compare's own rule and writes summary.md and summary.json there, the
// figures compare prints (loadtest/compare/validated.js) and docs/compare.md's block of them.
//
// The runs, in order, so that the folder is also a real history series (docs/history.md):
//   --baseline N  tours of this tree, back to back (pairs 1–2, 3–4 …: the false alarms);
//   --changed N   tours of a temporary copy of the tree whose works do 1.3 × the work under the same names
//                 (servers/lib/workloads.js patched there; never a switch in the product): the power, each
//                 against the baseline tour as far from its end as it is from the start of the changed ones;
//   --taskset N   changed tours under `taskset -c 0` (one core), each against a changed tour: the machine;
//   --hog N       changed tours beside `node -e 'for(;;);'` (ended by its pid), against a changed tour;
//   --settings N  tours of a copy whose servers' pools default to one worker (a server setting changed),
//                 against the last baseline tours: the power on a setting.
// Each report is labelled (--label) with what it is. --judge-only DIR judges a kept folder again.
//
//   node scripts/validate-compare.js --out reports/reference/compare-validation        (the whole, ~45 min)
//   node scripts/validate-compare.js --judge-only reports/reference/compare-validation
//   node scripts/validate-compare.js --out /tmp/v --baseline 2 --changed 1 --taskset 0 --hog 0 --settings 0 \
//     --lab-args='--server simple --amount 30'                                         (the smallest)
import { parseArgs } from 'node:util'
import { spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runMain, usageError } from '../loadtest/errors.js'
import { readBounded } from '../loadtest/report/read.js'
import { compareReports } from '../loadtest/compare/compare.js'
import { validationText } from '../loadtest/text/compare.js'
import { COMPARE } from '../loadtest/result/rules.js'
import { roundTo } from '../loadtest/result/stats.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const HEAVIER = 1.3
const DOC = join(ROOT, 'docs', 'compare.md')
const VALIDATED = join(ROOT, 'loadtest', 'compare', 'validated.js')
const MARK = ['<!-- validated: scripts/validate-compare.js writes this line -->', '<!-- /validated -->']

// The label of each kind of tour (the reports' --label, and how the judge finds them again).
export const KINDS = ['baseline', 'changed', 'taskset', 'hog', 'setting']

// Runs one command to its end; resolves its exit code.
function exec (cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code))
  })
}

// A copy of the tree (without .git; node_modules linked) with `patch` applied to one file; resolves its root.
async function patchedTree (file, patch) {
  const dir = await mkdtemp(join(tmpdir(), 'loadlab-validate-compare-'))
  for (const name of ['loadtest', 'servers', 'bin', 'index.js', 'package.json', 'report.schema.json']) {
    await cp(join(ROOT, name), join(dir, name), { recursive: true })
  }
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const path = join(dir, file)
  const before = await readFile(path, 'utf8')
  const after = patch(before)
  if (after === before) throw new Error(`the patch of ${file} changed nothing: the code moved`)
  await writeFile(path, after)
  return dir
}

// The two code changes the power is measured on: every CPU work does 1.3 × its work under the same name,
// and the servers' pools default to one worker.
// A replacement that must find its text: a change that silently changed nothing would be measured as none.
function must (s, from, to) {
  if (!s.includes(from)) throw new Error(`validate-compare: the patched file no longer has ${JSON.stringify(from)}`)
  return s.replace(from, to)
}
const heavier = (s) => [
  ['const kinds = {', `const HEAVIER = ${HEAVIER}\nconst kinds = {`],
  ['run: (n) => ({ sum: loop(n) })', 'run: (n) => ({ sum: loop(Math.round(n * HEAVIER)) })'],
  ['run: (n) => ({ bytes: ssr(n) })', 'run: (n) => ({ bytes: ssr(Math.round(n * HEAVIER)) })']
].reduce((t, [from, to]) => must(t, from, to), s)
const onePool = (s) => must(s, 'export const cores = availableParallelism()', 'export const cores = 1')

// One tour from `tree` into `out`, labelled; `prefix` a command to run it under (taskset).
async function tour (tree, out, label, { prefix = [], labArgs = [] } = {}) {
  const args = [join(tree, 'loadtest', 'cli.js'), '--experiment', 'tour', '--label', label, '--out', out, ...labArgs]
  const [cmd, ...rest] = prefix.length ? [...prefix, process.execPath, ...args] : [process.execPath, ...args]
  const code = await exec(cmd, rest, { cwd: tree })
  if (code !== 0) process.stderr.write(`validate-compare: ${label} exited ${code}\n`)
  // the JSON and the Markdown are kept; the pages (a megabyte or more each) would outgrow reports/reference/
  for (const f of await readdir(out)) if (f.endsWith('.html')) await rm(join(out, f))
}

// A value as the house writes JavaScript (neostandard: single quotes, bare keys), so the written module lints.
function asModule (value) {
  return JSON.stringify(value, null, 2)
    .replace(/"((?:[^"\\]|\\.)*)"/g, (_, text) => `'${JSON.parse(`"${text}"`).replace(/[\\']/g, '\\$&')}'`)
    .replace(/^(\s*)'([A-Za-z_$][\w$]*)':/gm, '$1$2:')
}

// Runs every tour of the plan into `out`, in the order the header says.
async function runAll (given, plan) {
  const out = resolve(given) // the changed tours run from a copy of the tree: a relative folder would be inside it
  await mkdir(out, { recursive: true })
  const labArgs = plan.labArgs
  for (let i = 1; i <= plan.baseline; i++) await tour(ROOT, out, `baseline ${i}`, { labArgs })
  const changed = plan.changed + plan.taskset + plan.hog > 0 ? await patchedTree('servers/lib/workloads.js', heavier) : null
  try {
    for (let i = 1; i <= plan.changed; i++) await tour(changed, out, `changed ${i}: work × ${HEAVIER}`, { labArgs })
    for (let i = 1; i <= plan.taskset; i++) {
      await tour(changed, out, `taskset ${i}: work × ${HEAVIER} under taskset -c 0`, { prefix: ['taskset', '-c', '0'], labArgs })
    }
    for (let i = 1; i <= plan.hog; i++) {
      const hog = spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' })
      try {
        await tour(changed, out, `hog ${i}: work × ${HEAVIER} beside a CPU hog`, { labArgs })
      } finally {
        process.kill(hog.pid)
      }
    }
  } finally {
    if (changed) await rm(changed, { recursive: true, force: true })
  }
  if (plan.settings > 0) {
    const pool = await patchedTree('servers/lib/options.js', onePool)
    try {
      for (let i = 1; i <= plan.settings; i++) await tour(pool, out, `setting ${i}: pools of one`, { labArgs })
    } finally {
      await rm(pool, { recursive: true, force: true })
    }
  }
}

// The kept reports of a folder by kind, each in the order it was made: { baseline: [{ file, report }] … }.
export async function keptReports (dir) {
  const out = Object.fromEntries(KINDS.map((k) => [k, []]))
  const files = (await readdir(dir)).filter((f) => /\.json(\.gz)?$/.test(f) && f !== 'summary.json').sort()
  for (const f of files) {
    const report = JSON.parse(readBounded(join(dir, f), 'validate-compare')) // plain or kept compressed
    const kind = String(report.label ?? '').split(' ')[0]
    if (out[kind]) out[kind].push({ file: join(dir, f), report })
  }
  return out
}

// The verdicts of one pair: every judged figure of every run both share, and whether the lab marked either
// run disturbed.
function verdictsOf (a, b, floors = undefined) {
  const cmp = compareReports([a, b].map(({ file, report }) => ({ file, report })), { floors })
  return cmp.rows.filter((r) => r.kind === 'http' && r.cells[1]?.verdicts).map((row) => ({
    key: row.key,
    server: row.variant ? `${row.server}/${row.variant}` : row.server,
    work: row.work,
    disturbed: Boolean(row.cells[0]?.disturbed || row.cells[1]?.disturbed),
    verdicts: Object.values(row.cells[1].verdicts).filter((v) => v.verdict !== 'no-interval')
  }))
}

// The identical pairs (1–2, 3–4 …) of the baseline tours.
const pairsOf = (list) => list.slice(0, list.length - (list.length % 2))
  .flatMap((x, i, l) => (i % 2 ? [] : [[x, l[i + 1]]]))

// The run-to-run floors the rule book's COMPARE takes, fitted on the first `fitPairs` identical pairs: for
// each kind of figure, the FLOOR_QUANTILE of |log ratio| over the runs neither side marked disturbed.
export const FLOOR_QUANTILE = 0.95
export function fitFloors (kept, fitPairs) {
  const rows = pairsOf(kept.baseline).slice(0, fitPairs).flatMap(([a, b]) => verdictsOf(a, b))
    .filter((r) => !r.disturbed)
  const out = {}
  for (const kind of ['rps', 'efficiency', 'p50', 'p99']) {
    const logs = rows.flatMap((r) => r.verdicts.filter((v) => v.kind === kind && v.ratio > 0))
      .map((v) => Math.abs(Math.log(v.ratio))).sort((x, y) => x - y)
    if (!logs.length) continue
    out[kind] = { n: logs.length, floor: logs[Math.ceil(FLOOR_QUANTILE * logs.length) - 1] }
  }
  return out
}

// A strategy's own floors, fitted on `pairList` (identical pairs): for each kind of figure, COMPARE.serverFloorZ ×
// the root mean square of its log ratios over the runs neither side marked disturbed (a half-normal's quantile:
// a strategy has too few pairs for an empirical 97.5th percentile). { 'simple': { rps, p50, p99, efficiency } … }
export function fitServerFloors (pairList, z = COMPARE.serverFloorZ) {
  const logs = {}
  for (const [a, b] of pairList) {
    for (const r of verdictsOf(a, b).filter((r) => !r.disturbed)) {
      for (const v of r.verdicts.filter((v) => v.ratio > 0 && FLOOR_KINDS.includes(v.kind))) {
        ((logs[r.server] ??= {})[v.kind] ??= []).push(Math.log(v.ratio))
      }
    }
  }
  const rms = (xs) => Math.sqrt(xs.reduce((a, x) => a + x * x, 0) / xs.length)
  return Object.fromEntries(Object.entries(logs).sort(([a], [b]) => (a < b ? -1 : 1)).map(([server, kinds]) =>
    [server, Object.fromEntries(FLOOR_KINDS.filter((k) => kinds[k]).map((k) => [k, roundTo(z * rms(kinds[k]), 3)]))]))
}
const FLOOR_KINDS = ['rps', 'efficiency', 'p50', 'p99']

const share = (n, d) => (d ? n / d : null)
// A strategy's change counts as reaching its figure when its mean req/s moved at least this share of the change
// (in log): a thread or process started per request spends most of a request starting it, and × 1.3 of the
// work moves its req/s by a few per cent, which no floor should call.
const REACHED = 0.5
// A run whose work waits (sleep) does not get heavier with the work: left out of the power.
const computes = (work) => !/^sleep/.test(String(work))

/**
 * Judges the kept reports `kept` (keptReports): { falseAlarms, power, setting, machine_pairs } with the
 * shares the summary and compare print.
 */
export function judgeKept (kept) {
  const pairs = pairsOf
  const alarmsOf = (pairList, floors = undefined) => {
    const figures = pairList.map(([a, b]) => verdictsOf(a, b, floors)).flat().flatMap((r) => r.verdicts)
    const alarms = figures.filter((v) => v.verdict === 'better' || v.verdict === 'worse').length
    return { pairs: pairList.length, figures: figures.length, alarms, share: share(alarms, figures.length) }
  }
  const all = pairs(kept.baseline)
  const fitted = Math.floor(all.length / 2) // the floors' fit (fitFloors): the first half of the pairs
  const figures = all.map(([a, b]) => verdictsOf(a, b)).flat().flatMap((r) => r.verdicts)
  const alarms = figures.filter((v) => v.verdict === 'better' || v.verdict === 'worse').length
  // the strategies' own floors, held out both ways: fitted on one half of the pairs, judged on the other
  const halves = [all.slice(0, fitted), all.slice(fitted)]
  const folds = halves.map((fit, i) => alarmsOf(halves[1 - i], fitServerFloors(fit)))
  const sum = (k) => folds.reduce((a, f) => a + f[k], 0)
  // the geometric mean of a strategy's req/s over a list of tours
  const meanRps = (list) => {
    const by = {}
    for (const { report } of list) {
      for (const r of report.results ?? []) if (r.rps > 0) (by[r.key] ??= []).push(Math.log(r.rps))
    }
    const gmean = (xs) => Math.exp(xs.reduce((a, x) => a + x, 0) / xs.length)
    return Object.fromEntries(Object.entries(by).map(([k, xs]) => [k, gmean(xs)]))
  }
  const powerOf = (list) => {
    const base = kept.baseline.slice(-list.length)
    const runs = list.flatMap((b, i) => (base[i] ? verdictsOf(base[i], b) : [])).filter((r) => computes(r.work))
    const detected = runs.filter((r) => r.verdicts.some((v) => v.verdict === 'worse')).length
    const n = Math.min(list.length, base.length)
    // where the change reached the figure: the strategy's mean req/s over the changed tours moved by at least
    // REACHED of the change (in log) from its mean over the baseline tours, and neither run was marked disturbed
    const before = meanRps(kept.baseline)
    const after = meanRps(list)
    const moved = (key) => before[key] > 0 && after[key] > 0 &&
      Math.abs(Math.log(after[key] / before[key])) >= REACHED * Math.log(HEAVIER)
    const reached = runs.filter((r) => moved(r.key) && !r.disturbed)
    const found = reached.filter((r) => r.verdicts.some((v) => v.verdict === 'worse')).length
    return {
      pairs: n,
      runs: runs.length,
      detected,
      share: share(detected, runs.length),
      reached: { runs: reached.length, detected: found, share: share(found, reached.length) }
    }
  }
  const machinePair = (name, list) => {
    const ref = kept.changed.slice(-list.length)
    const rows = list.flatMap((b, i) => (ref[i] ? verdictsOf(ref[i], b) : []))
    const all = rows.flatMap((r) => r.verdicts)
    const machine = all.filter((v) => v.verdict === 'machine').length
    const disturbed = all.filter((v) => v.verdict === 'disturbed').length
    return {
      name,
      pairs: Math.min(list.length, ref.length),
      figures: all.length,
      machine,
      machineShare: share(machine, all.length),
      disturbed,
      disturbedShare: share(disturbed, all.length),
      told: all.some((v) => v.machine === 'told'),
      residuals: rows.map((r) => ({ key: r.key, rps: r.verdicts.find((v) => v.kind === 'rps') ?? null }))
    }
  }
  return {
    falseAlarms: {
      pairs: all.length,
      figures: figures.length,
      alarms,
      share: share(alarms, figures.length),
      // on the pairs the floors were not fitted on: the rule's error on tours it has not seen
      // a strategy without its own floors (the kinds' floors, fitted on the first half): the second half
      heldOut: { fittedOn: fitted, ...alarmsOf(all.slice(fitted), null) },
      // the strategies' own floors fitted on each half and judged on the other, both folds together
      serverHeldOut: { pairs: sum('pairs'), figures: sum('figures'), alarms: sum('alarms'), share: share(sum('alarms'), sum('figures')) }
    },
    floors: fitFloors(kept, fitted),
    serverFloors: fitServerFloors(all),
    power: powerOf(kept.changed),
    setting: powerOf(kept.setting),
    machine_pairs: [machinePair('taskset -c 0', kept.taskset), machinePair('beside a CPU hog', kept.hog)]
      .filter((m) => m.pairs > 0)
  }
}

const pct = (x) => (x === null ? '-' : `${Math.round(x * 1000) / 10} %`)

// The summary as Markdown.
function summaryMd (dir, s) {
  return [
    '# compare\'s verdicts, validated', '',
    `Judged by \`node scripts/validate-compare.js --judge-only ${dir}\` (docs/compare.md).`, '',
    `- False alarms: ${s.falseAlarms.alarms} of ${s.falseAlarms.figures} figures (${pct(s.falseAlarms.share)}) ` +
      `over ${s.falseAlarms.pairs} pairs of identical tours (target ≤ 5 %), with the rule book's floors (in sample: ` +
      'each strategy\'s were fitted on these pairs). Held out, each strategy\'s floors fitted on one half of the ' +
      `pairs and judged on the other, both ways: ${s.falseAlarms.serverHeldOut.alarms} of ` +
      `${s.falseAlarms.serverHeldOut.figures} (${pct(s.falseAlarms.serverHeldOut.share)}). A strategy without its ` +
      `own floors (the kinds' floors) on the ${s.falseAlarms.heldOut.pairs} pairs they were not fitted on: ` +
      `${s.falseAlarms.heldOut.alarms} of ${s.falseAlarms.heldOut.figures} (${pct(s.falseAlarms.heldOut.share)}).`,
    `- Floors fitted on pairs 1–${s.falseAlarms.heldOut.fittedOn} (the ${FLOOR_QUANTILE * 100}th percentile of ` +
      `|log ratio| over runs not marked disturbed): ${Object.entries(s.floors).map(([k, f]) =>
        `${k} ${f.floor.toFixed(3)} (${f.n})`).join(', ')}.`,
    `- Each strategy's own floors (COMPARE.serverFloors: ${COMPARE.serverFloorZ} × the root mean square of its ` +
      `quiet log ratios) fitted on all ${s.falseAlarms.pairs} pairs: ` +
      `${Object.entries(s.serverFloors).map(([k, f]) => `${k} (${Object.entries(f).map(([m, x]) => `${m} ${x}`).join(', ')})`).join('; ')}.`,
    `- Power, work × ${HEAVIER}: ${s.power.detected} of ${s.power.runs} runs called worse (${pct(s.power.share)}) ` +
      `over ${s.power.pairs} pairs (target ≥ 90 %); where the change reached the figure (the strategy's mean req/s ` +
      `moved at least ${REACHED} of it in log) and neither run was marked disturbed: ${s.power.reached.detected} of ` +
      `${s.power.reached.runs} (${pct(s.power.reached.share)}).`,
    `- Power, pools of one: ${s.setting.detected} of ${s.setting.runs} runs (${pct(s.setting.share)}) over ` +
      `${s.setting.pairs} pairs; where the change reached the figure: ${s.setting.reached.detected} of ` +
      `${s.setting.reached.runs} (${pct(s.setting.reached.share)}).`,
    ...s.machine_pairs.map((m) => `- ${m.name}: ${m.machine} of ${m.figures} figures put down to the machine ` +
      `(${pct(m.machineShare)}), ${m.disturbed} disturbed (${pct(m.disturbedShare)}) over ${m.pairs} pairs` +
      `${m.told ? '' : ' (no ruler: the machine cannot be told)'}.`),
    ''
  ].join('\n')
}

// Writes the summary into `dir`, the figures compare prints and docs/compare.md's line of them.
async function writeSummary (dir, s, { machine }) {
  const folder = relative(ROOT, resolve(dir)) || basename(dir)
  const validated = {
    folder,
    machine,
    falseAlarms: s.falseAlarms,
    power: s.power,
    setting: s.setting,
    machine_pairs: s.machine_pairs.map(({ residuals, ...m }) => m)
  }
  await writeFile(join(dir, 'summary.json'), JSON.stringify({ ...s, folder, machine }, null, 2) + '\n')
  await writeFile(join(dir, 'summary.md'), summaryMd(folder, s))
  // only a kept validation (under reports/reference/) is what compare and its docs print
  if (!resolve(dir).startsWith(join(ROOT, 'reports', 'reference') + '/')) return
  await writeFile(VALIDATED, '// The compare rule\'s error rates as its kept validation measured them (scripts/validate-compare.js\n' +
    '// writes this file from its summary; test/scripts/validate-compare.test.js holds the two equal).\n' +
    `export const VALIDATED = ${asModule(validated)}\n`)
  const doc = await readFile(DOC, 'utf8')
  const [open, close] = MARK
  const at = doc.indexOf(open)
  const end = doc.indexOf(close)
  if (at !== -1 && end > at) {
    await writeFile(DOC, `${doc.slice(0, at + open.length)}\n${validationText(validated)}\n${doc.slice(end)}`)
  }
}

const OPTIONS = {
  out: { type: 'string' },
  'judge-only': { type: 'string' },
  baseline: { type: 'string', default: '20' },
  changed: { type: 'string', default: '10' },
  taskset: { type: 'string', default: '3' },
  hog: { type: 'string', default: '1' },
  settings: { type: 'string', default: '0' },
  'lab-args': { type: 'string', default: '' }
}

async function main (argv) {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true })
  const dir = values['judge-only'] ?? values.out
  if (!dir) throw usageError('give --out DIR (run and judge) or --judge-only DIR')
  const count = (k) => {
    const n = Number(values[k])
    if (!Number.isInteger(n) || n < 0) throw usageError(`--${k} takes a whole number`)
    return n
  }
  if (!values['judge-only']) {
    await runAll(dir, {
      baseline: count('baseline'),
      changed: count('changed'),
      taskset: count('taskset'),
      hog: count('hog'),
      settings: count('settings'),
      labArgs: values['lab-args'].split(' ').filter(Boolean)
    })
  }
  const kept = await keptReports(dir)
  const s = judgeKept(kept)
  const m = kept.baseline[0]?.report.machine ?? {}
  await writeSummary(dir, s, { machine: `${m.cpuModel ?? 'unknown CPU'}, ${m.cores ?? '?'} cores` })
  process.stdout.write(summaryMd(relative(ROOT, resolve(dir)), s))
  return 0
}

runMain(import.meta.url, 'validate-compare', main)
