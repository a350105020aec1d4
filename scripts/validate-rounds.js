// The validation of the paired ratios across reports (docs/compare.md "What rounds can detect"):
// RUNS lab tours of --runs N into a kept folder, then JUDGES them with compare's own rule
// (compare/machines.js: a ratio named when its intervals on the two reports are apart) and writes
// summary.json and summary.md there.
//
// The runs, in order, each labelled with its kind:
//   --identical N  pairs of tours of this tree back to back: the share of paired ratios called different
//                  (identical code, one machine: every call is a false alarm);
//   --taskset 1    a tour on the whole machine, then one under `taskset -c 0` (one core): the multi-core
//                  strategies' ratios to simple should be named;
//   --replay N     one tour of N rounds, its first 2 × 5 split into two halves of 5 rounds every way:
//                  more identical pairs from recorded rounds (the halves share the run's conditions).
// --judge-only DIR judges a kept folder again.
//
//   node scripts/validate-rounds.js --out /tmp/rounds --identical 2 --taskset 1 --replay 12
//   node scripts/validate-rounds.js --judge-only /tmp/rounds
import { parseArgs } from 'node:util'
import { spawn } from 'node:child_process'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { readReportFile } from '../loadtest/report/read.js'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runMain, usageError } from '../loadtest/errors.js'
import { pairedAcross } from '../loadtest/compare/machines.js'
import { PAIRED_FIGURES } from '../loadtest/result/paired.js'
import { roundTo } from '../loadtest/result/stats.js'
import { pairedAcrossTable } from '../loadtest/text/paired.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// What every tour runs unless --lab-args says otherwise: three strategies, one of them inline,
// small and short.
const LAB_ARGS = '--server simple,cluster,queued-threads -c 4 --amount 100 --warmup 20 --work loop:1e6'
const RUNS = 5

// Runs one command to its end; resolves its exit code.
function exec (cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code))
  })
}

// One tour of `runs` rounds into `out`, labelled `label`, under `taskset -c 0` when `oneCore`.
async function tour (out, label, { runs, labArgs, oneCore = false }) {
  const lab = [join(ROOT, 'loadtest', 'cli.js'), ...labArgs.split(' '), '--runs', String(runs), '--label', label,
    '--out', out]
  const code = oneCore ? await exec('taskset', ['-c', '0', process.execPath, ...lab]) : await exec(process.execPath, lab)
  if (code !== 0) process.stderr.write(`validate-rounds: the ${label} tour exited ${code}\n`)
}

// The kept reports of a folder by their label: label → [report …] in time order.
async function reportsIn (dir) {
  const files = (await readdir(dir)).filter((f) => /\.json(\.gz)?$/.test(f) && !f.startsWith('summary')).sort()
  // a tour stopped before its end (status partial) is not judged
  const byLabel = new Map()
  for (const f of files) {
    const report = readReportFile(join(dir, f)) // plain or gzip
    if (report.status === 'partial') continue
    byLabel.set(report.label, [...(byLabel.get(report.label) ?? []), report])
  }
  return byLabel
}

// One pair judged as compare judges it: how many ratios were compared, which were named.
function judge (a, b) {
  const across = pairedAcross([{ report: a }, { report: b }], 0)
  if (!across) return { compared: 0, changed: [] }
  const bounded = (f) => typeof f?.low === 'number' // a ratio with an interval
  const there = new Map(across.blocks[1].entries.map((e) => [e.key, e]))
  const compared = across.blocks[0].entries.reduce((n, e) => n + PAIRED_FIGURES.filter((f) =>
    bounded(e.figures[f]) && bounded(there.get(e.key)?.figures[f])).length, 0)
  return { compared, changed: across.changed, across }
}

// A report with only the rounds `keep` (their numbers) of each result.
function halfOf (report, keep) {
  const results = report.results.map((r) => ({ ...r, runs: r.runs.filter((u) => keep.has(u.round)) }))
  return { ...report, results, paired: undefined }
}

// Every split of the replay tour's first 2 × `runs` rounds into two halves of `runs` rounds (each
// split once: the half holding the first round, and the rest). The splits share rounds: they are
// not independent pairs.
function replayPairs (report, runs) {
  const rounds = report.method.rounds.rounds.map((r) => r.round).slice(0, 2 * runs)
  if (rounds.length < 2 * runs) return []
  const out = []
  const pick = (from, chosen) => {
    if (chosen.length === runs) {
      const half = new Set(chosen)
      out.push([halfOf(report, half), halfOf(report, new Set(rounds.filter((k) => !half.has(k))))])
      return
    }
    for (let i = from; i < rounds.length; i++) pick(i + 1, [...chosen, rounds[i]])
  }
  pick(1, [rounds[0]])
  return out
}

