// The overload experiment's rounds for one server, after its capacity is known: open-loop steps at
// multiples of the capacity C, then the burst, each round watched for goodput at the target
// (goodput.js). C comes from the sweep just run on this server (its result, built as the report will
// build it), from its base strategy's result in this run (a shedding variant runs at the same C), or
// from an earlier capacity report (--capacity-from). The figures are made in result/overload.js.
import { availableParallelism } from 'node:os'
import { buildHttpResult } from '../../result/build.js'
import { OVERLOAD_DEFAULTS, burstPhases, patienceMs, stepTiming, windowRecovered } from '../../result/overload.js'
import { DEFAULT_MAX_CONNECTIONS, WINDOW_MS, defaultConnections } from '../../settings.js'
import { serviceTime } from '../../result/figures.js'
import { CALIBRATION_DRIFT } from '../../result/trust.js'

// The result of a shedding variant's base strategy in this run (same work and runtime), or undefined: the
// C, target and service time its run resolved, which the variant takes as they are.
export function baseResult (results, { server, work, runtime = null }) {
  return results.find((r) => r.kind === 'http' && r.server === server && !r.variant && r.work === work &&
    (r.runtime?.label ?? null) === (runtime?.label ?? null))
}

// C and the target for this server: { rps, sloMs, from } or { refused } (why no step can run).
function capacityFor (record, { entry, calibration, results }) {
  const o = entry.overload
  if (o.capacity) return withDrift(o.capacity, record, calibration[entry.work]) // --capacity-from, checked when planned
  if (o.base) {
    const base = baseResult(results, { server: o.base, work: entry.work, runtime: entry.runtime })
    const rps = base?.overload?.capacityRps ?? null
    if (!rps) return { refused: `no capacity of ${o.base} in this run to run its variant at` }
    return { rps, sloMs: base.overload.sloMs, from: `${o.base} in this run` }
  }
  const built = buildHttpResult(record, { calibration, cores: availableParallelism() })
  const cap = built.capacity?.capacity
  if (!cap?.rps) return { refused: `no capacity at the target (${cap?.bound ?? 'no sweep'})`, sloMs: built.capacity?.sloMs ?? null }
  return { rps: cap.rps, sloMs: cap.sloMs, from: 'the sweep in this run' }
}

// How far this machine's service time has moved from the one the capacity report's sweep stood on: past
// CALIBRATION_DRIFT the report's C may not hold here (another machine, or a busier one), said in a note.
function withDrift (cap, record, calibration) {
  const now = serviceTime(calibration)
  if (cap.serviceMs > 0 && now > 0) {
    const drift = now / cap.serviceMs - 1
    if (Math.abs(drift) > CALIBRATION_DRIFT) {
      record.notes.push(`overload: the work's service time is ${now.toFixed(1)} ms here, ${Math.round(drift * 100)} % from the ` +
        `${cap.serviceMs.toFixed(1)} ms of the capacity report: its C may not hold on this machine now`)
    }
  }
  return cap
}

// Stop the burst's schedule once its recovery is confirmed: `confirm` windows in a row recovered after
// the burst's end, each complete (every request due in it has ended: answered or out of patience).
function recoveryWatch ({ sloMs, burstEndMs, patience, settings }) {
  let checked = Math.ceil(burstEndMs / WINDOW_MS) - 1
  let run = 0
  return (goodput, due) => {
    const complete = Math.floor((due - patience - 250) / WINDOW_MS) - 1 // the last window surely ended
    for (; checked < complete; checked++) {
      run = windowRecovered(goodput.window(checked + 1), sloMs, settings.recoveryShare) ? run + 1 : 0
    }
    return run >= settings.confirmWindows
  }
}

// Run the steps and the burst for `record`'s server; `measure(load)` runs one measured round.
export async function overloadRounds (record, { entry, load, calibration, results, measure, signal, progress }) {
  const settings = { ...OVERLOAD_DEFAULTS, ...entry.overload.settings }
  const cap = capacityFor(record, { entry, calibration, results })
  const sloMs = cap.sloMs ?? null
  const o = (record.overload = {
    capacityRps: cap.rps ?? null,
    capacityFrom: cap.from ?? null,
    sloMs,
    settings,
    steps: [],
    burst: null,
    refused: cap.refused ?? null,
    patienceMs: null,
    stepSec: null,
    settleMs: null
  })
  if (cap.refused) {
    record.notes.push(`overload: ${cap.refused}: no step past it`)
    return
  }
  const patience = patienceMs(sloMs, settings)
  const { durationSec, settleMs } = stepTiming(sloMs, settings)
  Object.assign(o, { patienceMs: patience, stepSec: durationSec, settleMs })
  const roundLoad = (rate) => {
    const connections = defaultConnections(rate, patience / 1000)
    if (rate * (patience / 1000) > DEFAULT_MAX_CONNECTIONS) {
      const note = `overload: ${Math.round(rate)} req/s × ${patience} ms patience > ${DEFAULT_MAX_CONNECTIONS} connections: the generator queued requests`
      if (!record.notes.includes(note)) record.notes.push(note)
    }
    return { ...load, rate, connections, timeoutSec: patience / 1000, amount: null, goodput: { sloMs } }
  }
  for (const multiple of settings.multiples) {
    if (signal.aborted) return
    const rate = multiple * cap.rps
    progress?.(`overload ${multiple} × C: ${rate.toFixed(1)} req/s for ${durationSec} s`)
    const round = await measure({ ...roundLoad(rate), durationSec })
    o.steps.push({ multiple, rate, round })
  }
  if (signal.aborted) return
  const { phases, burstEndMs } = burstPhases(cap.rps, settings)
  const total = phases.reduce((a, p) => a + p.durationMs, 0) / 1000
  progress?.(`burst: ${phases.map((p) => `${p.rate.toFixed(1)} req/s ${p.durationMs / 1000} s`).join(', then ')}`)
  const until = recoveryWatch({ sloMs, burstEndMs, patience, settings })
  const peak = Math.max(...phases.map((p) => p.rate))
  const round = await measure({ ...roundLoad(peak), phases, durationSec: total, goodput: { sloMs, until } })
  o.burst = { phases, burstEndMs, round }
}
