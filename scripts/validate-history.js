// loadlab history's change points checked against truth (a script, not a test), in two parts.
//
//   synthetic  series with known steps and noise drawn from real rounds: the relative deviations of every
//              trusted figure (p50, p99, rps) of the tours in --noise from its mean over those tours, drawn
//              with replacement. Per step size: the share of steps found within one report of where they
//              are; and the false alarms per 100 points (every change called where there is none, in series
//              with no step and in those with one). Seconds of CPU; writes DIR/synthetic.json and .md.
//   real       a folder of real tours in time order (scripts/validate-compare.js writes one): --phases says
//              how many of each phase it holds in order (baseline, changed code, taskset -c 0, hog), --take
//              how many to keep of each (the last of the baseline, the last of the changed). The kept reports
//              are copied to DIR/reports/, and checked: a code change found at the first changed report, a
//              change of machine (not of code) at the first taskset report, no other change called;
//              --fail-on-change exits 99 on DIR/reports and 0 on them cut before the change. Writes
//              DIR/summary.json and .md.
//   built      the real part on a stand-in: copies of a reference tour with a code step and a one-core machine
//              (written to DIR/built/), a smoke test of the real part.
import { parseArgs } from 'node:util'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, relative, resolve } from 'node:path'
import { execFileSync } from 'node:child_process'
import { runMain, usageError } from '../loadtest/errors.js'
import { readBounded } from '../loadtest/report/read.js'
import { changePoints } from '../loadtest/result/changepoint.js'
import { CHANGE } from '../loadtest/result/rules.js'
import { history, readReports, reportFiles } from '../loadtest/history/history.js'
import { writeAtomic } from '../loadtest/report/write.js'
import { ROOT } from '../loadtest/catalog.js'

const HELP = `Usage: node scripts/validate-history.js synthetic [--noise DIR] [--series N] [--length L] [--seed S] --out DIR
       node scripts/validate-history.js real --from DIR --phases baseline:20,changed:10,taskset:3,hog:1,setting:10
            [--take baseline:6,changed:6,taskset:3] --out DIR
       node scripts/validate-history.js built --out DIR   (the real part on tours built from a reference one)

  --noise   the real tours whose figures' spread is the noise (default reports/reference/tours)
  --series  series per step size, and as many with no step (default 400)
  --length  reports a series (default 40)
  --seed    the noise's seed (default 1)
  --from    the folder of real tours, in time order
  --phases  how many reports of each phase the folder holds, in order
  --take    how many to keep of each phase (the last of the phase; default baseline:6,changed:6,taskset:3)
  --out     the folder for the summary (made if missing; real: the kept reports go to OUT/reports)`

const SIZES = [0.05, 0.1, 0.2, 0.5]
const FIGURES = ['p50', 'p99', 'rps']

// A seeded uniform draw in [0, 1) (Park–Miller).
function uniform (seed) {
  let s = seed % 2147483647 || 1
  return () => (s = (s * 16807) % 2147483647) / 2147483647
}

// The relative deviations of each trusted figure of each run from its mean over the reports (n ≥ 2),
// corrected for the mean being estimated (× √(n / (n − 1))).
export async function residuals (dir) {
  const { reports } = await readReports(reportFiles([dir]), { figures: FIGURES })
  const byKey = new Map()
  for (const r of reports) {
    for (const x of r.results.filter((x) => x.trusted)) {
      for (const [f, v] of Object.entries(x.values)) {
        const k = `${x.key} ${f}`
        byKey.set(k, [...(byKey.get(k) ?? []), v])
      }
    }
  }
  const out = []
  for (const vs of byKey.values()) {
    if (vs.length < 2) continue
    const mean = vs.reduce((a, v) => a + v, 0) / vs.length
    const c = Math.sqrt(vs.length / (vs.length - 1))
    for (const v of vs) out.push((v / mean - 1) * c)
  }
  return { reports: reports.length, residuals: out }
}

