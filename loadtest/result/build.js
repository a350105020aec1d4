// The result and report shapes (schema 1, see reports/README.md): an HTTP result from a server run's
// run record (run/round/runner.js), the report object around the results, and the one failure record. Pure: no I/O.
import { isNum, roundTo, spread } from './stats.js'
import { boundFields, capacityAtTargets, capacityOf } from './capacity.js'
import { ideal, roundFigures, stepFigures } from './figures.js'
import { httpKey } from './key.js'
import { untrustedReasons } from './trust.js'
import { REPEAT, TRUST } from './rules.js'
import { overloadOf, overloadReasons } from './overload.js'
import { withTargets } from './mix.js'

// The report format version (reports/README.md).
export const SCHEMA = 1

// Why a run failed: the one failure record of the lab (a server that would not start, crashed, would
// not stop, or left processes behind; a lab error).
export function failure (reason, { exitCode = null, signal = null, stderrTail = [] } = {}) {
  return { reason, exitCode, signal, stderrTail }
}

// The round whose figures a result shows: the median by req/s of its rounds (null without rounds).
function medianRound (rounds) {
  const order = rounds.map((r, i) => [r.rps ?? -1, i]).sort((a, b) => a[0] - b[0])
  return order.length ? rounds[order[(order.length - 1) >> 1][1]] : null
}

// One sweep's steps (global round indexes, so a capacity's `step` names its round), its capacity at the
// first target, and (several targets) its capacity at each, every step judged against every target.
function oneSweep (sw, k, rounds, end, raw) {
  const first = sw.first ?? 0
  const figs = rounds.slice(first, end)
  const steps = figs.map((r, j) => ({
    ...stepFigures(r, first + j, sw.kinds?.[j] ?? null, sw.sloMs, sw.share, sw.confidence),
    sec: sw.lengths?.[j] ?? null, // its planned length (the hold rule)
    ...(raw[first + j]?.cut ? { cut: raw[first + j].cut } : {}), // stopped once it clearly failed (run/round/cut.js)
    sweep: k
  }))
  const capacity = capacityOf(steps, { ...sw, lead: sw.leads?.[0] ?? null })
  const targets = sw.targetsMs?.length
    ? capacityAtTargets(steps, figs, { ...sw, targets: sw.targetsMs })
    : null
  return { steps, capacity, targets }
}

// A capacity sweep's block: its rule, each step's figures and the capacity they show; with --runs N, the
// median sweep's capacity, every sweep's (`runs`) and their spread.
function sweepOf (record, rounds) {
  const sweeps = record.sweeps ?? [record.sweep]
  const runs = sweeps.map((sw, k) => oneSweep(sw, k, rounds, sweeps[k + 1]?.first ?? rounds.length, record.rounds))
  const { kinds, lengths, first, sweepSec, round, place, startedAt, ...rule } = sweeps[0]
  // a capacity that cannot be met (rps null) sorts below every number
  const order = runs.slice().sort((a, b) => (a.capacity.rps ?? -1) - (b.capacity.rps ?? -1))
  const median = order[(order.length - 1) >> 1]
  const many = runs.length > 1
  const held = runs.map((r) => r.capacity.rps).filter(isNum)
  return {
    ...rule,
    steps: runs.flatMap((r) => r.steps),
    capacity: median.capacity,
    ...(median.targets ? { targets: median.targets } : {}), // the median sweep's capacity at each target
    // with --runs N, each sweep's capacity and its lab round (tagOf), and their spread
    ...(many ? { runs: runs.map((r, k) => ({ ...r.capacity, ...tagOf(sweeps[k]) })) } : {}),
    ...(many ? { spread: held.length ? spread(held) : null } : {}),
    cost: costOf(sweeps, runs),
    calibrationCheck: record.calibrationCheck ?? null
  }
}

// What the sweeps cost: the requests their steps sent and their seconds from the first step to the end of
// the last (null where a record did not time them).
function costOf (sweeps, runs) {
  const secs = sweeps.map((sw) => sw.sweepSec)
  return {
    requests: runs.reduce((a, r) => a + r.steps.reduce((b, s) => b + (s.requests?.sent ?? 0), 0), 0),
    sec: secs.every(isNum) ? roundTo(secs.reduce((a, x) => a + x, 0), 1) : null
  }
}

