// Experiment `capacity`: how much load each strategy takes while p99 stays under a target. Each server
// is offered open-loop rates (latency from the due time, so stalls are not under-sampled) at the rule book's
// coarse fractions of the ideal its cores allow for the work (result/rules.js CLIMB.fractions), climbing on
// past it until one fails; the knee is found by bisection, and one step at CLIMB.overload × the capacity
// shows what happens past it (timeouts, queue growth, recovery). See loadtest/result/sweep.js for the rule.
import { MISSING, fmtMs, fmtPct, pctSpaced as pctOf, fmtRps as rps } from '../text/format.js'
import { SERVERS } from './heavy-cpu.js'
import { createSweep } from '../result/sweep.js'
import { lowerBound, sweepRuleText } from '../text/reasons.js'
import {
  BUDGET, CLIMB, QUICK, REPEAT, SAMPLE, SLO, SWEEP_LIMITS, bracketConfidenceOf, percentileOf, sloFor
} from '../result/rules.js'
import { taskArgs } from '../run/watch/task.js'
import { classTargetsText, trustMark } from '../text/sentences.js'
import { tuneArgs } from '../tune.js'
import { parseKey } from '../result/key.js'
import { probeNote } from '../run/round/past-capacity.js'
import { planBasics } from './plan.js'
import { findServer } from '../catalog.js'
import { warmFeed } from '../result/strategies.js'

// The CPU strategies, as in heavy-cpu.
export { SERVERS }

// The sweep's settings are the rule book's (result/rules.js SWEEP_LIMITS and SAMPLE; --quick's: QUICK), beside
// the experiment's own: durationSec, a step's shortest length (SWEEP_LIMITS.minDurationSec unless --duration),
// the work, and the rounds' warm-up, timeout and recovery. loop:3e7 (about 25 ms: an ideal near 80 req/s on 2
// cores, so 3–10 s a step); loop:1e8 took 9–90 s a step, and loop:1e7's default target (34 ms) was below the
// scheduler lag of a loaded machine, so every step failed. The cost (docs/decision.md "Cost"): budgetSec bounds
// each sweep; then the past-capacity probes of the close candidates (about 20–30 s each) and --confirm
// (the rule book's CONFIRM). scripts/capacity-cost.js estimates a run from a measured report's steps with these
// settings; the default run's estimate against the reference runs stays within 15 minutes
// (test/scripts/capacity-cost.test.js).
const { minDurationSec, ...limits } = SWEEP_LIMITS
const defaults = {
  work: 'loop:3e7',
  share: SAMPLE.share, // p99
  confidence: SAMPLE.confidence, // a step's verdict at 95 % (--quick: looser)
  why: null, // the default run's percentile and work: nothing to say
  durationSec: minDurationSec,
  minRequests: SAMPLE.minRequests,
  timeoutSec: 10,
  warmup: 8,
  recoveryTimeoutSec: 60,
  // maxStepSec, refine, maxSteps, budgetSec and stepsPerTarget: the rule book's SWEEP_LIMITS
  ...limits,
  fractions: null
}
// --quick: the suite's runs, cheap but by the same rules at a looser confidence (result/rules.js QUICK: the same
// p99 at 90 %, which 230 requests can show where 95 % needs 299), on a work of about 8 ms (ideal near 240 req/s);
// a step lasts 2 s at least, as in the default run and the brute force. The report says at what confidence it
// judged (the sweep's `confidence` and `why`).
const quick = {
  work: 'loop:1e7',
  why: `--quick judges p${percentileOf(SAMPLE.share)} at ${pctOf(QUICK.confidence)} (a looser confidence: ` +
    `${QUICK.minRequests} requests can show it, where ${pctOf(SAMPLE.confidence)} needs ${SAMPLE.minRequests}; ` +
    `a bracket holds the knee ${pctOf(bracketConfidenceOf(QUICK.confidence))} of the time), by the same rules.`,
  durationSec: minDurationSec,
  warmup: 4,
  recoveryTimeoutSec: 30,
  ...QUICK
}

// A tuned sweep's coarse steps from the previous value's bracket ({ pass, fail }), as fractions of the
// ideal: around the capacity the last setting found, so a neighbouring setting needs fewer steps. null
// without a bracket to start from (the first value, or one that held no rate).
export function seededFractions (seed, { serviceMs, cores }) {
  if (!(seed?.pass > 0) || !(serviceMs > 0)) return null
  const ideal = (cores / serviceMs) * 1000
  return CLIMB.seeded.map((f) => (f * seed.pass) / ideal)
}

