// Words for the capacity verdict's data: the sweep's rule, and (result/ keeps them as { code, …figures })
// the untrusted reasons, the bounds and the step verdicts' whys. result/ decides on codes; this module only
// says them. Old reports carry reasons as strings: reasonText passes a string through.
import { roundTo } from '../result/stats.js'
import { commandText } from '../result/command.js'
import {
  BACKLOG, CLIMB, FLOOR, HOLD, LENGTH, REPEAT, SAMPLE, TIE, percentileOf, requestsToShow
} from '../result/rules.js'
import { pctSpaced as pctOf } from './format.js'
import { backlogWaitMs } from '../result/capacity.js'
import { OVERLOAD_DEFAULTS } from '../result/overload.js'

// A share as words: "half", else "N % of".
const fraction = (x) => (x === 0.5 ? 'half' : `${roundTo(x * 100, 1)} % of`)

// How a budget was scaled to the work, in words ('' when it was not).
function scaledText (budget) {
  if (!(budget.sec > budget.baseSec)) return ''
  return `${budget.baseSec} s scaled to this work's step length against a ${budget.workMs} ms work's; `
}

// The sweep's rule in words, for the report, from its plain data (result/sweep.js createSweep's describe()),
// with its `why` (--quick's) after it.
export function sweepRuleText (
  { fractions, refine, minRequests, minDurationSec, maxStepSec, budget, share, confidence = SAMPLE.confidence, why }
) {
  const rule = ruleText(fractions, refine, { minRequests, minDurationSec, maxStepSec, budget, share, confidence })
  return rule + (why ? ` ${why}` : '')
}

function ruleText (fractions, refine, { minRequests, minDurationSec, maxStepSec, budget, share, confidence }) {
  const p = `p${percentileOf(share)}`
  return 'a floor step first, at a rate where requests rarely overlap ' +
    `(rate × p50 ≤ ${FLOOR.overlap}; lowered until it is), then open-loop steps at ` +
    `${fractions.map((f) => `${Math.round(f * 100)}%`).join(', ')} of the ideal ` +
    `(cores / service time) and on at ${CLIMB.climb} × until one fails; a failure more than ${CLIMB.downRatio} ` +
      '× above the ' +
    'highest pass (or the floor) is searched down geometrically (the first target\'s before the looser targets climb ' +
    'on); then up to ' +
    `${refine} bisections between the highest passing and the lowest failing rate (until within ` +
    `${roundTo(CLIMB.precision * 100, 3)}%); then one step at ${CLIMB.overload} × the capacity, which must fail ` +
      '(if it holds, the sweep goes ' +
    'on upward from it); then, unless a passing step there lasted as long, one hold step at the capacity, long ' +
    `enough that a backlog growing at ${roundTo(HOLD.excess * 100, 3)} % of the rate would add the target's ` +
      'wait less the ' +
    `floor's p50 ${HOLD.times} times over (at least ${HOLD.minSec} s, at most the longest step): the hold steps ` +
    'alone decide that rate, ' +
    'a hold that fails lowers the capacity (one more bisection for each), and ' +
    `${HOLD.pastLimits} hold step may run past the step limit and the budget. A target ruled out under a leader ` +
    'is still searched down to a pass; while none passed, the floor\'s top-up keeps its room. ' +
    `Each step lasts long enough for ${minRequests} requests, at least ${minDurationSec} s and at ` +
    `most ${maxStepSec} s, lengthened up to ${LENGTH.lengthen * maxStepSec} s when that is too short for them ` +
      '(past that ' +
    'the step is undecided unless its requests decide). ' +
    'A step holds when every request was answered 2xx with the expected body, its backlog did not grow and its ' +
    `requests over the target (latency from the due time) show ${p} within it ` +
      `at ${Math.round(confidence * 100)} % (binomial: ` +
    `${[0, 1, 2].map((k) => `${requestsToShow(k, { share, confidence })} requests with ${k || 'none'} over`)
      .join(', ')}); ` +
    `it fails when they show ${p} above it; otherwise it is ` +
    'undecided and the rate is measured again, its steps pooled. A first failure is repeated before it counts ' +
    `(unless ${fraction(REPEAT.clearShare)} its requests or more were over the target, the step undisturbed: no ` +
      'repeat could ' +
    'flip it); ' +
    "a disturbed failure, or one the generator's lag could flip (p99 less the lag p99 within the target), counts " +
    `only after ${REPEAT.maxTries} steps at its rate; a pass above a confirmed failure must hold twice. At ` +
    `${REPEAT.maxTries} steps the majority decides, a tie the pooled share over the target; a rate none of ` +
      'whose steps ' +
    'decided stays undecided. A repeat of a rate whose steps were all undecided lasts only for the requests its ' +
    'pool still needs. "Cannot meet the target" only from a true floor that failed; no passing rate and no true ' +
    'floor failure is "undecided", with why.' +
    (budget
      ? ` Time budget: ${budget.sec} s a sweep (${scaledText(budget)}each step its length ` +
        `and ${budget.stepOverheadSec} s); ` +
        'steps for the ' +
        `looser targets only within ${Math.round(budget.looseShare * 100)} % of it, so their bisections stop first ` +
        '(their capacity then a lower bound: "at least"); a step that does not fit is not offered.'
      : '')
}