// What a run record's capacity sweep found, read while its server still runs: the C, target and service
// time the mixed and overload rounds that follow it stand on ({ rps, sloMs, bound, undecided?, serviceMs }; rps null
// when no rate held the target), or null for a record without a sweep.
export function sweptCapacity (record) {
  if (!record.sweeps?.length && !record.sweep) return null
  const sweep = sweepOf(record, record.rounds.map(roundFigures))
  const c = sweep.capacity
  const sloMs = c.sloMs ?? sweep.sloMs ?? null
  return { rps: c.rps ?? null, sloMs, ...boundFields(c), serviceMs: sweep.serviceMs ?? null }
}

// A reason or note without words: its code (a note the experiment gave in words stays as it is).
const codeOf = (x) => (typeof x === 'string' ? x : x.code)

// A sweep's own untrusted reasons, as data (text/reasons.js says them): its disturbed steps named, a
// calibration that drifted, a capacity beyond the ideal, no verdict, a lower bound, a capacity not held.
function sweepReasons (sweep, entry = null) {
  const out = []
  const disturbed = sweep.steps.filter((s) => s.disturbed)
  if (disturbed.length) {
    const steps = disturbed.slice(0, 3).map((s) => ({ index: s.index, by: s.disturbedBy }))
    out.push({ code: 'disturbed-steps', count: disturbed.length, of: sweep.steps.length, steps })
  }
  const check = sweep.calibrationCheck
  if (check && !check.holds) out.push({ code: 'calibration-drift', drift: check.drift, bound: check.bound })
  const ratio = sweep.capacity.ratioToIdeal
  if (ratio > TRUST.aboveIdeal) out.push({ code: 'above-ideal', ratio, limit: TRUST.aboveIdeal })
  const c = sweep.capacity
  if (sweep.steps.length === 0) out.push({ code: 'no-step' })
  else if (c.rps === null && c.bound === 'undecided') out.push({ code: 'no-verdict', ...boundFields(c) })
  else if (c.bound === 'at-least' && sweep.steps.length >= sweep.maxSteps) {
    out.push({ code: 'lower-bound', cut: 'steps', maxSteps: sweep.maxSteps })
  } else if (c.bound === 'at-least' && sweep.budget?.cut === 'sweep') {
    out.push({ code: 'lower-bound', cut: 'budget', budgetSec: sweep.budget.sec })
  }
  if (c.held === false) out.push({ code: 'not-held', rps: c.rps, holdSec: c.holdSec, argv: holdArgv(c, entry) })
  return out
}

// The lab's arguments of the one step a capacity not held needs (its rate for its hold length: its p99, failed
// requests and backlog show whether it holds), or null where the lab cannot start it alone (a --url service, a
// --tune setting).
function holdArgv (c, entry) {
  if (!entry?.server || entry.setting || !entry.sweep) return null
  const args = entry.args ?? []
  const given = (flag) => (args.includes(flag) ? [flag, args[args.indexOf(flag) + 1]] : [])
  const work = args.includes('--task') ? [...given('--task'), ...given('--input')] : given('--work')
  return ['--server', entry.server, ...work, '--rate', String(roundTo(c.rps, 1)), '--duration', String(c.holdSec)]
}

// What a sweep leaves to its steps' own verdicts (disturbed, inDoubt), not to the result's: outside
// interference, a generator that did not keep the offered load, a lag that puts a latency in doubt.
const STEP_OWN = new Set(['disturbed', 'offered-load', 'lag-in-doubt'])

// Each note once, in the order first given: a round repeats its server's notes.
function distinct (notes) {
  const seen = new Set()
  return notes.filter((n) => !seen.has(JSON.stringify(n)) && seen.add(JSON.stringify(n)))
}

