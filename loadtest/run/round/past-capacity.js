// Past capacity in the capacity experiment: after the sweeps, the winner and every close candidate
// (result/decision.js closeCandidates) are probed as swept and with their shedding setting, by the overload
// experiment's own rounds (run/round/overload.js: steps at 1.5 and 2 × C, then a burst and its recovery)
// with shorter settings. C and the target are the sweep's, handed on: no second sweep. Each probe is kept
// on its result as `pastCapacity` (reports/README.md), and the decision weighs them.
import { availableParallelism } from 'node:os'
import { variants } from '../../catalog.js'
import { buildHttpResult } from '../../result/build.js'
import { reasonText } from '../../text/reasons.js'
import { closeCandidates } from '../../result/decision.js'
import { OVERLOAD_DEFAULTS } from '../../result/overload.js'
import { PAST, TIE } from '../../result/rules.js'
import { runEntry } from './runner.js'

// The probe's lengths: steps of at least minStepSec (the first 1 s not counted), then the burst, watched for the
// collapse rule's recoverySec and the windows that confirm a recovery there (docs/decision.md "Past capacity").
const PROBE_LENGTHS = Object.freeze({
  minStepSec: 3,
  beforeSec: 1,
  burstSec: 2,
  afterSec: PAST.recoverySec + PAST.confirmWindows,
  confirmWindows: PAST.confirmWindows
})
const PROBE_QUICK_LENGTHS = Object.freeze({ ...PROBE_LENGTHS, minStepSec: 2, stepPatiences: 5 })

// The probe's settings: OVERLOAD_DEFAULTS with those lengths, at the collapse rule's multiple and the tie's
// goodput multiple; a configuration that collapsed is probed no further.
function probeSettings ({ beforeSec, burstSec, afterSec, ...lengths }) {
  const burst = { ...OVERLOAD_DEFAULTS.burst, beforeSec, burstSec, afterSec }
  const multiples = [PAST.collapseMultiple, TIE.goodputMultiple]
  return { ...OVERLOAD_DEFAULTS, multiples, ...lengths, burst, stopOnCollapse: true }
}
export const PROBE = probeSettings(PROBE_LENGTHS)
export const PROBE_QUICK = probeSettings(PROBE_QUICK_LENGTHS)

// The probe's method in one line, for the report's notes.
export function probeNote (quick) {
  const p = quick ? PROBE_QUICK : PROBE
  const b = p.burst
  return 'capacity: past capacity probed for the winner and every candidate ' +
    `within ${Math.round(PAST.closeShare * 100)} % of it or ` +
    `overlapping it, as swept and with its shedding setting: open-loop steps at ${p.multiples.join(' and ')} × C ` +
      'of at least ' +
    `${p.minStepSec} s, then ${b.baseMultiple} × C for ${b.beforeSec} s, ${b.burstMultiple} × C ` +
      `for ${b.burstSec} s and ` +
    `${b.baseMultiple} × C watched up to ${b.afterSec} s (the overload experiment's rounds; docs/decision.md ` +
      `"Past capacity"); a configuration whose goodput at ${PAST.collapseMultiple} × C fell under ` +
      `${Math.round(PAST.collapseShare * 100)} % of C collapses, and is probed no further`
}

// The shedding setting probed beside each strategy (catalog.js variants), and how its own setting reads.
const SHEDDING = {
  'queued-threads': { variant: 'deadline', asSwept: 'unbounded queue' },
  'queued-processes': { variant: 'deadline', asSwept: 'unbounded queue' },
  simple: { variant: 'under-pressure', asSwept: 'no shedding' },
  cluster: { variant: 'under-pressure', asSwept: 'no shedding' }
}

// The configurations of one swept result: as swept, and its shedding variant when it has one, each with
// the flags it adds. --service-ms is left out: the server measures its own at start, as a deployed one does.
export function configurations (result, { sloMs, serviceMs }) {
  const own = SHEDDING[result.server]
  const tuned = result.key?.includes('[')
  const asSwept = { variant: null, label: tuned ? 'as tuned' : (own?.asSwept ?? 'as swept'), flags: [] }
  const v = own && variants([result.server]).find((x) => x.variant === own.variant)
  if (!v) return [asSwept]
  const all = v.argsFor({ sloMs, serviceMs })
  const flags = all.filter((f, i) => f !== '--service-ms' && all[i - 1] !== '--service-ms')
  return [asSwept, { variant: v.variant, label: v.description, shedding: flags.join(' '), flags }]
}

// One probe: the entry the sweep ran, with the configuration's flags, at the sweep's C (runEntry with an
// `overload` entry: run/round/overload.js). Returns what the result keeps of it.
async function probe (result, config, { entry, load, quick, capacity, signal, progress, calibration }) {
  const { sweep, argsFor, ...base } = entry
  const run = {
    ...base,
    variant: config.variant,
    args: [...result.args, ...config.flags],
    overload: { settings: quick ? PROBE_QUICK : PROBE, capacity }
  }
  const record = await runEntry(run, { ...load, amount: null }, { signal, progress, calibration })
  const built = buildHttpResult(record, { calibration, cores: availableParallelism(), say: reasonText })
  return {
    ...config,
    status: built.status,
    failure: built.failure?.reason ?? null,
    trusted: built.trusted,
    untrusted: built.untrusted,
    notes: built.notes,
    overload: built.overload
  }
}

// Probe the close candidates of the capacity report so far (`results`, in plan order beside `plan` and
// `loads`): each result's `pastCapacity` is set. `calibrationFor(entry)` gives the entry's calibration.
// Returns how many probes ran.
export async function probePastCapacity ({ plan, loads, results, quick, signal, progress, calibrationFor }) {
  let count = 0
  for (const result of closeCandidates({ results })) {
    const i = results.indexOf(result)
    const c = result.capacity
    const sloMs = c.capacity.sloMs ?? c.sloMs
    const capacity = { rps: c.capacity.rps, sloMs, from: 'the sweep in this run', serviceMs: c.serviceMs }
    result.pastCapacity = []
    for (const config of configurations(result, capacity)) {
      if (signal.aborted) return count
      const name = config.variant ? `${result.key} with ${config.shedding}` : `${result.key} (${config.label})`
      progress?.(`past capacity: ${name}`)
      const say = (text) => progress?.(`past capacity: ${name}: ${text}`)
      const calibration = calibrationFor(plan[i])
      const ctx = { entry: plan[i], load: loads[i], quick, capacity, signal, progress: say, calibration }
      result.pastCapacity.push(await probe(result, config, ctx))
      count++
    }
  }
  return count
}
