// Would the hold rule (loadtest/result/capacity.js holdSecFor, heldAt) add a step to sweeps measured
// without it? For each capacity in the files (lab reports, or validate-capacity's <cell>-sweep.json), the
// steps at its rate that did not fail, each step's length (its planned `sec`, else sent / rate to 0.1 s),
// the hold length the rule asks, and whether one of them lasted it: "held" (no hold step: the sweep's
// steps, and so its bracket, are what the rule gives), else "would hold" (the rule would measure it again).
//   node scripts/hold-check.js FILE.json [FILE.json …]
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { runMain, usageError } from '../loadtest/errors.js'
import { callOf, heldAt, holdSecFor } from '../loadtest/result/capacity.js'
import { boundText } from '../loadtest/text/reasons.js'

// The capacity sweeps of one file: [{ name, sweep }] (a report's results, or one result).
function sweepsOf (json) {
  const results = Array.isArray(json?.results) ? json.results : json?.capacity ? [json] : []
  return results.filter((r) => r.capacity?.steps).map((r) => ({
    name: `${r.server}${r.variant ? `/${r.variant}` : ''}`,
    sweep: r.capacity
  }))
}

// One capacity's line: its rate, the lengths of its steps that did not fail, the hold length, the verdict.
export function holdLine (sweep) {
  const cap = sweep.capacity
  if (!(cap?.rps > 0)) return `no capacity (${cap ? boundText(cap) : 'none'})`
  const holdSec = holdSecFor(cap.floor?.p50, cap.sloMs, sweep.longestStepSec ?? Infinity)
  const steps = sweep.steps.map((s) => ({
    ...s,
    sec: typeof s.sec === 'number' ? s.sec : Math.ceil(((s.requests?.sent ?? s.n) / s.rate) * 10) / 10
  }))
  const lengths = steps.filter((s) => s.rate === cap.rps && callOf(s) !== 'fail').map((s) => s.sec)
  const held = heldAt(steps, cap.rps, holdSec)
  return `capacity ${cap.rps.toFixed(1)} req/s, steps there ${lengths.join(', ')} s, hold ${holdSec} s: ` +
    (held ? 'held' : 'would hold')
}

async function main (argv) {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log('Usage: node scripts/hold-check.js FILE.json [FILE.json …] (lab reports or validate-capacity sweep files)')
    return 0
  }
  if (!argv.length) throw usageError('give one or more lab reports or validate-capacity sweep files (--help)')
  for (const file of argv) {
    let json
    try {
      json = JSON.parse(await readFile(file, 'utf8'))
    } catch (err) {
      throw usageError(`${file}: ${err.code === 'ENOENT' ? 'no such file' : 'not JSON'}`)
    }
    const sweeps = sweepsOf(json)
    if (!sweeps.length) throw usageError(`${file}: no capacity sweep in it`)
    for (const { name, sweep } of sweeps) console.log(`${basename(file)}  ${name.padEnd(26)} ${holdLine(sweep)}`)
  }
  return 0
}

runMain(import.meta.url, 'hold-check', main)