// The capacity sweep at `slos` (null: the sweep's default three) with the plan's settings, as a function of
// what the lab resolved at run time: the calibrated service time and cores, the previous --tune value's
// bracket (`seed`) and a mix's requestFactor (its steps hold that many times the requests, result/mix.js).
export function capacitySweep (opts, slos) {
  const q = opts.settings
  const fractions = q.fractions ?? undefined // null: the sweep's own coarse steps
  const minDurationSec = opts.user?.durationSec ?? q.durationSec
  const { refine, minRequests, maxStepSec, budgetSec, budgetWorkMs, share, confidence, why } = q
  const maxSteps = q.maxSteps + q.stepsPerTarget * ((slos?.length ?? SLO.multiples.length) - 1)
  const steps = { refine, maxSteps, minDurationSec, maxStepSec, budgetSec, budgetWorkMs, share, confidence, why }
  return ({ serviceMs, cores, seed = null, requestFactor = 1, leaders = null, guides = null }) => {
    const seededBy = seededFractions(seed, { serviceMs, cores })
    return withRule(createSweep({
      serviceMs,
      cores,
      leaders,
      guides,
      seeded: seededBy !== null,
      slos,
      ...steps,
      minRequests: Math.ceil(minRequests * requestFactor),
      fractions: seededBy ?? fractions
    }))
  }
}

// A sweep whose describe() carries its rule in words (`rule`, the report's: text/reasons.js sweepRuleText).
export function withRule (sweep) {
  const describe = sweep.describe
  return Object.assign(sweep, {
    describe () {
      const d = describe()
      return { ...d, rule: sweepRuleText(d) }
    }
  })
}

// The capacity sweep at ONE target, the one the overload and mixed experiments run before their own
// rounds: `sloMs` (the first --slo, or the target a --capacity-from file gave), else result/rules.js sloFor's
// default from the service time the lab calibrated and passes in (no service time and no target: the
// sweep's default targets).
export function oneTargetSweep (opts, sloMs = null) {
  return (ctx) => capacitySweep(opts, ctx.serviceMs > 0 || sloMs ? [sloFor(ctx.serviceMs, sloMs).sloMs] : null)(ctx)
}

// The order the strategies are swept in: those that keep a warm worker on every core first (result/strategies.js
// warmFeed: the likely leaders), fed from one queue before those that split their connections, then the rest
// as listed. A sweep after a leader starts its climb under the leader's capacity and stops once ruled out
// (result/rules.js CLIMB), so a strategy far below costs a few steps.
export function sweepOrder (servers) {
  const rank = (s) => ({ queue: 0, split: 1 })[warmFeed(findServer(s))] ?? 2
  return servers.map((s, i) => ({ s, i })).sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i).map((x) => x.s)
}

// The experiment's description, its figures read from the rule book.
function description () {
  const p = percentileOf(SAMPLE.share)
  const pct = (x) => `${Math.round(x * 100)} %`
  return 'Each CPU strategy, those that keep a warm worker on every core first, offered open-loop rates ' +
    '(requests due on a schedule whatever the answers; latency from the due time): first a floor, at a rate where ' +
    'requests rarely overlap (measured again lower while they do), then steps at fractions of the ideal its cores ' +
    `allow for the work (cores / calibrated service time: ${CLIMB.fractions.join(', ')}; after a strategy with a ` +
    `capacity, from ${CLIMB.ledStart} × the highest) and on at ${CLIMB.climb} × until one fails, a failure far ` +
    'above the highest pass searched down geometrically, the knee refined by bisection, then ' +
    `${CLIMB.overload} × the capacity, ` +
    `which must fail. A failure is repeated before it counts unless clear (${pct(REPEAT.clearShare)} of its ` +
    `requests or more over the target). Each step lasts for the requests that can show its percentile (p${p}: ` +
    `${SAMPLE.minRequests}, binomial, ${pct(SAMPLE.confidence)}), lengthened past its cap when needed; a step ` +
    'that still has too few is undecided, never failed, and an undecided rate is measured again (topped up) and ' +
    'its steps pooled. A sweep stays within its time budget (the looser targets\' steps within ' +
    `${pct(BUDGET.looseShare)} of it); cut with no pass, it is "undecided: budget spent" with its bracket so far. ` +
    'What else took the machine is recorded per step (noise) and a disturbed step is marked, while the ' +
    'strategy\'s own contention is a finding. Capacity: the highest offered rate whose percentile stays within ' +
    'the target with every request answered and verified and no growing backlog, with its bracket and its ' +
    'floor; none ("cannot meet the target") only when a floor where requests did not overlap is over the target.'
}