const r1 = (x) => roundTo(x, 1)

// The overload experiment's rules in words (its settings, result/overload.js OVERLOAD_DEFAULTS), for the report.
export function overloadRuleText (settings = OVERLOAD_DEFAULTS) {
  const b = settings.burst
  return `open-loop steps at ${settings.multiples.join(', ')} × C (C: the capacity at the target), each max(` +
    `${settings.minStepSec} s, ${settings.stepPatiences} patiences) long, its first max(1 s, 2 patiences) ` +
      'not counted; ' +
    `client patience (timeout) ${settings.patienceTargets} × the target. Goodput: verified 2xx answers within the ` +
    'target from their due time, per second of schedule. Burst: ' +
    `${b.baseMultiple} × C for ${b.beforeSec} s, ${b.burstMultiple} × C for ${b.burstSec} ` +
      `s, ${b.baseMultiple} × C up to ` +
    `${b.afterSec} s; recovery: from the burst's end until every 1 s window (by due time) has goodput ≥ ` +
    `${settings.recoveryShare * 100} % of what was offered in it and p99 within the target (the round stops once ` +
    `${settings.confirmWindows} windows in a row have, and the window that stop cuts short is not judged); not ` +
    `recovered within ${b.afterSec} s: metastable.`
}

// A step's failure that is not its percentile's (result/capacity.js judgeStep's fault), in words.
const FAULT_WORDS = {
  requests: (x) => `${x.failed} failed requests`,
  backlog: () => 'backlog grew',
  'no-answer': () => 'no answer'
}

// A step verdict's fault in words ({ fault, failed? }: judgeStep's), or null for a step without one.
export function faultText (j) {
  return j?.fault ? FAULT_WORDS[j.fault]?.(j) ?? j.fault : null
}

// What a --url run skips on a service that is not a lab server.
const SKIPPED = 'skipped: the /health probe, /__lab/stats and its reset (POST), outside sampling'

// The words of the run's notes (run/round/runner.js, run/round/overload.js).
const RUN_NOTES = {
  'no-telemetry': (x) => `no telemetry: POST /__lab/stats/reset answered ${x.status}`,
  'stats-unread': (x) => `no telemetry for a round: GET /__lab/stats, read twice, ${x.why ?? `answered ${x.status}`}`,
  'bodies-over-cap': (x) => `response bodies over --max-body ${x.maxBytes} B: verified whole by sha256 and length, ` +
    `only their first ${x.maxBytes} B kept`,
  'interim-skipped': (x) => `${x.count} interim answers (1xx) skipped: each request counted once, at its final answer`,
  'url-no-lab-header': (x) => `--url: the service does not announce the lab's endpoints (no ${x.header} header); ` +
    SKIPPED,
  'url-lab-endpoints': (x) => `--url: /health names the strategy ${x.strategy}: the lab's endpoints are used`,
  'url-health-shape': (x) => `--url: the service sent ${x.header} but GET /health did not answer in the lab's ` +
    `shape; ${SKIPPED}`,
  'runtime-mismatch': (x) => `${x.flag} ${x.label}: the binary said it is ${x.before}, the server reports ${x.now}`,
  'work-mismatch': (x) => `planned work ${x.planned}, server reports ${x.reported}`,
  'url-classes-blind': (x) => `--url: bodies not compared for ${x.classes.join(', ')} (no expect.sha256 or ` +
    'expect.bodyIncludes in its class, which a --mix file gives)',
  'url-bodies-blind': () => '--url: bodies not compared (a service\'s answers may differ every time; a --mix ' +
    'class\'s expect compares them)',
  'bodies-first-2xx': () => 'bodies compared with the first 2xx response (no expected body for this work)',
  'url-probe': (x) => `--url: no calibration of the service's work; a ${x.durationSec} s closed-loop probe at ` +
    `${x.connections} connections answered ${x.rps} req/s, the sweep's ideal (it seeds the rates, never bounds them)`,
  'killed-busy': (x) => `still busy when stopped: did not exit within ${x.graceSec} s of SIGTERM, killed`,
  'overload-drift': (x) => `overload: the work's service time is ${x.serviceMs.toFixed(1)} ms here, ` +
    `${Math.round(x.drift * 100)} % from the ${x.reportServiceMs.toFixed(1)} ms of the capacity report: its C may ` +
    'not hold on this machine now',
  'overload-refused': (x) => `overload: ${x.refused}: no step past it`,
  'overload-queued': (x) => `overload: ${Math.round(x.rate)} req/s × ${x.patienceMs} ms patience > ` +
    `${x.connections} connections: the generator queued requests`
}

