// How often a failure flipped on its repeat, by how far over the target it was: the evidence behind the rule
// book's REPEAT.clearShare (a failure that far over counts at once). Every capacity sweep in the files given (a
// capacity report's results, or a sweep kept by validate-capacity.js), each step judged again against each of its
// sweep's targets (result/capacity.js judgeStep, its verdicts); the first step at a rate that failed, undisturbed
// and not in doubt, and was measured again there, counted by its share of requests over the target, and whether
// the rate's verdict ended a pass (flipped). Folders are read for their .json files, recursively.
//   node scripts/repeat-flips.js [--json] FILE|DIR [FILE|DIR …]
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { runMain, usageError } from '../loadtest/errors.js'
import { judgeStep, verdicts } from '../loadtest/result/capacity.js'
import { REPEAT, SAMPLE } from '../loadtest/result/rules.js'
import { stepRound } from './validate-capacity.js'

// The shares over the target the table is cut at.
const BUCKETS = [0, 0.05, 0.1, 0.25, 0.5, 1.01]

const HELP = `Usage: node scripts/repeat-flips.js [--json] FILE|DIR [FILE|DIR …]

For every capacity sweep in the reports (folders read for their .json files), the first failure at each rate
that was measured again, by its share of requests over the target, and how often that rate ended a pass.
  --json  the counts as JSON`

// The sweeps of one parsed file: a capacity report's results' sweeps, or a validate-capacity sweep's own.
function sweepsOf (data) {
  if (Array.isArray(data?.results)) return data.results.map((r) => r?.capacity).filter((c) => c?.steps)
  return data?.capacity?.steps ? [data.capacity] : []
}

// One sweep's failures that were repeated: [{ share, flipped }] per target (steps without a histogram: none).
export function repeatedFailures (sweep) {
  if (!sweep.steps.every((s) => s.requests && typeof s.histograms?.latency === 'string')) return []
  const judging = { share: sweep.share ?? SAMPLE.share, confidence: sweep.confidence ?? SAMPLE.confidence }
  const out = []
  for (const sloMs of sweep.targetsMs ?? [sweep.sloMs]) {
    const judged = sweep.steps.map((s) => ({ ...s, ...judgeStep(stepRound(s), sloMs, judging) }))
    const byRate = verdicts(judged, judging)
    const seen = new Set()
    for (const s of judged) {
      if (seen.has(s.rate)) continue
      seen.add(s.rate)
      const again = judged.filter((x) => x.rate === s.rate).length > 1
      if (s.call !== 'fail' || s.disturbed || s.inDoubt || s.kind === 'hold' || !again || !(s.n > 0)) continue
      out.push({ share: s.over / s.n, flipped: byRate.get(s.rate) === 'pass' })
    }
  }
  return out
}

// Every .json file a path names (a folder: recursively), sorted.
function jsonFiles (path) {
  let st
  try {
    st = statSync(path)
  } catch (err) {
    throw usageError(`${path}: cannot read it (${err.code ?? err.message})`)
  }
  if (!st.isDirectory()) return [path]
  return readdirSync(path).sort().flatMap((name) => {
    const p = join(path, name)
    return statSync(p).isDirectory() ? jsonFiles(p) : name.endsWith('.json') ? [p] : []
  })
}

// The counts: per bucket of share over the target { from, to, repeated, flipped }, and at or over clearShare.
export function flipCounts (failures) {
  const count = (list) => ({ repeated: list.length, flipped: list.filter((f) => f.flipped).length })
  const buckets = BUCKETS.slice(0, -1).map((from, i) => ({
    from,
    to: BUCKETS[i + 1],
    ...count(failures.filter((f) => f.share >= from && f.share < BUCKETS[i + 1]))
  }))
  const clear = failures.filter((f) => f.share >= REPEAT.clearShare)
  return { buckets, clear: { share: REPEAT.clearShare, ...count(clear) } }
}

async function main (argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP)
    return 0
  }
  const json = argv.includes('--json')
  const bad = argv.find((a) => a.startsWith('-') && a !== '--json')
  if (bad) throw usageError(`${bad}: not an option (--json, --help)`)
  const paths = argv.filter((a) => !a.startsWith('-'))
  if (!paths.length) throw usageError('name at least one report or folder (--help)')
  const failures = []
  let sweeps = 0
  for (const file of paths.flatMap(jsonFiles)) {
    let data
    try {
      data = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      if (paths.includes(file)) throw usageError(`${file}: not a JSON report (${err.message.split('\n')[0]})`)
      continue // a folder's other JSON
    }
    for (const sweep of sweepsOf(data)) {
      sweeps++
      failures.push(...repeatedFailures(sweep))
    }
  }
  const counts = { sweeps, ...flipCounts(failures) }
  if (json) console.log(JSON.stringify(counts, null, 2))
  else {
    const pct = (x) => `${Math.round(x * 100)} %`
    console.log(`${sweeps} sweeps; failures measured again, by their share of requests over the target:`)
    for (const b of counts.buckets) {
      console.log(`  ${pct(b.from)} to ${b.to > 1 ? 'all' : pct(b.to)}: ${b.flipped} of ${b.repeated} flipped`)
    }
    const c = counts.clear
    console.log(`  ${pct(c.share)} or more (REPEAT.clearShare): ${c.flipped} of ${c.repeated} flipped`)
  }
  return 0
}

runMain(import.meta.url, 'repeat-flips', main)
