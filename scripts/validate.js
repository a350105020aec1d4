// `npm run validate`: the kept validations, the second tier beside `npm test`. `npm test` checks the code
// (rules on built input, each path once through real processes); these measure outcomes on this
// machine (the capacity sweep against brute force, compare's, ab's and history's error rates, overload's
// shares) and write their summaries where the docs quote them. Each entry is a command run in turn from the lab's
// folder; a failed one is named and the rest still run (exit 1 if any failed, 2 for a usage error).
//   node scripts/validate.js [--quick] [--only NAME,NAME] [--list]
// --quick: the entries marked quick (minutes; CI runs them once, `npm run validate:quick`).
import { spawn } from 'node:child_process'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { runMain, usageError } from '../loadtest/errors.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const REF = 'reports/reference'
// The brute-force matrix: every CPU strategy on the four works, both modes (39 cells with the ones the
// rules leave out; about an hour of a quiet 2-core machine).
const MATRIX = ['--server', 'simple,cluster,child-process,worker-per-request,queued-threads',
  '--work', 'loop:1e7,loop:3e7,loop:1e6,loop:1e8', '--mode', 'default,quick', '--out', `${REF}/validate-matrix`]
// The compare validation's tours in their order (docs/compare.md), read again as one history.
const PHASES = 'baseline:20,changed:10,taskset:3,hog:1,setting:10'

// Each entry: its name, whether --quick runs it, what it writes, and its command (argv after node).
export const ENTRIES = [
  {
    name: 'overload',
    quick: true,
    writes: 'nothing kept: the shares it measured, in its output',
    argv: ['--test', 'test/validate/overload.validate.js']
  },
  {
    name: 'compare-judge',
    quick: true,
    writes: `${REF}/compare-validation/summary.{md,json}, docs/compare.md's block`,
    argv: ['scripts/validate-compare.js', '--judge-only', `${REF}/compare-validation`]
  },
  {
    name: 'history-synthetic',
    quick: true,
    writes: `${REF}/history/synthetic.{md,json}`,
    argv: ['scripts/validate-history.js', 'synthetic', '--out', `${REF}/history`]
  },
  {
    name: 'history-real',
    quick: true,
    writes: `${REF}/history/summary.{md,json}`,
    argv: ['scripts/validate-history.js', 'real', '--from', `${REF}/compare-validation`, '--phases', PHASES,
      '--out', '$TMP'],
    keep: ['summary.md', 'summary.json'],
    into: `${REF}/history`
  },
  {
    name: 'compare-runs',
    quick: false,
    writes: `${REF}/compare-validation: 44 tours, their summary and docs/compare.md's block`,
    argv: ['scripts/validate-compare.js', '--out', `${REF}/compare-validation`]
  },
  {
    name: 'ab-record',
    quick: false,
    writes: `${REF}/validate-ab/simple-blocks.json: 40 rounds of ab's blocks`,
    argv: ['scripts/validate-ab.js', 'record', '--server', 'simple', '--rounds', '40']
  },
  {
    name: 'ab-replay',
    quick: false,
    writes: `${REF}/validate-ab/summary.json: ab's false alarms and power, replayed from the rounds`,
    argv: ['scripts/validate-ab.js', 'replay']
  },
  {
    name: 'capacity-matrix',
    quick: false,
    writes: `${REF}/validate-matrix/summary.{md,json} and each cell's files`,
    argv: ['scripts/validate-capacity.js', ...MATRIX]
  }
]

// Run one entry; resolves { name, code, sec }.
async function runEntry (entry) {
  const tmp = entry.argv.includes('$TMP') ? await mkdtemp(join(tmpdir(), `loadlab-validate-${entry.name}-`)) : null
  const argv = entry.argv.map((a) => (a === '$TMP' ? tmp : a))
  const start = performance.now()
  process.stderr.write(`== validate ${entry.name}: node ${argv.join(' ')}\n`)
  try {
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: 'inherit' })
      child.on('error', () => resolve(1))
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)))
    })
    if (code === 0 && entry.keep) {
      for (const f of entry.keep) await copyFile(join(tmp, f), join(ROOT, entry.into, f))
    }
    return { name: entry.name, code, sec: Math.round((performance.now() - start) / 100) / 10 }
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true })
  }
}

async function main (args) {
  let values
  try {
    ({ values } = parseArgs({
      args,
      options: { quick: { type: 'boolean' }, only: { type: 'string' }, list: { type: 'boolean' } }
    }))
  } catch (err) {
    throw usageError(`${err.message.split('\n')[0]} (usage: node scripts/validate.js [--quick] [--only A,B] [--list])`)
  }
  let chosen = ENTRIES.filter((e) => !values.quick || e.quick)
  if (values.only !== undefined) {
    const names = values.only.split(',')
    const unknown = names.filter((n) => !ENTRIES.some((e) => e.name === n))
    if (unknown.length) throw usageError(`--only: no entry ${unknown.join(', ')} (${ENTRIES.map((e) => e.name).join(', ')})`)
    chosen = chosen.filter((e) => names.includes(e.name))
  }
  if (values.list) {
    for (const e of chosen) console.log(`${e.name}${e.quick ? ' (quick)' : ''}: writes ${e.writes}`)
    return 0
  }
  const done = []
  for (const e of chosen) done.push(await runEntry(e))
  for (const d of done) process.stderr.write(`validate ${d.name}: ${d.code === 0 ? 'ok' : `failed (exit ${d.code})`}, ${d.sec} s\n`)
  return done.every((d) => d.code === 0) ? 0 : 1
}

runMain(import.meta.url, 'validate', main)