// The synthetic part: { parameters, noise, sizes: [{ size, series, found, rate }], falseAlarmsPer100 }.
export function synthetic (noise, { series = 400, length = 40, seed = 1 } = {}) {
  const u = uniform(seed)
  const draw = () => noise[Math.floor(u() * noise.length)]
  const make = (step, at) => Array.from({ length }, (_, i) => 100 * (i >= at ? 1 + step : 1) * (1 + draw()))
  let falseAlarms = 0
  let points = 0
  for (let i = 0; i < series; i++) {
    falseAlarms += changePoints(make(0, length)).points.length
    points += length
  }
  const sizes = []
  for (const size of SIZES) {
    let found = 0
    for (let i = 0; i < series; i++) {
      const at = CHANGE.minSegment + Math.floor(u() * (length - 2 * CHANGE.minSegment + 1))
      const cps = changePoints(make(size, at)).points
      const hit = cps.find((c) => Math.abs(c.index - at) <= 1)
      if (hit) found++
      falseAlarms += cps.length - (hit ? 1 : 0)
      points += length
    }
    sizes.push({ size, series, found, rate: found / series })
  }
  const sd = Math.sqrt(noise.reduce((a, r) => a + r * r, 0) / noise.length)
  const sorted = [...noise].sort((a, b) => a - b)
  return {
    parameters: { ...pick(CHANGE, ['maxPValue', 'weakPValue', 'minSegment']), length, series, seed },
    noise: {
      n: noise.length, sdPct: sd * 100, p1Pct: quantile(sorted, 0.01) * 100, p99Pct: quantile(sorted, 0.99) * 100
    },
    sizes,
    falseAlarms,
    points,
    falseAlarmsPer100: (100 * falseAlarms) / points
  }
}

const late = (n) => `${Math.abs(n)} tested report ${n > 0 ? 'late' : 'early'}`
const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]))
const quantile = (sorted, q) => sorted[Math.floor(q * sorted.length)]
const pct = (x, d = 1) => `${(x * 100).toFixed(d)} %`

function syntheticMd (s, cmd) {
  return [
    '# loadlab history: the synthetic validation',
    '',
    `\`${cmd}\``,
    '',
    `Series of ${s.parameters.length} reports with one step (at a random report, at least ${s.parameters.minSegment} from ` +
      `either end) or none; noise drawn from ${s.noise.n} relative deviations of real tours (sd ${s.noise.sdPct.toFixed(1)} %, ` +
      `p1 ${s.noise.p1Pct.toFixed(1)} %, p99 ${s.noise.p99Pct.toFixed(1)} %). Method: E-divisive means, Welch t-test ` +
      `p ≤ ${s.parameters.maxPValue} (split at ${s.parameters.weakPValue}), segments of ${s.parameters.minSegment} or more.`,
    '',
    '| step | series | found within one report |',
    '| ---: | ---: | ---: |',
    ...s.sizes.map((x) => `| +${pct(x.size, 0)} | ${x.series} | ${pct(x.rate)} |`),
    '',
    `False alarms: ${s.falseAlarms} in ${s.points} points, ${s.falseAlarmsPer100.toFixed(3)} per 100 points.`,
    ''
  ].join('\n')
}

// "a:1,b:2" → [['a', 1], ['b', 2]] (the --phases and --take grammar).
export function counts (text, name) {
  return String(text).split(',').map((p) => {
    const [k, n] = p.split(':')
    if (!k || !/^\d+$/.test(n ?? '')) throw usageError(`--${name}: expected NAME:N,…, got ${JSON.stringify(text)}`)
    return [k, Number(n)]
  })
}

// The built part: a stand-in for the real tours (a smoke test of the real part, and the docs' picture): copies
// of one reference tour, each with its own id and time and a seeded 3 % noise on its figures, `phases` of them:
// baseline as it is, changed ×1.4 on every latency (÷ on rps), taskset ×2.2 with one core in its machine block,
// hog ×3 and marked disturbed. Writes them to DIR; returns the phases' counts.
export function built (dir, { source = join(ROOT, 'reports/reference/tours/2026-11-26T13-50-55Z-vm-tour.json.gz') } = {}) {
  const base = JSON.parse(readBounded(source)) // plain or compressed
  const phases = [['baseline', 8, 1], ['changed', 6, 1.4], ['taskset', 3, 2.2], ['hog', 1, 3]]
  const u = uniform(5)
  const g = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())
  mkdirSync(dir, { recursive: true })
  let i = 0
  for (const [phase, n, scale] of phases) {
    for (let k = 0; k < n; k++, i++) {
      const r = structuredClone(base)
      const at = new Date(Date.UTC(2026, 0, 1, 0, i))
      r.id = `${at.toISOString().slice(0, 19).replaceAll(':', '-')}Z-built-tour`
      r.createdAt = at.toISOString()
      r.label = `${phase}-${k + 1}`
      if (phase === 'taskset') r.machine.availableParallelism = 1
      for (const x of r.results) {
        const f = scale * (1 + 0.03 * g())
        for (const p of Object.keys(x.latency.percentiles)) x.latency.percentiles[p] *= f
        x.latency.p50 *= f
        x.latency.p99 *= f
        x.rps /= f
        delete x.histograms // scaled figures no longer match the tour's histogram: a built tour carries none
        if (phase === 'hog') Object.assign(x, { trusted: false, untrusted: ['disturbed: a CPU hog beside it'] })
      }
      writeFileSync(join(dir, `${r.id}.json`), JSON.stringify(r))
    }
  }
  return phases.map(([p, n]) => `${p}:${n}`).join(',')
}