// The words of each reason and note code (result/trust.js untrustedReasons, result/build.js trustOf).
const WORDS = {
  failed: (x) => `failed: ${x.reason}`,
  interrupted: () => 'interrupted: the round was cut short',
  'connection-errors': (x) => `${x.count} connection errors`,
  'protocol-errors': (x) => `${x.count} protocol errors (responses that broke HTTP/1.1, each connection closed)`,
  timeouts: (x) => `${x.count} timeouts`,
  'non-2xx': (x) => `${x.count} non-2xx responses`,
  mismatches: (x) => `${x.count} body mismatches`,
  unanswered: (x) => `${x.count} requests unanswered at the end of the round`,
  'no-response': () => 'no response',
  'offered-load': (x) => typeof x.detail === 'string' // an older lab's, in words
    ? x.detail
    : `${x.thread ? `load generator thread ${x.thread.index + 1}/${x.thread.of}` : 'load generator'} did not keep ` +
      `the offered load: ${reasonText(x.miss)}`,
  'send-rate-off': (x) => `sent ${x.sendRate} req/s for ${x.scheduledRate} scheduled (${r1(x.error * 100)} %)`,
  'issue-rate-off': (x) => `issue rate off the schedule in ${x.off} of ${x.windows} 1 s windows ` +
    `(worst ${x.sent} sent for ${x.due} due at ${r1(x.atMs / 1000)} s)`,
  'unsent-backlog': (x) => `unsent backlog reached ${x.backlog} requests${x.wakeUp ? ' at one wake-up' : ''} ` +
    `(bound ${x.bound})`,
  steal: (x) => `steal ${x.stealPct} % > ${x.limit} %`,
  'foreign-cores': (x) => `other processes used ${x.cores} cores > ${x.limit}` +
    (x.top?.length ? ` (${x.top.map((p) => `${p.name} ${p.cores}`).join(', ')})` : ''),
  'work-inflation': (x) => `the work ran ${x.inflation} × its calibrated time > ${x.limit} ×` +
    (x.inFlight !== null ? ` with ${x.inFlight} at once on ${x.cores} cores` : ''),
  // a mixed step's failure: the class that failed it, and how (result/mix.js judgeByClass)
  'class-fail': (x) => `class ${x.cls}: ${FAULT_WORDS[x.fault]?.(x) ?? 'p99 over the target'} (${x.sloMs} ms)`,
  'overload-rule': (x) => overloadRuleText(x.settings),
  'near-limit': (x) => `${x.name} ${x.value} within ${x.within * 100} % over its limit ${x.limit}`,
  // the strategy's own contention (result/trust.js contentionOf): a finding, and its table cell
  contention: (x) => `work ${x.inflation} × slower: ` +
    (x.crowded
      ? `${x.inFlight} at once on ${x.cores} cores`
      : `its tree kept ${x.treeCores} ` +
      `of ${r1(x.freeCores)} free cores busy`),
  'contention-short': (x) => `${x.inflation}× ` +
    `· ${x.crowded ? `${x.inFlight} on ${x.cores} cores` : `tree ${x.treeCores} cores`}`,
  'lag-in-doubt': (x) =>
    `latency in doubt: p99 ${x.p99} ms less the generator's lag p99 ${x.lagP99} ms is within the ${x.sloMs} ms target`,
  'generator-saturated': (x) => `load generator saturated (${Math.round(x.utilisation * 100)}% CPU)`,
  'probes-failed': (x) => `${x.count} failed /health probes`,
  disturbed: (x) => `disturbed: ${x.by.map(reasonText).join(', ')}`,
  'overload-disturbed': (x) => {
    const at = (s) => (s.at === 'burst' ? 'the burst' : `${s.at} × C`)
    return `disturbed past capacity: ${x.steps.map((s) => `${at(s)} (${s.by.map(reasonText).join(', ')})`).join('; ')}`
  },
  round: (x) => `round ${x.round}: ${reasonText(x.reason)}`,
  'disturbed-steps': (x) => {
    const named = x.steps.map((s) => `step ${s.index + 1} (${(s.by ?? []).map(reasonText).join(', ')})`)
    const more = x.count > x.steps.length ? `, and ${x.count - x.steps.length} more` : ''
    return `disturbed: ${x.count} of ${x.of} steps: ${named.join('; ')}${more}`
  },
  'calibration-drift': (x) => {
    const moved = x.drift === null ? 'could not be measured' : `moved ${r1(x.drift * 100)} %`
    return `calibration checked again after the server ${moved} (bound ±${x.bound * 100} %)`
  },
  'above-ideal': (x) =>
    `capacity ${r1(x.ratio * 100)} % of the ideal > ${x.limit * 100} %: the calibration is slower than the ` +
      'server\'s work',
  'no-step': () => 'no step measured (no calibration of the work)',
  'no-verdict': (x) => `no verdict: capacity ${boundText(x)}`,
  'lower-bound': (x) => x.cut === 'steps'
    ? `the sweep reached its ${x.maxSteps} steps before a step past capacity failed: the capacity is a lower bound`
    : `the sweep spent its ${x.budgetSec} s budget before a step past capacity failed: the capacity is a lower bound`,
  'not-held': (x) => `capacity not held: no step at ${r1(x.rps)} req/s lasted the ${x.holdSec} s ` +
    'that shows a slowly growing backlog (the hold rule), and the sweep ended before one could: it may be ' +
      `above the knee; the step it needs, ${x.holdSec} s at ${r1(x.rps)} req/s` +
      (x.argv ? `: ${commandText(['npm', 'run', 'lab', '--'], x.argv)}` : ''),
  'steps-in-doubt': (x) => `${x.count} of ${x.of} steps in doubt (p99 less the generator's lag p99 within the ` +
    `target): each counted only after its rate had ${x.maxTries} steps`,
  'arrivals-off': (x) => 'arrivals not as asked (Fisher\'s index of dispersion, the rule book\'s FIT): ' +
    [x.bunched ? `${x.bunched} failing steps burstier than Poisson, each in doubt` : null,
      x.smooth ? `${x.smooth} passing steps smoother than Poisson, each undecided` : null].filter(Boolean).join('; ') +
    ` (of ${x.of} steps)`,
  'halves-off': (x) => `${x.count} of ${x.of} steps changed as they ran (their halves contradict, the rule book's ` +
    'HALVES): a pass among them undecided, a failure in doubt',
  overruled: (x) => `failures at ${x.rates.map(r1).join(', ')} req/s overruled by a pass above them that held twice`,
  ...RUN_NOTES
}

