// Whether a report's ruler may explain anything (the rule book's RULER_TRUST): a ruler that moved during its
// run, or that the report's own machine block, scaling or runs contradict, is set aside. Pure:
// the reason as a code with its figures; text/ruler.js says it.
import { isNum } from './stats.js'
import { RULER_TRUST } from './rules.js'
import { combinedSpread, rulerOf } from './ruler.js'
import { strategyModel } from './machine.js'
import { STRATEGIES } from './strategies.js'

// Why the ruler of `report` explains nothing, or null when it may: { code, …figures }, codes in check order:
// 'moved' (end against start, recomputed from the readings: { figures: [{ figure, ratio }] }),
// 'offered' (its cores offered are not the machine block's: { offered, machine }),
// 'scaling' (its effective cores far from its own scaling's speedup at the most threads: { effective, speedup }),
// 'runs' (a strategy over processes or threads ran faster over one event loop than the cores it says:
// { effective, shown, key, over }).
export function rulerSetAside (report) {
  const ruler = report?.ruler
  if (!ruler?.start || typeof ruler.start !== 'object') return null
  const readings = [ruler.start, ...(ruler.end && typeof ruler.end === 'object' ? [ruler.end] : [])]
  return movedWhy(ruler) ?? offeredWhy(readings, report.machine) ?? scalingWhy(readings) ??
    runsWhy(readings, report.results)
}

// The readings' own drift, end over start: the file's `moved` and `drift` are not read.
function movedWhy (ruler) {
  if (!ruler.end || typeof ruler.end !== 'object') return null
  const { drift } = rulerOf(ruler.start, ruler.end)
  const moved = drift.filter((d) => d.beyond).map(({ figure, ratio }) => ({ figure, ratio }))
  return moved.length ? { code: 'moved', figures: moved } : null
}

// The cores a reading offered are those the process could use: the machine block's availableParallelism.
function offeredWhy (readings, machine) {
  const own = machine?.availableParallelism
  if (!Number.isInteger(own)) return null
  const r = readings.find((x) => isNum(x.cores?.offered) && x.cores.offered !== own)
  return r ? { code: 'offered', offered: r.cores.offered, machine: own } : null
}

// `effective` is the speedup at the most threads (run/ruler/measure.js): the same figure twice.
function scalingWhy (readings) {
  for (const r of readings) {
    const eff = r.cores?.effective
    const last = Array.isArray(r.cores?.scaling) ? r.cores.scaling.at(-1)?.speedup : null
    if (!(eff?.value > 0) || !(last?.value > 0)) continue
    const bound = 1 + combinedSpread(eff, last, 'cores.effective') / 100
    const ratio = last.value / eff.value
    if (ratio > bound || ratio < 1 / bound) return { code: 'scaling', effective: eff.value, speedup: last.value }
  }
  return null
}

// The speedup the report's own runs show: per work, the best req/s of a strategy over processes or threads
// over the best of one event loop, both trusted and undisturbed; past RULER_TRUST.coresShown × the least
// effective cores read, the reading is not this machine's.
function runsWhy (readings, results) {
  const effective = Math.min(...readings.map((r) => r.cores?.effective?.value).filter((v) => v > 0))
  if (!Number.isFinite(effective) || !Array.isArray(results)) return null
  const best = new Map() // work → { one, cores: { rps, key } }
  for (const r of results) {
    const model = STRATEGIES[r?.server] ? strategyModel(r.server) : null
    if (!model || r.status === 'failed' || r.trusted === false || r.disturbed === true || !(r.rps > 0)) continue
    const w = best.get(r.work) ?? { one: 0, cores: { rps: 0, key: null } }
    if (model.parallel === 'one') w.one = Math.max(w.one, r.rps)
    else if (r.rps > w.cores.rps) w.cores = { rps: r.rps, key: r.key }
    best.set(r.work, w)
  }
  let worst = null
  for (const w of best.values()) {
    const shown = w.one > 0 ? w.cores.rps / w.one : 0
    if (shown > effective * RULER_TRUST.coresShown && shown > (worst?.shown ?? 0)) {
      worst = { code: 'runs', effective, shown: Number(shown.toFixed(3)), key: w.cores.key, over: w.one }
    }
  }
  return worst
}