// The share of compared ratios called different over `pairs`, with a 95 % Wilson interval.
function rate (pairs) {
  const judged = pairs.map(([a, b]) => judge(a, b))
  const n = judged.reduce((s, j) => s + j.compared, 0)
  const k = judged.reduce((s, j) => s + j.changed.length, 0)
  return { pairs: pairs.length, compared: n, called: k, share: n ? roundTo(k / n, 4) : null, interval: wilson(k, n) }
}

// The 95 % Wilson score interval of k in n.
function wilson (k, n) {
  if (!n) return null
  const z = 1.96
  const p = k / n
  const mid = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n)
  return [roundTo(mid - half, 4), roundTo(mid + half, 4)]
}

// The judgement of a kept folder's reports (its summary.json), and the taskset pair's comparison.
export async function judged (dir) {
  const byLabel = await reportsIn(dir)
  const identical = byLabel.get('identical') ?? []
  const pairs = []
  for (let i = 0; i + 1 < identical.length; i += 2) pairs.push([identical[i], identical[i + 1]])
  const replay = (byLabel.get('replay') ?? []).flatMap((r) => replayPairs(r, RUNS))
  const labelled = (start) => [...byLabel].find(([label]) => label?.startsWith(start))?.[1][0]
  const whole = labelled('whole machine') // a label may say more: 'whole machine (2 cores), beside …'
  const one = labelled('taskset -c 0')
  const taskset = whole && one ? judge(whole, one) : null
  const busy = [...byLabel.values()].flat().some((r) => r.results.some((x) => x.disturbed))
  const summary = {
    kind: 'loadlab-rounds-validation',
    rule: 'a paired ratio is called different when its intervals on the two reports are apart (compare/machines.js)',
    busy, // a run the lab marked disturbed: the machine was shared
    identical: rate(pairs),
    replay: rate(replay),
    taskset: taskset && {
      changed: taskset.changed.map((c) => ({ key: c.key, figure: c.figure, whole: c.here, oneCore: c.there }))
    }
  }
  return { summary, taskset }
}

// Judges a kept folder: summary.json and summary.md beside the reports.
async function judgeFolder (dir) {
  const { summary, taskset } = await judged(dir)
  await writeFile(join(dir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n')
  const lines = ['# Paired ratios across reports: validation', '', `Rule: ${summary.rule}.`, '',
    `- identical pairs of tours: ${line(summary.identical)}`,
    `- every split of one ${RUNS * 2}-round tour into two halves (replayed; the splits share rounds, so the ` +
      `interval is too narrow): ${line(summary.replay)}`,
    `- the machine was ${summary.busy ? 'busy (runs marked disturbed)' : 'quiet'}`]
  if (taskset?.across) {
    const t = pairedAcrossTable(taskset.across, { letters: ['whole', 'one core'], baseline: 0 })
    lines.push('', '## Whole machine against taskset -c 0', '', ...t.notes.map((n) => `- ${n}`))
  }
  await writeFile(join(dir, 'summary.md'), lines.join('\n') + '\n')
  process.stdout.write(lines.join('\n') + '\n')
}

const line = (r) => r.compared
  ? `${r.called} of ${r.compared} ratios called different (${(r.share * 100).toFixed(1)} %, 95 % interval ` +
    `${(r.interval[0] * 100).toFixed(1)}–${(r.interval[1] * 100).toFixed(1)} %) over ${r.pairs} pairs`
  : 'none judged'

async function main (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      'judge-only': { type: 'string' },
      identical: { type: 'string', default: '2' },
      taskset: { type: 'string', default: '1' },
      replay: { type: 'string', default: '12' },
      'lab-args': { type: 'string', default: LAB_ARGS }
    }
  })
  if (values['judge-only']) return judgeFolder(resolve(values['judge-only']))
  if (!values.out) throw usageError('validate-rounds: --out DIR (where the tours go) or --judge-only DIR')
  const out = resolve(values.out)
  await mkdir(out, { recursive: true })
  const labArgs = values['lab-args']
  for (let i = 0; i < 2 * Number(values.identical); i++) await tour(out, 'identical', { runs: RUNS, labArgs })
  if (Number(values.taskset) > 0) {
    await tour(out, 'whole machine', { runs: RUNS, labArgs })
    await tour(out, 'taskset -c 0', { runs: RUNS, labArgs, oneCore: true })
  }
  if (Number(values.replay) >= 2 * RUNS) await tour(out, 'replay', { runs: Number(values.replay), labArgs })
  return judgeFolder(out)
}

runMain(import.meta.url, 'validate-rounds', main)