// A reason or note in words: a code's sentence with its figures; a string (an old report's reason, an
// experiment's note) as it is; an unknown code as itself.
export function reasonText (x) {
  if (typeof x === 'string') return x
  if (x === null || typeof x !== 'object') return String(x)
  return WORDS[x.code]?.(x) ?? String(x.code)
}

// The words of each bound of a capacity (result/capacity.js capacityOf's `bound`), and of why one is undecided
// (its `undecided`, { code, …figures }).
const BOUND_WORDS = {
  refined: () => 'refined',
  'at-least': () => 'at least',
  'ruled-out': () => `ruled out: a failure confirmed ${pctOf(TIE.capacityMargin)} or more under the leader's capacity`,
  'cannot-meet': () => 'cannot meet the target',
  'below-lowest': () => 'below the lowest rate offered',
  'no-target': () => 'no capacity at this target',
  undecided: (c) => `undecided: ${undecidedText(c.undecided)}`
}
const UNDECIDED_WORDS = {
  'floor-overlap': (x) => 'the floor was not measured where requests do not overlap ' +
    `(${x.overlap === null ? 'no answer' : `rate × p50 ${x.overlap} > ${x.limit}`})`,
  'budget-spent': () => 'budget spent',
  'step-limit': () => 'step limit reached',
  'lowest-pending': () => 'a failure at the lowest rate not confirmed',
  'few-at-lowest': () => 'too few requests at the lowest rate',
  'no-step': () => 'no step'
}

// Why a capacity is undecided, in words (an old report's unknown why, its words; an unknown code, itself).
function undecidedText (x) {
  return UNDECIDED_WORDS[x?.code]?.(x) ?? x?.text ?? String(x?.code ?? 'no why')
}

// Is a capacity shown as a lower bound (≥): the search stopped short of its knee (at least, ruled out)?
export function lowerBound (c) {
  return c?.bound === 'at-least' || c?.bound === 'ruled-out'
}

// A capacity's bound in words, from what carries it ({ bound, undecided }): "at least", "cannot meet the
// target", "undecided: budget spent"; a bound that is no code (a failure's reason in its place) as it is.
export function boundText (c) {
  const b = c?.bound
  if (typeof b !== 'string') return String(b ?? 'none')
  return BOUND_WORDS[b]?.(c) ?? b
}

// Why a backlog counts as growing, in words.
export function backlogText (backlog, rate) {
  if (backlog.growing) return `backlog grew by ${backlog.growth} (limit ${backlog.limit})`
  return `backlog grew by ${backlog.growth} (${backlog.perSec} a second: ${backlogWaitMs(backlog, rate)} ` +
    'ms more wait ' +
    `within ${BACKLOG.horizon} requests)`
}
