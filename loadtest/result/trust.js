// The trust rules: when a run's figures are not to be taken at face value, and the limits behind them.
// Pure: the table, the Markdown, the page, compare and the thresholds all read their verdict from here.
// Three causes stay apart (reports/README.md "trust"): outside interference (steal, other processes, or
// work slower than calibrated when the server's tree was not itself crowding the cores) disturbs a round;
// the strategy's own contention (more work at once than cores) is a finding, shown as a figure; the
// generator's lag puts a latency verdict in doubt only where taking it out could flip the verdict.
import { lazyRequire } from './lazy.js'
import { roundTo } from './stats.js'
import { FIT, TRUST } from './rules.js'
import { WINDOW_MS } from '../settings.js'

const jstat = lazyRequire('jstat')

// The noise figures with a limit of their own (TRUST), each a cause of interference.
const noiseFigures = ['stealPct', 'foreignCores', 'workInflation']

// The trust limits are the rule book's (result/rules.js TRUST, docs/reference/rules.md): a generator past
// TRUST.saturated of a core is saturated; its lag alone never untrusts a lab round (lagCouldFlip decides;
// TRUST.lagP99LimitMs is the bench's probe limit); the offered load is kept when the issue rate is within
// TRUST.sendRateTolerance of the schedule's in every window; past a noise limit (noiseFigures: steal, other
// processes, work slower than calibrated when the server's tree was not itself crowding the cores) by more
// than TRUST.nearLimit a round is disturbed; the calibration may drift TRUST.calibrationDrift; a capacity
// past TRUST.aboveIdeal of the ideal is beyond what the cores allow.

// The server's own contention in a round (noise figures, run/watch/noise.js): { inflation, inFlight, cores,
// treeCores, freeCores, crowded } when its work ran slower than calibrated (past TRUST.workInflation)
// while its tree had more work in flight than the cores the lab left it (crowded; inFlight: mean units of work
// at once, by Little's law from Server-Timing) or kept those cores busy itself (treeCores); null otherwise.
// text/reasons.js contentionText says it.
export function contentionOf (noise) {
  const n = noise ?? {}
  if (!(n.workInflation > TRUST.workInflation) || !(n.cores > 0)) return null
  const free = Math.max(0, n.cores - (n.labCores ?? 0))
  const crowded = n.inFlight > free
  const busy = n.treeCores >= TRUST.busyShare * free
  if (!crowded && !busy) return null
  const r1 = (x) => roundTo(x, 1)
  const inFlight = typeof n.inFlight === 'number' ? r1(n.inFlight) : null
  const treeCores = typeof n.treeCores === 'number' ? r1(n.treeCores) : null
  return { inflation: r1(n.workInflation), inFlight, cores: n.cores, treeCores, freeCores: roundTo(free, 3), crowded }
}

// Is a figure past its limit by more than TRUST.nearLimit (a verdict), and is it in the band just above (near)?
const past = (x, limit) => x > limit * (1 + TRUST.nearLimit)
const near = (x, limit) => x > limit && !past(x, limit)

// Is the work held against a cold calibration (a strategy that starts a process or thread per request)?
// Its work slower than that is its own: a fresh process's or thread's start (its JIT and GC threads)
// competes with the server, which a cold calibration on an idle machine does not see. Steal and other
// processes still disturb it.
function coldStart (n) {
  return ['cold process', 'cold thread'].includes(n?.workAgainst) // run/watch/noise.js workAgainst's values
}

// Outside interference in a round's noise figures (empty: none past the limits), as codes with their figures
// (text/reasons.js says them): 'steal', 'foreign-cores' (other processes, `top` their top consumers; the
// kernel's interrupt work is not theirs), and 'work-inflation': work slower than calibrated that the server's
// own contention does not explain (never for a strategy held against its cold calibration: coldStart). A
// figure within TRUST.nearLimit above its limit does not count.
export function interference (noise) {
  const out = []
  const n = noise
  if (past(n?.stealPct, TRUST.stealPct)) out.push({ code: 'steal', stealPct: n.stealPct, limit: TRUST.stealPct })
  if (past(n?.foreignCores, TRUST.foreignCores)) {
    const top = (n.foreign ?? []).map((p) => ({ name: p.name, cores: roundTo(p.cores, 2) }))
    out.push({ code: 'foreign-cores', cores: n.foreignCores, limit: TRUST.foreignCores, top })
  }
  if (past(n?.workInflation, TRUST.workInflation) && !contentionOf(n) && !coldStart(n)) {
    const inFlight = typeof n.inFlight === 'number' ? roundTo(n.inFlight, 1) : null
    const limit = TRUST.workInflation
    out.push({ code: 'work-inflation', inflation: n.workInflation, limit, inFlight, cores: n.cores })
  }
  return out
}

