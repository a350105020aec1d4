// A series of real tours with known changes in it, for the validations that judge compare's verdicts
// (scripts/validate-compare.js) and history's change points (scripts/validate-history.js) against the truth.
//
//   node scripts/tour-series.js --out reports/reference/series [--baseline 20] [--heavier 7] [--taskset 3]
//     [--setting 4] [--hog 1] [--quick] [--server a,b]
//
// In this order, one tour after another (`npm run lab -- --experiment tour`), each labelled with its phase:
//   baseline  the tree as it is;
//   heavier   a copy of the tree whose `loop` work does 1.3 × the iterations under the same name: a code change;
//   taskset   the heavier copy again, under `taskset -c 0`: a change of machine (one core) and no change of code;
//   setting   the tree as it is, with its servers' default worker count set to 1: a server setting changed;
//   hog       the tree as it is, beside a CPU hog (`node -e 'for(;;);'`, ended by its pid after the tour).
// The copies are made in a temporary folder and removed at the end. series.json in --out lists every tour: its
// file, phase, index and what changed, so that a judge knows which figures should move.
import { spawn } from 'node:child_process'
import {
  cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync
} from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

// The known changes: how a copy of the tree differs from it (a file, the text replaced, its replacement).
export const CHANGES = {
  heavier: {
    what: 'loop:N does 1.3 × N iterations under the same name',
    file: 'servers/lib/workloads.js',
    from: 'for (let i = 0; i < n; i++) sum += i',
    to: 'for (let i = 0; i < n * 1.3; i++) sum += i'
  },
  setting: {
    what: 'the servers\' default worker count is 1 (cluster, the pools)',
    file: 'servers/lib/options.js',
    from: 'export const cores = availableParallelism()',
    to: 'export const cores = 1'
  }
}

// The phases in the order they run, from the counts asked for.
export function phasesOf (counts) {
  return [
    { phase: 'baseline', count: counts.baseline, change: null, taskset: false, hog: false },
    { phase: 'heavier', count: counts.heavier, change: 'heavier', taskset: false, hog: false },
    { phase: 'taskset', count: counts.taskset, change: 'heavier', taskset: true, hog: false },
    { phase: 'setting', count: counts.setting, change: 'setting', taskset: false, hog: false },
    { phase: 'hog', count: counts.hog, change: null, taskset: false, hog: true }
  ].filter((p) => p.count > 0)
}

// A copy of the tree with one known change: node_modules linked, reports and .git left out. Throws when the
// text to replace is not found (the change would silently be none).
export function changedTree (name, root = ROOT) {
  const change = CHANGES[name]
  const dir = mkdtempSync(join(tmpdir(), `loadlab-${name}-`))
  const skip = new Set(['node_modules', '.git', 'reports', '.runtimes'])
  for (const entry of readdirSync(root)) {
    if (!skip.has(entry)) cpSync(join(root, entry), join(dir, entry), { recursive: true })
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  const file = join(dir, change.file)
  const text = readFileSync(file, 'utf8')
  if (!text.includes(change.from)) throw new Error(`tour-series: ${change.file} no longer has "${change.from}"`)
  writeFileSync(file, text.replace(change.from, change.to))
  return dir
}

// One tour: the lab from `tree`, under taskset if asked, beside a hog if asked; resolves to the report's file.
async function tour ({ tree, out, label, taskset, hog, quick, server }) {
  const args = [join(tree, 'loadtest/cli.js'), '--experiment', 'tour', '--out', out, '--label', label]
  if (quick) args.push('--quick')
  if (server) args.push('--server', server)
  const [cmd, argv] = taskset ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args]
  const before = new Set(readdirSync(out))
  const hogChild = hog ? spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' }) : null
  try {
    const child = spawn(cmd, argv, { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] })
    const [code] = await once(child, 'exit')
    if (code !== 0) throw new Error(`tour-series: the tour "${label}" exited ${code}`)
  } finally {
    if (hogChild) {
      hogChild.kill('SIGKILL')
      await once(hogChild, 'exit')
    }
  }
  const made = readdirSync(out).filter((f) => f.endsWith('.json') && !before.has(f))
  if (made.length !== 1) throw new Error(`tour-series: the tour "${label}" wrote ${made.length} reports`)
  return made[0]
}

async function main (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      baseline: { type: 'string', default: '20' },
      heavier: { type: 'string', default: '7' },
      taskset: { type: 'string', default: '3' },
      setting: { type: 'string', default: '4' },
      hog: { type: 'string', default: '1' },
      quick: { type: 'boolean', default: false },
      server: { type: 'string' }
    }
  })
  if (!values.out) throw new Error('tour-series: --out DIR is required')
  const out = resolve(values.out)
  mkdirSync(out, { recursive: true })
  const counts = Object.fromEntries(['baseline', 'heavier', 'taskset', 'setting', 'hog'].map((k) => {
    const n = Number(values[k])
    if (!Number.isInteger(n) || n < 0 || n > 100) throw new Error(`tour-series: --${k}: expected 0 to 100`)
    return [k, n]
  }))
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  const trees = {}
  const series = []
  try {
    for (const p of phasesOf(counts)) {
      const tree = p.change ? (trees[p.change] ??= changedTree(p.change)) : ROOT
      for (let i = 1; i <= p.count; i++) {
        const label = `${p.phase}-${i}`
        console.error(`tour-series: ${label} (${series.length + 1} of ${total})`)
        const { quick, server } = values
        const file = await tour({ tree, out, label, taskset: p.taskset, hog: p.hog, quick, server })
        const change = p.change && CHANGES[p.change].what
        series.push({ file, phase: p.phase, index: i, change, taskset: p.taskset, hog: p.hog })
        const manifest = { quick, server: server ?? null, series }
        writeFileSync(join(out, 'series.json'), JSON.stringify(manifest, null, 2) + '\n')
      }
    }
  } finally {
    for (const dir of Object.values(trees)) rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err.message)
    process.exitCode = 1
  })
}