// The untrusted reasons and notes of a run (data: { code, …figures }):
// the shown round's own, then the other rounds'. In a sweep, failing steps are its point, not a fault: its
// reasons are the disturbed steps, the calibration and the ideal (sweepReasons), and the overruled failures
// are noted.
function trustOf (record, rounds, shown, sweep) {
  const notes = distinct(record.notes ?? [])
  if (sweep) {
    const own = untrustedReasons(shown, record).filter((x) => !STEP_OWN.has(x.code))
    const doubt = sweep.steps.filter((st) => st.inDoubt && !st.mark)
    if (doubt.length) {
      notes.push({ code: 'steps-in-doubt', count: doubt.length, of: sweep.steps.length, maxTries: REPEAT.maxTries })
    }
    const marked = (tail) => sweep.steps.filter((st) => st.mark === tail).length
    if (marked('bunched') + marked('smooth')) {
      notes.push({ code: 'arrivals-off', bunched: marked('bunched'), smooth: marked('smooth'), of: sweep.steps.length })
    }
    if (marked('drift')) notes.push({ code: 'halves-off', count: marked('drift'), of: sweep.steps.length })
    for (const c of sweep.runs ?? [sweep.capacity]) {
      if (c.overruled.length) notes.push({ code: 'overruled', rates: c.overruled })
    }
    const reasons = [...own, ...sweepReasons(sweep, record.probe ? null : record.entry)]
    return { reasons: [...reasons, ...overloadReasons(record.overload)], notes }
  }
  const sloMs = record.entry?.sloMs ?? null // a latency target the rounds are judged against, if any
  const reasons = [...untrustedReasons(shown, { ...record, sloMs }), ...overloadReasons(record.overload)]
  for (const [i, r] of rounds.entries()) {
    if (r === shown) continue
    reasons.push(...untrustedReasons(r, { sloMs }).map((reason) => ({ code: 'round', round: i + 1, reason })))
  }
  return { reasons, notes }
}

// The words a result's JSON keeps beside the codes it was decided on (`say`, text/reasons.js reasonText):
// the strategy's own contention (its sentence and its table cell) ...
function contentionWords (c, say) {
  return c ? { ...c, text: say({ code: 'contention', ...c }), short: say({ code: 'contention-short', ...c }) } : null
}

// ... and a sweep's steps' what disturbed it, its contention, and a mixed step's failing class.
function stepWords (s, say) {
  return {
    ...s,
    ...(s.why ? { why: say(s.why) } : {}),
    disturbedBy: (s.disturbedBy ?? []).map(say),
    contention: contentionWords(s.contention, say)
  }
}

// The runtime the server reported (its ready message), and under --node the one it was started with.
function runtimeOf (record, e) {
  if (!record.runtime && !e.runtime) return null
  return {
    label: e.runtime?.label ?? null,
    name: record.runtime?.name ?? null,
    version: record.runtime?.version ?? null,
    engine: record.runtime?.engine ?? null,
    node: record.runtime?.node ?? null,
    v8: record.runtime?.v8 ?? null,
    source: e.runtime?.source ?? null,
    // what the server's check at start found its event-loop instruments good for (null: not told)
    instruments: record.instruments ?? null
  }
}

// A lab round's place in an interleaved run (--runs N, lab.js): its number, its place in that round's order
// and its start; nothing where the record has none.
function tagOf (x) {
  return x?.round ? { round: x.round, place: x.place, startedAt: x.startedAt } : {}
}

// Every round of a repeated run (--runs), with its place in the run, and the spread of its req/s and p99.
function roundsAndSpread (rounds, raw) {
  if (rounds.length < 2) return {}
  return {
    runs: rounds.map((r, i) => ({
      ...tagOf(raw[i]),
      rps: r.rps,
      latency: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
      requests: r.requests,
      histograms: r.histograms,
      timeline: r.timeline
    })),
    spread: { rps: spread(rounds.map((r) => r.rps)), p99: spread(rounds.map((r) => r.latency.p99)) }
  }
}

// The mixed experiment's round as a result carries it: the heavy class's offered rate and the rule that
// set it, the lowest C beside it, the whole rate, and the round's figures per class (result/mix.js); or why
// it did not run.
function mixedOf (m, e, say) {
  if (m.refused) return { refused: m.refused }
  const fig = roundFigures(m.round)
  return {
    utilisation: m.utilisation ?? null, // of one thread, by the work's service time (result/rules.js MIXED_LOAD)
    serviceMs: m.serviceMs ?? null,
    arrival: m.arrival ?? null,
    capacityRps: roundTo(m.capacityRps, 3),
    capacityFrom: m.capacityFrom ?? null, // the strategy whose C is the lowest, shown beside (experiments/mixed.js)
    heavyRate: roundTo(m.heavyRate, 3),
    rate: roundTo(m.rate, 3),
    requests: fig.requests,
    latency: { p50: fig.latency.p50, p99: fig.latency.p99, max: fig.latency.max },
    classes: withTargets(fig.classes, e.mixed?.mix ?? null, null),
    untrusted: untrustedReasons(fig, {}).map(say)
  }
}

