// The capacity experiment's cost, replayed: each strategy's sweep (result/sweep.js with the experiment's
// defaults) run again against the steps of measured capacity reports instead of a server. A step at a
// rate takes the latencies of the measured step nearest that rate (the measured repeats there in turn),
// as many requests as its planned length gives, so its verdicts per target are the measured ones; its
// time is its planned length and a per-step overhead. Then the past-capacity probes the report's close
// candidates get (each as long as the probe's settings make it, its burst watched as long as the measured
// recovery needs) and --confirm. An estimate for the rule, not a measurement.
//   node scripts/capacity-cost.js [--budget S|none] [--overhead S] REPORT.json [REPORT.json …]
import { readReport } from '../loadtest/compare/cli.js'
import { runMain, usageError } from '../loadtest/errors.js'
import capacity from '../loadtest/experiments/capacity.js'
import { createSweep } from '../loadtest/result/sweep.js'
import { errorsOf } from '../loadtest/result/requests.js'
import { CONFIRM } from '../loadtest/result/rules.js'
import { capacityAtTargets } from '../loadtest/result/capacity.js'
import { boundText } from '../loadtest/text/reasons.js'
import { createHistogram, decodeHistogram, encodeHistogram, recordMs } from '../loadtest/result/histogram.js'
import { closeCandidates } from '../loadtest/result/decision.js'
import { stepTiming } from '../loadtest/result/overload.js'
import { PROBE, configurations } from '../loadtest/run/round/past-capacity.js'

// Seconds outside the steps' own length: each step's drain, recovery request and judging (overheadSec:
// 1.7 s measured, the rule book's BUDGET.stepOverheadSec; the sweep's budget counts 2), and once a run: boot,
// calibration and warmup of the servers (fixedSec); a server start and warm-up for each probe and for
// --confirm (bootSec). Replayed with the settings they were made with (settingsOf), the quiet runs of
// 2026-11-26 estimate above what they measured (test/scripts/capacity-cost.test.js).
export const COST_DEFAULTS = Object.freeze({ overheadSec: 1.7, fixedSec: 50, bootSec: 3, confirmSec: CONFIRM.sec })

// The default run's bound: what capacity-cost's estimate of it, replayed against the reference runs,
// must stay within (test/scripts/capacity-cost.test.js).
export const DEFAULT_RUN_BOUND_SEC = 15 * 60

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
    budgetWorkMs: settings.budgetWorkMs,
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

// One probe's time (s) at target sloMs with the probe `settings` (past-capacity.js PROBE): a server start,
// each step's length and overhead, then the burst: before it, the burst, and the watch (the measured
// recovery, `recoverySec`, and the windows that confirm it and the last one's end; afterSec when it
// collapsed or was not measured), with its overhead.
export function probeSec (settings, sloMs, recoverySec = null, cost = COST_DEFAULTS) {
  const { durationSec } = stepTiming(sloMs, settings)
  const steps = settings.multiples.length * (durationSec + cost.overheadSec)
  const b = settings.burst
  const seen = recoverySec !== null && recoverySec <= b.afterSec
  const watch = seen ? Math.min(b.afterSec, recoverySec + settings.confirmWindows + 1) : b.afterSec
  return cost.bootSec + steps + b.beforeSec + b.burstSec + watch + cost.overheadSec
}

// The probes a report's run makes (its close candidates, each as swept and with its shedding setting),
// each with its time: [{ name, sec }].
function probesOf (report, settings, cost) {
  return closeCandidates(report).flatMap((r) => {
    const sloMs = r.capacity.capacity.sloMs ?? r.capacity.sloMs
    return configurations(r, { sloMs, serviceMs: r.capacity.serviceMs }).map((config) => {
      const measured = (r.pastCapacity ?? []).find((p) => (p.variant ?? null) === config.variant)?.overload?.recovery
      const recoverySec = measured && !measured.metastable && measured.ms !== null ? measured.ms / 1000 : null
      return { name: `${r.server} (${config.variant ?? config.label})`, sec: probeSec(settings, sloMs, recoverySec, cost) }
    })
  })
}

// The estimate of a capacity run like `report` under the sweep settings `sweep` (the experiment's
// defaults), the probe settings `probe` and the costs `cost`: each sweep replayed, the probes and
// --confirm. { sweeps: [{ result, ...replay, sec }], probes, sweepSec, probeSec, totalSec }.
export function estimateRun (report, { sweep = capacity.defaults, probe = PROBE, cost = COST_DEFAULTS } = {}) {
  const sweeps = report.results.filter((x) => x.capacity?.steps?.length).map((r) => {
    const out = replay(r.capacity.steps, r.capacity, sweep)
    return { result: r, ...out, sec: out.loadSec + out.steps * cost.overheadSec }
  })
  const probes = probesOf(report, probe, cost)
  const sweepSec = sweeps.reduce((a, x) => a + x.sec, 0)
  const probeTotal = probes.reduce((a, x) => a + x.sec, 0)
  const confirmSec = cost.confirmSec + cost.bootSec + cost.overheadSec
  const totalSec = sweepSec + cost.fixedSec + probeTotal + confirmSec
  return { sweeps, probes, sweepSec, probeSec: probeTotal, confirmSec, totalSec }
}