// The real part: copies the kept tours into OUT/reports and checks them; resolves the summary.
export async function real ({ from, phases, take, out }) {
  const files = reportFiles([from])
  const { reports } = await readReports(files)
  const ordered = [...reports].sort((a, b) => String(a.at).localeCompare(String(b.at)))
  const total = phases.reduce((a, [, n]) => a + n, 0)
  if (ordered.length !== total) throw usageError(`--phases: ${total} reports said, ${ordered.length} read in ${from}`)
  const kept = []
  let at = 0
  for (const [phase, n] of phases) {
    const mine = ordered.slice(at, at + n)
    at += n
    const want = take.find(([p]) => p === phase)?.[1] ?? 0
    kept.push(...mine.slice(Math.max(0, n - want)).map((r) => ({ ...r, phase })))
  }
  const dir = join(out, 'reports')
  mkdirSync(dir, { recursive: true })
  for (const r of kept) {
    copyFileSync(r.file, join(dir, basename(r.file)))
    const md = r.file.replace(/\.json(\.gz)?$/, '.md')
    if (existsSync(md)) copyFileSync(md, join(dir, basename(md)))
  }
  const firstOf = (phase) => kept.find((r) => r.phase === phase)?.id ?? null
  const changedAt = firstOf('changed')
  const tasksetAt = firstOf('taskset')
  const atOf = (id) => kept.find((r) => r.id === id)?.at ?? null
  const h = await history([dir])
  // a change's place among the points its series tested on that machine (a series tests only its trusted
  // points), and the place of the first of them in the changed phase
  const changes = h.series.flatMap((s) => s.changes.map((c) => {
    const tested = s.points.filter((p) => p.trusted && p.machine === c.machine).map((p) => p.report)
    const first = tested.findIndex((id) => String(atOf(id)) >= String(atOf(changedAt)))
    return {
      series: s.id,
      report: c.report,
      since: c.since,
      cause: c.cause,
      change: c.change,
      pValue: c.pValue,
      late: first === -1 ? null : tested.indexOf(c.report) - first
    }
  }))
  // a code change is the known one when it is dated within one tested report of it: the synthetic part's
  // "found within one report", counted in the points the test saw
  const isCode = (c) => c.cause === 'code' && changedAt !== null && c.late !== null && Math.abs(c.late) <= 1
  const codeAtChange = changes.filter(isCode)
  const atTaskset = changes.filter((c) => c.report === tasksetAt)
  const others = changes.filter((c) => !isCode(c) && !(c.report === tasksetAt && c.cause === 'machine'))
  const gate = (dirs) => {
    try {
      execFileSync(process.execPath, [join(ROOT, 'bin/loadlab.js'), 'history', ...dirs, '--fail-on-change', 'p99:+10%'], { stdio: 'ignore' })
      return 0
    } catch (err) {
      return err.status
    }
  }
  const cut = mkdtempSync(join(tmpdir(), 'history-cut-'))
  for (const r of kept.filter((r) => r.phase === 'baseline')) copyFileSync(r.file, join(cut, basename(r.file)))
  const gateFull = gate([dir])
  const gateCut = gate([cut])
  rmSync(cut, { recursive: true, force: true })
  const checks = {
    codeChangeFound: codeAtChange.length > 0,
    machineChangeNamed: tasksetAt === null || (atTaskset.length > 0 && atTaskset.every((c) => c.cause === 'machine')),
    noOtherChange: others.length === 0,
    gateExits99: gateFull === 99,
    gateCutExits0: gateCut === 0
  }
  return {
    from,
    phases: Object.fromEntries(phases),
    take: Object.fromEntries(take),
    reports: kept.map((r) => ({ id: r.id, phase: r.phase, machine: h.reports.find((x) => x.id === r.id)?.machine })),
    machines: h.machines,
    parameters: h.parameters,
    changedAt,
    tasksetAt,
    codeAtChange,
    atTaskset,
    others,
    gate: { full: gateFull, cut: gateCut },
    checks,
    passed: Object.values(checks).every(Boolean)
  }
}