// The shown round's figures, as the result carries them (nulls without a round).
function shownFigures (shown) {
  const pick = (k) => shown?.[k] ?? null
  return {
    requests: pick('requests'),
    statusCodes: pick('statusCodes'),
    durationMs: pick('durationMs'),
    rps: pick('rps'),
    latency: pick('latency'),
    open: pick('open'),
    histograms: pick('histograms'),
    serverTiming: pick('serverTiming'),
    phases: pick('phases'), // where the time went, per phase (result/phases.js)
    probe: pick('probe'),
    recovery: pick('recovery'),
    telemetry: pick('telemetry'),
    outside: pick('outside'),
    timeline: pick('timeline')
  }
}

// One HTTP result (README "results[] for HTTP runs") from a server's run record (run/round/runner.js).
// `cores`: the machine's available parallelism, for the ideal throughput.
// `say`: the words for a reason or note (text/reasons.js reasonText, which the lab passes: result/ makes no
// sentences); without it a reason is its code.
export function buildHttpResult (record, { calibration = {}, cores = null, say = codeOf } = {}) {
  const e = record.entry
  const work = record.workReported ?? e.work ?? null
  const rounds = record.rounds.map(roundFigures)
  const sweep = record.sweeps?.length || record.sweep ? sweepOf(record, rounds) : null
  const shown = sweep ? (rounds[sweep.capacity.step] ?? null) : medianRound(rounds)
  const { reasons, notes } = trustOf(record, rounds, shown, sweep)
  const idealRate = ideal(work, e.connections, cores, calibration)
  return {
    kind: 'http',
    key: httpKey(e, work),
    server: e.server,
    variant: e.variant ?? null,
    work,
    args: record.args ?? e.args ?? [],
    loop: shown?.loop ?? (e.rate ? 'open' : 'closed'),
    rate: e.rate ?? null,
    connections: e.connections,
    amount: e.amount ?? null,
    durationSec: e.durationSec ?? null,
    timeoutSec: e.timeoutSec,
    status: record.failure ? 'failed' : 'ok',
    failure: record.failure ?? null,
    interrupted: Boolean(record.interrupted),
    trusted: reasons.length === 0,
    untrusted: reasons.map(say),
    ...shownFigures(shown),
    // a request mix's figures per class, each with its target (result/mix.js); absent without a mix
    ...(shown?.classes ? { classes: withTargets(shown.classes, e.mix, e.sloMs ?? null) } : {}),
    ideal: idealRate,
    // three significant digits: a cheap task's ideal is thousands of req/s, and a worker per request a few
    efficiency: idealRate && typeof shown?.rps === 'number' ? Number((shown.rps / idealRate.rps).toPrecision(3)) : null,
    capacity: sweep && { ...sweep, steps: sweep.steps.map((s) => stepWords(s, say)) },
    overload: overloadOf(record.overload, say), // past capacity (experiment overload), null otherwise
    ...(record.mixed ? { mixed: mixedOf(record.mixed, e, say) } : {}), // the mixed experiment's round
    examples: shown ? { mismatchBody: shown.samples.mismatch, error: shown.samples.error } : null,
    bodies: shown?.bodies ?? null, // { maxBytes, overCap, largestBytes }: bodies over --max-body
    autocannon: shown?.autocannon ?? null,
    stop: record.stop ?? null,
    notes: notes.map(say),
    study: e.study ?? null,
    runtime: runtimeOf(record, e),
    noise: shown?.noise ?? null,
    // the strategy's own contention in the shown round (trust.js contentionOf): a finding, not a reason
    contention: contentionWords(shown?.contention, say),
    disturbed: sweep ? sweep.steps.some((st) => st.disturbed) : rounds.some((r) => r.disturbed),
    // a sweep's rounds are its steps: never a noise estimate (its --runs are capacity.runs)
    ...(sweep ? {} : roundsAndSpread(rounds, record.rounds))
  }
}

// The whole report object from what the lab gathered.
export function buildReport ({
  id,
  createdAt,
  finishedAt,
  interrupted,
  failed: labFailed = false,
  experiment,
  label,
  machine: m,
  ruler = null,
  method,
  calibration,
  results,
  notes = []
}) {
  const failed = labFailed || results.some((r) => r.status === 'failed')
  return {
    schema: SCHEMA,
    kind: 'loadlab-report',
    id,
    createdAt,
    finishedAt: finishedAt ?? null,
    status: interrupted ? 'partial' : failed ? 'failed' : 'complete',
    experiment,
    label: label ?? null,
    machine: m,
    ...(ruler && { ruler }), // absent without one (--no-ruler, older reports)
    method,
    calibration,
    results,
    notes
  }
}