// The noise figures just over their limits (within TRUST.nearLimit): named, not counted as interference
// ([{ code: 'near-limit', name, value, limit, within }]).
export function nearLimits (noise) {
  const n = noise ?? {}
  const out = []
  for (const name of noiseFigures) {
    const limit = TRUST[name]
    if (near(n[name], limit) && (name !== 'workInflation' || (!contentionOf(n) && !coldStart(n)))) {
      out.push({ code: 'near-limit', name, value: n[name], limit, within: TRUST.nearLimit })
    }
  }
  return out
}

// The 1 s windows of an open round's timeline (run/watch/timeline.js) with the requests the schedule made due
// in each ({ t, due, sent, slack }), the fallback where the generator did not record its own windows:
// due counted exactly for a constant schedule (request i due at i / rate, `total` requests in all), or
// read from the points' `due`; null when neither is known (a Poisson schedule, no timeline). The
// timeline's clock starts a little before the schedule's, so time 0 is taken as the first interval with
// a request sent, and each window allows `slack`: the requests due in one interval (its resolution).
export function issueWindows (timeline, { rate, arrival, total }) {
  const all = (timeline?.points ?? []).filter((p) => p.phase === 'round')
  const first = all.findIndex((p) => p.sent > 0)
  const points = first === -1 ? [] : all.slice(first)
  const interval = timeline?.intervalMs ?? 0
  const width = Math.max(WINDOW_MS, interval)
  const recorded = points.length > 0 && points.every((p) => typeof p.due === 'number')
  if (!points.length || (!recorded && !(arrival === 'constant' && rate > 0))) return null
  const origin = points[0].t
  const dueBy = (t) => Math.min(total, Math.max(0, Math.ceil((t * rate) / 1000)))
  const slack = recorded ? 0 : (rate * interval) / 1000
  const windows = new Map()
  for (const p of points) {
    const t = p.t - origin
    const k = Math.floor(t / width)
    const w = windows.get(k) ?? { t: k * width, due: 0, sent: 0, slack }
    w.sent += p.sent
    w.due += recorded ? p.due : dueBy(t + (interval || width)) - dueBy(t)
    windows.set(k, w)
  }
  return [...windows.values()].sort((a, b) => a.t - b.t)
}

// Was the offered load kept (empty: yes; else codes with their figures, text/reasons.js says them)? The issue
// rate within TRUST.sendRateTolerance of the schedule's in every window (at least one request of slack, for a
// request due at a window's edge), and the unsent backlog (due so far less sent so far) within the same bound
// at every window's end, and (where the
// generator counted it, `peakBacklog`) at every wake-up of the generator. Without windows, the whole
// round's rate against its schedule's. `lagMs`: the generator's lag that is left to the latency rule
// (lagCouldFlip): the requests due within it may sit on the other side of a window's edge, so each bound
// gets that many more (0: the bench's probe of the generator itself, which judges its lag on its own).
// `wakeUps: false` leaves the backlog at one wake-up (a stall caught up within its window) to the lag.
export function offeredLoadKept (windows, figures = {}, { lagMs = 0, wakeUps = true } = {}) {
  const { sendRateError = null, sendRate = null, scheduledRate = null, peakBacklog = null } = figures
  if (!windows?.length) {
    if (typeof sendRateError !== 'number' || Math.abs(sendRateError) <= TRUST.sendRateTolerance) return []
    return [{ code: 'send-rate-off', sendRate, scheduledRate, error: sendRateError }]
  }
  const out = []
  const rate = figures.scheduledRate ?? figures.rate ?? null
  const lagged = lagMs > 0 && rate > 0 ? Math.ceil((rate * lagMs) / 1000) : 0
  const slack = (due, extra = 0) => Math.max(1, TRUST.sendRateTolerance * due) + lagged + extra
  const off = windows.filter((w) => Math.abs(w.sent - w.due) > slack(w.due, w.slack))
  if (off.length) {
    const worst = off.reduce((a, b) => (Math.abs(b.sent - b.due) > Math.abs(a.sent - a.due) ? b : a))
    const { sent, due, t: atMs } = worst
    out.push({ code: 'issue-rate-off', off: off.length, windows: windows.length, sent, due, atMs })
  }
  let due = 0
  let sent = 0
  let backlog = 0
  for (const w of windows) {
    due += w.due
    sent += w.sent
    backlog = Math.max(backlog, due - sent)
  }
  const perWindow = Math.max(...windows.map((w) => w.due))
  const bound = slack(perWindow, windows[0].slack)
  if (backlog > bound) out.push({ code: 'unsent-backlog', backlog, bound: roundTo(bound, 1), wakeUp: false })
  // the request that woke the generator is not behind: the backlog is what was due before it
  else if (wakeUps && typeof peakBacklog === 'number' && peakBacklog - 1 > slack(perWindow)) {
    out.push({ code: 'unsent-backlog', backlog: peakBacklog - 1, bound: roundTo(slack(perWindow), 1), wakeUp: true })
  }
  return out
}

