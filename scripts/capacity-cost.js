// The capacity experiment's cost, replayed: each strategy's sweep (result/sweep.js with the experiment's
// defaults) run again against the steps of measured capacity reports instead of a server. A step at a
// rate takes the latencies of the measured step nearest that rate (the measured repeats there in turn),
// as many requests as its planned length gives, so its verdicts per target are the measured ones; its
// time is its planned length and a per-step overhead. An estimate for the rule, not a measurement.
//   node scripts/capacity-cost.js [--budget S|none] [--overhead S] REPORT.json [REPORT.json …]
import { readReport } from '../loadtest/compare/cli.js'
import { runMain, usageError } from '../loadtest/errors.js'
import capacity from '../loadtest/experiments/capacity.js'
import { createSweep } from '../loadtest/result/sweep.js'
import { errorsOf } from '../loadtest/result/requests.js'
import { STEP_OVERHEAD_SEC } from '../loadtest/settings.js'
import { capacityAtTargets } from '../loadtest/result/capacity.js'
import { createHistogram, decodeHistogram, encodeHistogram, recordMs } from '../loadtest/result/histogram.js'

// Seconds outside the steps' own length: each step's drain, probe and judging (settings.js
// STEP_OVERHEAD_SEC, the sweep's own), and once a run: boot, calibration and warmup of six servers, and
// --confirm's 60 s.
const defaults = { overheadSec: STEP_OVERHEAD_SEC, fixedSec: 50, confirmSec: 60 }

// A replayed step's figures at `rate` for `sec` seconds from the measured step `ref`: its latencies
// resampled (evenly over its quantiles) to the requests the planned length holds.
function replayFigures (ref, rate, sec) {
  const n = Math.max(1, Math.round(rate * sec))
  const from = decodeHistogram(ref.histograms.latency)
  const h = createHistogram()
  for (let i = 0; i < n; i++) recordMs(h, from.getValueAtPercentile(((i + 0.5) / n) * 100) / 1000)
  const failed = errorsOf(ref.requests)
  const requests = {
    sent: n,
    completed: n,
    ok: n,
    non2xx: 0,
    errors: failed > 0 ? 1 : 0,
    protocolErrors: 0,
    timeouts: 0,
    mismatches: 0,
    unanswered: 0
  }
  return {
    requests,
    latency: { p50: h.getValueAtPercentile(50) / 1000, p99: h.getValueAtPercentile(99) / 1000 },
    histograms: { latency: encodeHistogram(h) },
    backlog: ref.backlog,
    open: { lag: { p99: ref.lagP99 ?? 0 } },
    disturbed: false
  }
}

// One strategy's replayed sweep: { steps, loadSec, budget, targets }.
function replay (refSteps, { serviceMs, cores, targetsMs }, settings) {
  const sweep = createSweep({
    serviceMs,
    cores,
    slos: targetsMs,
    refine: settings.refine,
    minRequests: settings.minRequests,
    minDurationSec: settings.durationSec,
    maxStepSec: settings.maxStepSec,
    maxSteps: settings.maxSteps + settings.stepsPerTarget * (targetsMs.length - 1),
    budgetSec: settings.budgetSec,
    fractions: settings.fractions ?? undefined
  })
  const used = new Map() // measured rate → how many times replayed
  const history = []
  let loadSec = 0
  for (let rate = sweep.next(history); rate !== null; rate = sweep.next(history)) {
    const sec = sweep.durationFor(rate)
    const nearest = refSteps.reduce((a, s) => (Math.abs(s.rate / rate - 1) < Math.abs(a.rate / rate - 1) ? s : a))
    const at = refSteps.filter((s) => Math.abs(s.rate / nearest.rate - 1) < 0.01)
    const k = used.get(nearest.rate) ?? 0
    used.set(nearest.rate, k + 1)
    history.push({ rate, figures: replayFigures(at[k % at.length], rate, sec) })
    loadSec += sec
  }
  const steps = history.map((h, i) => ({ index: i, rate: h.rate, kind: sweep.kinds[i], p99: h.figures.latency.p99 }))
  const figs = history.map((h) => h.figures)
  const targets = capacityAtTargets(steps, figs, { targets: targetsMs, idealRps: sweep.describe().idealRps })
  return { steps: history.length, loadSec, kinds: sweep.kinds, budget: sweep.describe().budget, targets }
}

// A number option's value, or a usage error naming it.
function seconds (flag, text) {
  const n = Number(text)
  if (text === undefined || !(n >= 0)) throw usageError(`${flag}: expected seconds (a number ≥ 0), got ${text ?? 'nothing'}`)
  return n
}

async function main (argv) {
  const opts = { ...defaults, budgetSec: capacity.defaults.budgetSec }
  const files = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--budget') opts.budgetSec = argv[++i] === 'none' ? null : seconds('--budget', argv[i])
    else if (argv[i] === '--overhead') opts.overheadSec = seconds('--overhead', argv[++i])
    else files.push(argv[i])
  }
  if (!files.length) throw usageError('give one or more capacity reports (JSON)')
  const settings = { ...capacity.defaults, budgetSec: opts.budgetSec }
  for (const file of files) {
    const report = await readReport(file) // one line, exit 2, for a file that is missing or no report
    if (!report.results.some((x) => x.capacity?.steps?.length)) throw usageError(`${file}: no capacity sweep in it`)
    let total = 0
    let steps = 0
    console.log(`${file} (budget ${opts.budgetSec ?? 'none'} s a sweep)`)
    for (const r of report.results.filter((x) => x.capacity?.steps?.length)) {
      const c = r.capacity
      const out = replay(c.steps, c, settings)
      const cost = out.loadSec + out.steps * opts.overheadSec
      total += cost
      steps += out.steps
      const length = (s) => Math.max(c.minDurationSec, Math.min(c.maxStepSec, c.minRequests / s.rate))
      const measured = c.steps.reduce((a, s) => a + length(s), 0)
      console.log(`  ${r.server.padEnd(20)} ${String(out.steps).padStart(3)} steps  load ${out.loadSec.toFixed(0).padStart(4)} s  ` +
        `(measured: ${c.steps.length} steps, ${measured.toFixed(0)} s)  cut: ${out.budget?.cut ?? '-'}`)
      const cell = (t) => `${t.rps?.toFixed(1) ?? '-'}–${t.bracket.fail?.toFixed(1) ?? '-'} ${t.bound}`
      console.log(`      replayed: ${out.targets.map(cell).join(' | ')}`)
      console.log(`      measured: ${c.targets.map(cell).join(' | ')}`)
    }
    const all = total + opts.fixedSec + opts.confirmSec
    console.log(`  ${steps} steps; sweeps ${total.toFixed(0)} s (${opts.overheadSec} s a step) + ${opts.fixedSec} s + --confirm ${opts.confirmSec} s = ${all.toFixed(0)} s (${(all / 60).toFixed(1)} min)`)
  }
  return 0
}

runMain(import.meta.url, 'capacity-cost', main)
