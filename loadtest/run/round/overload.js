// The overload experiment's rounds for one server, after its capacity is known: open-loop steps at
// multiples of the capacity C, then the burst, each round watched for goodput at the target
// (goodput.js). C is handed on: found by the sweep just run on this server (result/build.js
// sweptCapacity), or resolved before the run by the lab (handOff: a shedding variant runs at its base
// strategy's C in this run) or the plan (--capacity-from, an earlier report). The figures are made in
// result/overload.js.
import {
  OVERLOAD_DEFAULTS, burstPhases, patienceMs, stepGoodputShare, stepTiming, windowRecovered
} from '../../result/overload.js'
import { goodputCollapses } from '../../result/decision.js'
import { DEFAULT_MAX_CONNECTIONS, WINDOW_MS, defaultConnections } from '../../settings.js'
import { TRUST } from '../../result/rules.js'
import { boundText } from '../../text/reasons.js'

// The result of a shedding variant's base strategy in this run (same work and runtime), or undefined.
function baseResult (results, { server, work, runtime = null }) {
  return results.find((r) => r.kind === 'http' && r.server === server && !r.variant && r.work === work &&
    (r.runtime?.label ?? null) === (runtime?.label ?? null))
}

// The entry a shedding variant runs as (others: as they are), resolved by the lab before its run from its
// base strategy's result in this run: the C and target that run resolved on `overload.capacity` (unless
// the plan gave one: --capacity-from), and the flags (`argsFor`, catalog.js) at that target and the
// service time its sweep stood on, else `serviceMs` (the work's, calibrated here). No target in the base's
// result: no flags, and the variant is refused for want of its base's C.
export function handOff (entry, results, serviceMs) {
  const o = entry.overload
  if (!o?.base) return entry
  const { argsFor, ...rest } = entry
  const b = baseResult(results, { server: o.base, work: entry.work, runtime: entry.runtime })
  const target = b?.overload?.sloMs
  const flags = target && argsFor ? argsFor({ sloMs: target, serviceMs: b.capacity?.serviceMs ?? serviceMs }) : []
  const rps = b?.overload?.capacityRps ?? null
  const fromBase = rps
    ? { rps, sloMs: b.overload.sloMs, from: `${o.base} in this run` }
    : { refused: `no capacity of ${o.base} in this run to run its variant at` }
  return { ...rest, args: [...(entry.args ?? []), ...flags], overload: { ...o, capacity: o.capacity ?? fromBase } }
}

// C and the target for this server: { rps, sloMs, from } or { refused } (why no step can run): the one
// handed on with the entry (its drift from this machine's `serviceMs` noted), else the one `swept`.
function capacityFor (record, { entry, swept, serviceMs }) {
  const handed = entry.overload.capacity
  if (handed) return withDrift(handed, record, serviceMs)
  if (!swept?.rps) {
    return {
      refused: `no capacity at the target (${swept ? boundText(swept) : 'no sweep'})`,
      sloMs: swept?.sloMs ?? null
    }
  }
  return { rps: swept.rps, sloMs: swept.sloMs, from: 'the sweep in this run' }
}

// How far this machine's service time has moved from the one the capacity report's sweep stood on: past
// TRUST.calibrationDrift the report's C may not hold here (another machine, or a busier one), said in a note.
function withDrift (cap, record, now) {
  if (cap.serviceMs > 0 && now > 0) {
    const drift = now / cap.serviceMs - 1
    if (Math.abs(drift) > TRUST.calibrationDrift) {
      record.notes.push({ code: 'overload-drift', serviceMs: now, drift, reportServiceMs: cap.serviceMs })
    }
  }
  return cap
}

// Stop the burst's schedule once its recovery is confirmed: `confirm` windows in a row recovered after
// the burst's end, each complete (every request due in it has ended: answered or out of patience).
// { until, stoppedAtMs() }: `until` for the schedule; the due time at which it stopped it (null: the
// schedule ran its length). The window the stop cuts short is no whole window, and the recovery is judged
// without it (result/overload.js recoveryOf).
function recoveryWatch ({ sloMs, burstEndMs, patience, settings }) {
  let checked = Math.ceil(burstEndMs / WINDOW_MS) - 1
  let run = 0
  let stoppedAtMs = null
  const until = (goodput, due) => {
    const complete = Math.floor((due - patience - 250) / WINDOW_MS) - 1 // the last window surely ended
    for (; checked < complete; checked++) {
      run = windowRecovered(goodput.window(checked + 1), sloMs, settings.recoveryShare) ? run + 1 : 0
    }
    if (run >= settings.confirmWindows) stoppedAtMs ??= due
    return run >= settings.confirmWindows
  }
  return { until, stoppedAtMs: () => stoppedAtMs }
}

// Run the steps and the burst for `record`'s server at the C handed on with `entry`, else the one `swept`
// (result/build.js sweptCapacity); `serviceMs`: the work's, calibrated here; `measure(load)` runs one
// measured round.
export async function overloadRounds (record, { entry, load, swept, serviceMs, measure, signal, progress }) {
  const settings = { ...OVERLOAD_DEFAULTS, ...entry.overload.settings }
  const cap = capacityFor(record, { entry, swept, serviceMs })
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
    settleMs: null,
    collapsedAt: null // the multiple of C where a probe stopped, its configuration collapsed
  })
  if (cap.refused) {
    record.notes.push({ code: 'overload-refused', refused: cap.refused })
    return
  }
  const patience = patienceMs(sloMs, settings)
  const { durationSec, settleMs } = stepTiming(sloMs, settings)
  Object.assign(o, { patienceMs: patience, stepSec: durationSec, settleMs })
  const roundLoad = (rate) => {
    const connections = defaultConnections(rate, patience / 1000)
    if (rate * (patience / 1000) > DEFAULT_MAX_CONNECTIONS) {
      record.notes.push({ code: 'overload-queued', rate, patienceMs: patience, connections: DEFAULT_MAX_CONNECTIONS })
    }
    // one generator, on the lab's thread: goodput is counted from every request's event there (a thread
    // can be handed no function)
    return { ...load, rate, connections, timeoutSec: patience / 1000, amount: null, goodput: { sloMs }, generators: 1 }
  }
  for (const multiple of settings.multiples) {
    if (signal.aborted) return
    const rate = multiple * cap.rps
    progress?.(`overload ${multiple} × C: ${rate.toFixed(1)} req/s for ${durationSec} s`)
    const round = await measure({ ...roundLoad(rate), durationSec })
    o.steps.push({ multiple, rate, round })
    // a probe stops where its configuration collapsed: nothing later undoes that (settings.stopOnCollapse)
    const step = { multiple, rate, capacityRps: cap.rps, settleMs }
    if (settings.stopOnCollapse && goodputCollapses(multiple, stepGoodputShare(round, step))) {
      o.collapsedAt = multiple
      return
    }
  }
  if (signal.aborted) return
  const { phases, burstEndMs } = burstPhases(cap.rps, settings)
  const total = phases.reduce((a, p) => a + p.durationMs, 0) / 1000
  progress?.(`burst: ${phases.map((p) => `${p.rate.toFixed(1)} req/s ${p.durationMs / 1000} s`).join(', then ')}`)
  const watch = recoveryWatch({ sloMs, burstEndMs, patience, settings })
  const peak = Math.max(...phases.map((p) => p.rate))
  const goodput = { sloMs, until: watch.until }
  const round = await measure({ ...roundLoad(peak), phases, durationSec: total, goodput })
  o.burst = { phases, burstEndMs, stoppedAtMs: watch.stoppedAtMs(), round }
}