// The issue windows of a round's open-loop figures: the generator's own when it records them
// (fig.open.windows: [{ t, due, sent | issued }], the exact ones), else from the timeline (issueWindows).
function windowsOf (fig) {
  const o = fig?.open
  if (Array.isArray(o?.windows) && o.windows.length) {
    return o.windows.map((w, i) => ({ t: w.t ?? i * WINDOW_MS, due: w.due, sent: w.sent ?? w.issued }))
  }
  return issueWindows(fig?.timeline, { rate: o?.rate, arrival: o?.arrival, total: fig?.requests?.sent ?? 0 })
}

// The lag a lab round leaves to the latency rule: its scheduler lag p99 after the warm-up (else the
// round's). A request the generator issued that late is the lag's doing, shown beside every percentile and
// judged by what it could flip; only a shortfall beyond it is a load not offered.
function lagLeft (o) {
  const lag = o?.lagAfterWarmup?.p99 ?? o?.lag?.p99
  return typeof lag === 'number' && lag > 0 ? lag : 0
}

// The offered-load reasons of a round's figures (empty: kept), for the round and each generator thread:
// [{ code: 'offered-load', thread (null: the round's; else { index, of }), miss (offeredLoadKept's code) }].
// A lab round is judged on its 1 s windows and their backlog with its lag p99 left to the latency rule;
// the backlog at one wake-up (a momentary stall, caught up within the window) is lag, not a load not
// offered, so it is shown (`open.peakBacklog`) and not judged here.
export function offeredLoadReasons (fig) {
  const o = fig?.open
  if (!o) return []
  const judge = (windows, f) => offeredLoadKept(windows, f, { lagMs: lagLeft(f), wakeUps: false })
  const out = judge(windowsOf(fig), o).map((miss) => ({ code: 'offered-load', thread: null, miss }))
  for (const [k, g] of (o.generators ?? []).entries()) {
    const thread = { index: k, of: o.generators.length }
    out.push(...judge(g.windows ?? null, g).map((miss) => ({ code: 'offered-load', thread, miss })))
  }
  return out
}

// Could taking the generator's lag out flip a verdict "value ≤ limit"? Lag only adds time, so only a
// failure can flip: value > limit while value − lag ≤ limit. A pass, or a failure that stays one
// without the lag, stands.
export function lagCouldFlip (valueMs, lagMs, limitMs) {
  if (![valueMs, lagMs, limitMs].every((x) => typeof x === 'number')) return false
  return valueMs > limitMs && valueMs - lagMs <= limitMs
}

// The generator's lag against a latency target for a round's figures: { lagP99, p99, sloMs, inDoubt } (null
// without an open loop or a target). inDoubt: p99 less the lag p99 lands on the other side of the target.
export function lagVerdict (fig, sloMs) {
  const lag = fig?.open?.lag?.p99
  const p99 = fig?.latency?.p99
  if (typeof lag !== 'number' || typeof p99 !== 'number' || !(sloMs > 0)) return null
  return { lagP99: lag, p99, sloMs, inDoubt: lagCouldFlip(p99, lag, sloMs) }
}