function realMd (s, cmd) {
  const line = (c) => `- ${c.series}: ${c.change === null ? '-' : `${c.change >= 0 ? '+' : ''}${pct(c.change)}`}, p ${c.pValue?.toExponential(1)}, ${c.cause}`
  return [
    '# loadlab history: a real series',
    '',
    `\`${cmd}\``,
    '',
    `Kept: ${s.reports.map((r) => `${r.phase} ${r.id} (${r.machine})`).join('; ')}.`,
    '',
    `Code change at ${s.changedAt}: ${s.codeAtChange.length} series (dated within one tested report of it, as the ` +
      'synthetic part counts a step found).',
    ...s.codeAtChange.map((c) => line(c) + (c.late === 0 ? '' : `, dated at ${c.report}: ${late(c.late)}`)),
    '',
    `At the first taskset report ${s.tasksetAt}: ${s.atTaskset.length} change(s).`,
    ...s.atTaskset.map(line),
    '',
    `Any other change: ${s.others.length}.`,
    ...s.others.map((c) => `${line(c)} at ${c.report}`),
    '',
    `--fail-on-change 'p99:+10%': exit ${s.gate.full} on the kept reports, ${s.gate.cut} on the baseline alone.`,
    '',
    `Checks: ${Object.entries(s.checks).map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`).join(', ')}.`,
    ''
  ].join('\n')
}

async function main (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        noise: { type: 'string', default: join(ROOT, 'reports/reference/tours') },
        series: { type: 'string', default: '400' },
        length: { type: 'string', default: '40' },
        seed: { type: 'string', default: '1' },
        from: { type: 'string' },
        phases: { type: 'string' },
        take: { type: 'string', default: 'baseline:6,changed:6,taskset:3' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false }
      }
    })
  } catch (err) {
    throw usageError(`${err.message.split('\n')[0]} (see --help)`)
  }
  const { values: v, positionals: [part] } = parsed
  if (v.help) {
    console.log(HELP)
    return 0
  }
  if (!['synthetic', 'real', 'built'].includes(part)) throw usageError('expected the part: synthetic, real or built (see --help)')
  if (!v.out) throw usageError('--out: give the folder for the summary')
  mkdirSync(v.out, { recursive: true })
  // the kept summary names a folder of the checkout by its relative path and a fresh temporary --out as $TMP, so
  // running it again on another checkout rewrites the same lines
  const cmd = `node scripts/validate-history.js ${argv.map((a) => (a === v.out && isTemporary(a) ? '$TMP' : a)).join(' ')}`
  if (part === 'synthetic') {
    const { reports, residuals: noise } = await residuals(v.noise)
    if (noise.length < 10) throw usageError(`--noise: ${v.noise} gives ${noise.length} deviations; give a folder of repeated tours`)
    const options = { series: Number(v.series), length: Number(v.length), seed: Number(v.seed) }
    const s = { command: cmd, noiseFrom: { folder: inCheckout(v.noise), reports }, ...synthetic(noise, options) }
    await writeAtomic(join(v.out, 'synthetic.json'), JSON.stringify(s, null, 2) + '\n', { force: true })
    await writeAtomic(join(v.out, 'synthetic.md'), syntheticMd(s, cmd), { force: true })
    process.stdout.write(syntheticMd(s, cmd))
    return 0
  }
  if (part === 'built') {
    v.from = join(v.out, 'built')
    v.phases = built(v.from)
  }
  if (!v.from || !v.phases) throw usageError('real: give --from DIR and --phases')
  const s = { command: cmd, ...(await real({ from: v.from, phases: counts(v.phases, 'phases'), take: counts(v.take, 'take'), out: v.out })) }
  await writeAtomic(join(v.out, 'summary.json'), JSON.stringify(s, null, 2) + '\n', { force: true })
  await writeAtomic(join(v.out, 'summary.md'), realMd(s, cmd), { force: true })
  process.stdout.write(realMd(s, cmd))
  return s.passed ? 0 : 1
}

// Whether `path` lies outside folder `dir`.
const outside = (dir, path) => relative(dir, resolve(path)).startsWith('..')

// A path inside the checkout, relative to it; one outside, as given.
const inCheckout = (path) => (outside(ROOT, path) ? path : relative(ROOT, resolve(path)))

// Whether a folder lies in the system's temporary folder and outside the checkout (a clone may be there).
const isTemporary = (path) => !outside(tmpdir(), path) && outside(ROOT, path)

runMain(import.meta.url, 'validate-history', main)