export default {
  name: 'capacity',
  study: null,
  title: 'Capacity at a latency target: open-loop rate sweep per strategy',
  description: description(),
  defaults,
  quick,
  // One entry per server; its sweep chooses the rates from the calibrated service time at run time.
  plan (opts) {
    const { q, work, servers: named } = planBasics(opts, SERVERS)
    const servers = sweepOrder(named)
    // --tune: one entry per value of the setting, each its own key (SERVER[NAME=V]); the lab seeds each
    // sweep from the previous value's bracket (seededFractions).
    const settings = opts.tune ? opts.tune.values.map((value) => ({ name: opts.tune.name, value })) : [null]
    return servers.flatMap((server) => settings.map((setting) => ({
      server,
      variant: null,
      setting,
      args: [
        ...(opts.task ? taskArgs(opts.task) : ['--work', work]), // --task: the user's module is the work
        ...(setting ? tuneArgs(opts.tune, setting.value) : [])
      ],
      work: opts.task?.spec ?? work,
      durationSec: opts.user?.durationSec ?? q.durationSec,
      sweep: capacitySweep(opts, opts.slos), // --slo's targets (null: the sweep's default three)
      ruleOut: true // a target may be ruled out below the strategies swept before it (lab.js led)
    })))
  },
  notes (opts) {
    return [
      "capacity: open-loop steps; each step is one round at one offered rate, long enough for the sweep's minimum " +
        "of requests, its latency counted from each request's due time",
      probeNote(opts.quick), // run/round/past-capacity.js
      ...(opts.rate ? ['capacity: --rate is ignored: the sweep chooses the rates'] : []),
      ...(opts.settings?.why ? [`capacity: ${opts.settings.why}`] : [])
    ]
  },
  // Server, capacity (with its bracket, and the spread of --runs sweeps), capacity / ideal, p99 at
  // capacity, the target, the steps (repeated, disturbed), and what the step past capacity did.
  table (report) {
    const past = `${CLIMB.overload}×`
    const head = [
      'server', 'ideal req/s', 'capacity req/s', 'bracket', 'cap/ideal', 'p99 at cap', 'target', 'floor p99 @ req/s',
      'steps', 'disturbed', 'in doubt', `${past} p99`, `${past} timeouts`, `${past} recovery`, 'trust'
    ]
    const http = report.results.filter((r) => r.kind === 'http')
    const rows = http.map((r) => capacityRow(r, head.length))
    // several targets: the capacity at each, one more column (the decision block reads the same figures)
    if (http.some((r) => (r.capacity?.targets?.length ?? 0) > 1)) {
      head.splice(head.length - 1, 0, 'capacity by target')
      rows.forEach((row, i) => row.splice(row.length - 1, 0, targetsCell(http[i])))
    }
    return { head, rows }
  }
}

// The capacity at each target: `100 ms: 45.2 · 400 ms: ≥80.1` (oneCapacity's forms).
function targetsCell (r) {
  const targets = r.capacity?.targets ?? []
  return targets.map((t) => `${fmtMs(t.sloMs)} ms: ${oneCapacity(t)}`).join(' · ') || MISSING
}

// One capacity as a cell: ≥ for a lower bound (at least, or ruled out below its bracket's failure), 'cannot
// meet' for a target the strategy cannot meet at any rate tried (null, never 0), '-' for none found, a ~ when
// it is sensitive to the target.
function oneCapacity (c) {
  if (c.rps === null || c.rps === undefined) {
    return { 'cannot-meet': 'cannot meet', undecided: 'undecided', 'ruled-out': 'ruled out' }[c.bound] ?? MISSING
  }
  return `${lowerBound(c) ? '≥' : ''}${rps(c.rps)}${c.sensitive ? ' ~' : ''}`
}

// The capacity cell: the (median) capacity, and with --runs N every sweep's.
function capacityCell (cap) {
  const main = oneCapacity(cap.capacity)
  return cap.runs ? `${main} (${cap.runs.map(oneCapacity).join(', ')})` : main
}

// A row's name: the server, and its --tune setting (`queued-threads[threads=3]`).
function rowName (r) {
  const setting = parseKey(r.key ?? '').setting
  return setting ? `${r.server}[${setting}]` : r.server
}

// One server's row of the capacity table.
function capacityRow (r, width) {
  const c = r.capacity?.capacity
  if (!c) {
    const status = r.status === 'failed' ? 'FAILED' : '-'
    return [rowName(r), '-', status, ...Array(width - 4).fill(''), `✗ ${r.failure?.reason ?? ''}`]
  }
  const over = c.over
  const steps = r.capacity.steps
  const disturbed = steps.filter((s) => s.disturbed).length
  const inDoubt = steps.filter((s) => s.inDoubt).length
  const floor = c.floor
    ? `${fmtMs(c.floor.p99)} ` +
    `@ ${rps(c.floor.rps)}${c.floor.true === false ? ' (overlapped)' : ''}`
    : MISSING
  const recovery = over?.recovery
    ? over.recovery.ms === null ? `>${fmtMs(over.recovery.timeoutMs)}` : fmtMs(over.recovery.ms)
    : '-'
  return [
    rowName(r),
    rps(r.capacity.idealRps),
    capacityCell(r.capacity),
    `${rps(c.bracket?.pass)}–${rps(c.bracket?.fail)}`,
    fmtPct(c.ratioToIdeal),
    fmtMs(c.p99),
    classTargetsText(r, { short: true }) ?? fmtMs(c.sloMs), // a mix's classes: each at its own target
    floor,
    `${steps.length}${c.repeated ? ` (${c.repeated} repeated)` : ''}`,
    disturbed ? `! ${disturbed}` : '0',
    String(inDoubt),
    over ? fmtMs(over.p99) : '-',
    over ? String(over.requests.timeouts) : '-',
    recovery,
    trustMark(r)
  ]
}