// What disturbed a round (empty: nothing), as codes: outside interference, or a generator that did not keep
// the offered load (the step then measured another load than the one asked).
export function disturbances (fig) {
  return [...interference(fig?.noise), ...offeredLoadReasons(fig)]
}

// Reasons not to take a run's figures at face value (empty: trusted), as data: [{ code, …figures }]
// (text/reasons.js reasonText says each in words). sloMs: a latency target the round is judged against (its lag
// puts it in doubt only where it could flip that verdict). What disturbed a round (`by`, interference's codes) and
// a load not offered (offeredLoadReasons) are codes too.
export function untrustedReasons (fig, { failure, interrupted, sloMs = null } = {}) {
  const out = []
  if (failure) out.push({ code: 'failed', reason: failure.reason })
  if (interrupted) out.push({ code: 'interrupted' })
  if (!fig) return out
  const r = fig.requests
  const count = (code, n) => n && out.push({ code, count: n })
  count('connection-errors', r.errors)
  count('protocol-errors', r.protocolErrors)
  count('timeouts', r.timeouts)
  count('non-2xx', r.non2xx)
  count('mismatches', r.mismatches)
  // A --duration round stops with up to one request in flight per connection: that is not a fault.
  const inFlightAtStop = fig.loop !== 'open' && fig.mode === 'duration' ? (fig.connections ?? 0) : 0
  if (r.unanswered > inFlightAtStop && !interrupted) out.push({ code: 'unanswered', count: r.unanswered })
  if (r.completed === 0) out.push({ code: 'no-response' })
  out.push(...offeredLoadReasons(fig))
  const lag = lagVerdict(fig, sloMs)
  if (lag?.inDoubt) out.push({ code: 'lag-in-doubt', p99: fig.latency.p99, lagP99: lag.lagP99, sloMs })
  const lg = fig.outside?.loadGenerator
  if (lg?.saturated) out.push({ code: 'generator-saturated', utilisation: lg.utilisation })
  if (fig.probe?.failed) out.push({ code: 'probes-failed', count: fig.probe.failed })
  const noise = interference(fig.noise)
  if (noise.length) out.push({ code: 'disturbed', by: noise })
  return out
}

// The one verdict of a result as every output shows it: { trusted, status, reasons, contention } —
// failed, untrusted (with its reasons) or trusted; contention is a finding beside it, never a reason.
export function verdictOf (r) {
  const failed = r?.status === 'failed'
  const reasons = [
    ...(failed ? [r.failure?.reason ?? 'run failed'] : []),
    ...(Array.isArray(r?.untrusted) ? r.untrusted.filter((x) => x !== null && x !== undefined).map(String) : [])
  ]
  return {
    status: failed ? 'failed' : 'ok',
    trusted: !failed && r?.trusted !== false,
    reasons,
    contention: r?.contention ?? null
  }
}

// A step's arrivals against the process it asked for (result/rules.js FIT): Fisher's index of dispersion of the
// requests issued per bin (`counts`, binMs each, the last one whole), bins joined until they hold FIT.minPerBin
// on average: { binMs, bins, index (the variance over the mean), tail }, tail 'bunched' (burstier than Poisson),
// 'smooth' (smoother, judged for poisson arrivals only) or null; null with fewer than FIT.minBins bins.
export function arrivalFit (counts, { binMs, arrival }) {
  const total = counts.reduce((a, c) => a + c, 0)
  if (!(total > 0)) return null
  const join = Math.max(1, Math.ceil((FIT.minPerBin * counts.length) / total))
  const bins = []
  for (let i = 0; i + join <= counts.length; i += join) {
    let c = 0
    for (let j = i; j < i + join; j++) c += counts[j]
    bins.push(c)
  }
  if (bins.length < FIT.minBins) return null
  const mean = bins.reduce((a, c) => a + c, 0) / bins.length
  if (!(mean > 0)) return null
  const df = bins.length - 1
  const d = bins.reduce((a, c) => a + (c - mean) ** 2, 0) / mean
  const below = jstat().jStat.chisquare.cdf(d, df)
  const tail = 1 - below < FIT.alpha / 2 ? 'bunched' : arrival === 'poisson' && below < FIT.alpha / 2 ? 'smooth' : null
  return { binMs: binMs * join, bins: bins.length, index: roundTo(d / df, 3), tail }
}