// The settings a report was made with, as estimateRun takes them: its sweeps' budget, its probes' step
// and burst lengths (their overload blocks) and its --confirm length; what it does not show, the current.
export function settingsOf (report) {
  const sweep = report.results.find((r) => r.capacity?.budget)?.capacity.budget
  const o = report.results.flatMap((r) => r.pastCapacity ?? []).find((p) => p.overload?.recovery?.phases)?.overload
  const confirmSec = report.decision?.confirm?.durationSec ?? CONFIRM.sec
  const windows = Number(/stops once (\d+) windows/.exec(o?.rule ?? '')?.[1] ?? PROBE.confirmWindows)
  const [before, during, after] = o?.recovery.phases.map((p) => p.durationMs / 1000) ?? []
  const burst = { ...PROBE.burst, beforeSec: before, burstSec: during, afterSec: after }
  const probe = o ? { ...PROBE, minStepSec: o.stepSec, confirmWindows: windows, burst } : PROBE
  return {
    sweep: { ...capacity.defaults, budgetSec: sweep?.baseSec ?? sweep?.sec ?? capacity.defaults.budgetSec },
    probe,
    cost: { ...COST_DEFAULTS, confirmSec }
  }
}

// How long a report's run took (s): from its creation to its end.
export function measuredSec (report) {
  return (Date.parse(report.finishedAt) - Date.parse(report.createdAt)) / 1000
}

// A number option's value, or a usage error naming it.
function seconds (flag, text) {
  const n = Number(text)
  if (text === undefined || !(n >= 0)) throw usageError(`${flag}: expected seconds (a number ≥ 0), got ${text ?? 'nothing'}`)
  return n
}

// The estimate's last line: its parts and its sum.
function sumLine (run, cost) {
  const steps = run.sweeps.reduce((a, x) => a + x.steps, 0)
  return `${steps} steps; sweeps ${run.sweepSec.toFixed(0)} s (${cost.overheadSec} s a step) + ${cost.fixedSec} s + ` +
    `${run.probes.length} probes ${run.probeSec.toFixed(0)} s + --confirm ${run.confirmSec.toFixed(0)} s = ` +
    `${run.totalSec.toFixed(0)} s (${(run.totalSec / 60).toFixed(1)} min)`
}

async function main (argv) {
  const cost = { ...COST_DEFAULTS }
  let budgetSec = capacity.defaults.budgetSec
  const files = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--budget') budgetSec = argv[++i] === 'none' ? null : seconds('--budget', argv[i])
    else if (argv[i] === '--overhead') cost.overheadSec = seconds('--overhead', argv[++i])
    else files.push(argv[i])
  }
  if (!files.length) throw usageError('give one or more capacity reports (JSON)')
  const sweep = { ...capacity.defaults, budgetSec }
  for (const file of files) {
    const report = await readReport(file) // one line, exit 2, for a file that is missing or no report
    if (!report.results.some((x) => x.capacity?.steps?.length)) throw usageError(`${file}: no capacity sweep in it`)
    const run = estimateRun(report, { sweep, cost })
    console.log(`${file} (budget ${budgetSec ?? 'none'} s a sweep)`)
    for (const x of run.sweeps) {
      const c = x.result.capacity
      const length = (s) => Math.max(c.minDurationSec, Math.min(c.maxStepSec, c.minRequests / s.rate))
      const measured = c.steps.reduce((a, s) => a + length(s), 0)
      console.log(`  ${x.result.server.padEnd(20)} ${String(x.steps).padStart(3)} steps  load ${x.loadSec.toFixed(0).padStart(4)} s  ` +
        `(measured: ${c.steps.length} steps, ${measured.toFixed(0)} s)  cut: ${x.budget?.cut ?? '-'}`)
      const cell = (t) => `${t.rps?.toFixed(1) ?? '-'}–${t.bracket.fail?.toFixed(1) ?? '-'} ${boundText(t)}`
      console.log(`      replayed: ${x.targets.map(cell).join(' | ')}`)
      console.log(`      measured: ${c.targets.map(cell).join(' | ')}`)
    }
    console.log(`  past capacity: ${run.probes.map((p) => `${p.name} ${p.sec.toFixed(0)} s`).join(', ') || 'no probe'}`)
    console.log(`  ${sumLine(run, cost)}`)
    const made = settingsOf(report)
    const then = estimateRun(report, { ...made, cost: { ...made.cost, overheadSec: cost.overheadSec } })
    console.log(`  with the settings it was made with: ${then.totalSec.toFixed(0)} s; measured ${measuredSec(report).toFixed(0)} s`)
  }
  return 0
}

runMain(import.meta.url, 'capacity-cost', main)
