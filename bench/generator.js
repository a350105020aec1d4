// Bench part 3: the open-loop generator against autocannon on the same trivial server, in one run.
// autocannon's closed-loop maximum (its connections always busy) is the ceiling of what one Node
// process can push at this server; the generator's highest kept rate is the highest constant rate whose
// offered load it kept (result/trust.js offeredLoadKept on the generator's own windows: the issue rate
// within 2 % in every 1 s window after the warm-up and the unsent backlog bounded; and, the probe's own
// limit, lag p99 after the warm-up under 5 ms; every request answered),
// judged on the median of three probes, so that one stall does not decide a rate. The same probes are
// judged by the previous rule (the whole round's lag p99 ≤ 5 ms) beside it. Each kept rate shows the lag's
// share of its latency percentiles (latency accuracy). Then the open loop at its top rate for a long
// round, twice, shows the lab's memory stays flat. `trace` (a file) traces one probe at the lowest rate
// that failed above the highest kept one (run/generate/generator-trace.js): what the stalls were.
import { loadavg, uptime } from 'node:os'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { startServer } from '../loadtest/run/watch/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { fireGenerators } from '../loadtest/run/generate/generators.js'
import { WARMUP_MS } from '../loadtest/run/generate/open-loop.js'
import { roundFigures } from '../loadtest/result/figures.js'
import { offeredLoadKept } from '../loadtest/result/trust.js'
import { TRUST } from '../loadtest/result/rules.js'
import { reasonText } from '../loadtest/text/reasons.js'
import { WINDOW_MS } from '../loadtest/settings.js'
import { errorsOf } from '../loadtest/result/requests.js'
import { closedRound, loadOf } from './autocannon.js'

// Probes per rate; a rate is kept when the median probe keeps it (at least two of three).
const PROBES_PER_RATE = 3
// How far the ladder climbs past the first rate that fails (× that rate, one probe set each).
const ABOVE_FIRST_FAIL = [1.25, 1.5]

// autocannon's closed-loop maximum: own-timed 2xx answers per second over `durationSec` (or `amount`).
async function closedMax (url, opts, signal) {
  const { rps, requests, failed } = await closedRound(url, opts, signal)
  return { rps, requests, failed }
}

// The rule the bench applies, in words.
const RULE_TEXT = `issue rate within ${TRUST.sendRateTolerance * 100} % in every ${WINDOW_MS / 1000} s window ` +
  `after a ${WARMUP_MS} ms warm-up and unsent backlog within the same bound (result/trust.js offeredLoadKept), ` +
  `scheduler lag p99 <= ${TRUST.lagP99LimitMs} ms after the warm-up`
// The previous rule, judged beside it on the same probes.
const PREVIOUS_RULE = { lagP99LimitMs: 5, sendRateTolerance: 0.02 }
const PREVIOUS_RULE_TEXT = `scheduler lag p99 <= ${PREVIOUS_RULE.lagP99LimitMs} ms over the whole round, ` +
  `mean issue rate within ${PREVIOUS_RULE.sendRateTolerance * 100} %`

// The offered-load rule on one generator's figures (a round's fig.open, or one thread's): [reasons].
function offeredReasons (o) {
  const out = offeredLoadKept(o.windows ?? null, o).map(reasonText)
  const lag = o.lagAfterWarmup?.p99
  if (lag > TRUST.lagP99LimitMs) out.push(`scheduler lag p99 ${lag} ms after the warm-up > ${TRUST.lagP99LimitMs} ms`)
  return out
}

// The previous rule on the same figures: [reasons] from the whole round's lag p99 and mean issue rate.
function previousReasons (o) {
  const out = []
  if (o.lag?.p99 > PREVIOUS_RULE.lagP99LimitMs) out.push(`scheduler lag p99 ${o.lag.p99} ms > ${PREVIOUS_RULE.lagP99LimitMs} ms`)
  if (typeof o.sendRateError === 'number' && Math.abs(o.sendRateError) > PREVIOUS_RULE.sendRateTolerance) {
    out.push(`issue rate off by ${(o.sendRateError * 100).toFixed(1)} %`)
  }
  return out
}

// One probe's two verdicts: the offered-load rule on the round and on every thread, and the previous
// rule on the same; both need every request answered.
function judgeProbe (r, fig, generators) {
  const failed = errorsOf(fig.requests) + fig.requests.unanswered
  const parts = [{ who: 'round', open: fig.open }]
  for (const [k, t] of (fig.open.generators ?? []).entries()) parts.push({ who: `thread ${k + 1}/${generators}`, open: t })
  const reasons = (rule) => parts.flatMap((p) => rule(p.open).map((x) => `${p.who}: ${x}`))
  const answered = failed === 0 ? [] : [`${failed} requests failed or unanswered`]
  const newWhy = [...reasons(offeredReasons), ...answered]
  const oldWhy = [...reasons(previousReasons), ...answered]
  return { failed, kept: newWhy.length === 0, why: newWhy, keptBefore: oldWhy.length === 0, whyBefore: oldWhy }
}

// One open-loop probe at `rate` with `generators` threads, with what it cost this process: CPU µs a
// request (process CPU, the kernel's socket work included; every thread's) and GC ms (this thread's).
async function probe (url, rate, { durationSec, amount, generators, trace }, signal) {
  const duration = amount ? null : durationSec
  let gcMs = 0
  const gc = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMs += e.duration })
  gc.observe({ entryTypes: ['gc'] })
  const cpu0 = process.cpuUsage()
  let r
  try {
    r = await fireGenerators({ url, rate, durationSec: duration, amount, timeoutSec: 5, generators, signal, trace })
  } finally {
    gc.disconnect()
  }
  const cpu = process.cpuUsage(cpu0)
  const fig = roundFigures({ fire: r })
  const v = judgeProbe(r, fig, generators)
  return {
    rate,
    generators,
    lagP99: Math.max(fig.open.lag.p99, ...(fig.open.generators ?? []).map((g) => g.lag.p99)),
    lagJudgedP99: Math.max(...[fig.open, ...(fig.open.generators ?? [])].map((g) => g.lagAfterWarmup?.p99 ?? 0)),
    sendRate: fig.open.sendRate,
    // the worst issue-rate error of the round and of each thread (the previous rule judged every thread)
    sendError: [fig.open, ...(fig.open.generators ?? [])].map((g) => g.sendRateError ?? 0)
      .reduce((a, e) => (Math.abs(e) > Math.abs(a) ? e : a), 0),
    peakBacklog: r.peakBacklog,
    sentByAnswer: r.sentByAnswer,
    sent: r.sent,
    accuracy: fig.open.accuracy,
    cpuUsPerRequest: r.sent > 0 ? Math.round(((cpu.user + cpu.system) / r.sent) * 10) / 10 : null,
    gcMs: Math.round(gcMs * 10) / 10,
    trace: r.trace ?? null,
    ...v
  }
}

// The median of a rate's probes (by lag after the warm-up), and the verdicts of the majority.
function rateVerdict (rate, probes) {
  const kept = probes.filter((p) => p.kept).length
  const keptBefore = probes.filter((p) => p.keptBefore).length
  const sorted = probes.toSorted((a, b) => a.lagJudgedP99 - b.lagJudgedP99)
  return {
    rate,
    kept: kept * 2 > probes.length,
    keptBefore: keptBefore * 2 > probes.length,
    median: sorted[sorted.length >> 1],
    probes
  }
}

// The highest rate the generator keeps: double from `start` until a rate fails (halve first if `start`
// itself fails), climb ABOVE_FIRST_FAIL past it (and on, doubling, while those are kept), then bisect
// `steps` times between the highest kept rate and the lowest failing rate above it. The previous
// rule's highest kept rate is read from the same rates.
async function highestRate (url, { start, steps, durationSec, amount, generators, perRate }, signal, progress) {
  const rates = []
  const step = async (rate) => {
    const probes = []
    for (let i = 0; i < perRate; i++) probes.push(await probe(url, rate, { durationSec, amount, generators }, signal))
    const v = rateVerdict(rate, probes)
    rates.push(v)
    const m = v.median
    progress(`bench: open loop, ${generators} generator(s), ${rate} req/s: ` +
      `lag p99 ${probes.map((p) => p.lagJudgedP99).join('/')} ms after the warm-up (whole round ${probes.map((p) => p.lagP99).join('/')}), ` +
      `${v.kept ? 'kept' : `missed (${m.why.slice(0, 3).join('; ')})`}; previous rule ${v.keptBefore ? 'kept' : 'missed'}`)
    return v
  }
  let firstFail = null
  let rate = start
  while (!(await step(rate)).kept) { // a start that fails: halve (down to start / 16) until one is kept
    firstFail = rate
    if (rate / 2 < start / 16) break
    rate = Math.round(rate / 2)
  }
  const anyKept = rates.some((r) => r.kept)
  if (anyKept) {
    for (rate = start * 2; firstFail === null && rate <= 1e6; rate *= 2) if (!(await step(rate)).kept) firstFail = rate
  }
  if (anyKept && firstFail !== null && !amount) for (const f of ABOVE_FIRST_FAIL) await step(Math.round(firstFail * f))
  const lo = () => Math.max(0, ...rates.filter((r) => r.kept).map((r) => r.rate))
  const hi = () => Math.min(...rates.filter((r) => !r.kept && r.rate > lo()).map((r) => r.rate))
  // a rate above the first failure kept: climb on from it, doubling, until one fails above it
  if (anyKept && !amount) {
    for (rate = lo() * 2; !Number.isFinite(hi()) && rate <= 1e6; rate = lo() * 2) await step(rate)
  }
  for (let i = 0; i < steps && lo() > 0 && Number.isFinite(hi()); i++) await step(Math.round((lo() + hi()) / 2))
  const best = rates.find((r) => r.rate === lo()) ?? null
  const before = Math.max(0, ...rates.filter((r) => r.keptBefore).map((r) => r.rate))
  return {
    rps: lo(),
    rpsBefore: before,
    lowestFailAbove: Number.isFinite(hi()) ? hi() : null,
    generators,
    accuracy: best?.median.accuracy ?? null,
    cost: best ? { cpuUsPerRequest: best.median.cpuUsPerRequest, gcMs: best.median.gcMs } : null,
    rates,
    probes: rates.flatMap((r) => r.probes)
  }
}

// The lab's RSS over a long open-loop round at `rate` (the top kept rate): sampled every 500 ms.
async function memoryOverRound (url, { durationSec, rate }, signal) {
  const rss = []
  const t0 = performance.now()
  const sample = () => rss.push({ s: (performance.now() - t0) / 1000, mb: process.memoryUsage().rss / 2 ** 20 })
  const timer = setInterval(sample, 500)
  sample() // at the start: what the round before gave back
  try {
    const r = await fireGenerators({ url, rate, durationSec, timeoutSec: 10, signal })
    sample()
    const mid = rss.find((x) => x.s >= durationSec / 4) ?? rss[0]
    return {
      durationSec,
      rate,
      requests: r.completed,
      sent: r.sent,
      failed: r.sent - r.ok,
      timeouts: r.timeouts,
      dropped: r.dropped ?? 0, // due while the generator's waiting ring was full (open-loop.js MAX_WAITING)
      answeredShare: r.sent > 0 ? r.completed / r.sent : null,
      histogramBytes: r.latency.estimatedFootprintInBytes,
      rssMb: { atStart: rss[0].mb, atQuarter: mid.mb, atEnd: rss.at(-1).mb, peak: Math.max(...rss.map((x) => x.mb)) },
      // What the arrays of issue 8 would have held: three numbers a request.
      arraysWouldHoldMb: (r.completed * 3 * 8) / 2 ** 20
    }
  } finally {
    clearInterval(timer)
  }
}

// The machine's load averages (1, 5, 15 min) and uptime, recorded with the figures (a shared machine).
// The machine's own timer lag now: a bare setTimeout(fn, 1) loop for `ms`, how late it woke (ms):
// what no generator on this machine can beat (the issue's quiet figure: p50 0.13, p99 0.3 ms).
async function bareTimerLag (ms) {
  const lags = []
  const end = performance.now() + ms
  while (performance.now() < end) {
    const at = performance.now()
    await new Promise((resolve) => setTimeout(resolve, 1))
    lags.push(performance.now() - at - 1)
  }
  lags.sort((a, b) => a - b)
  const q = (p) => Math.round(lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] * 1000) / 1000
  return { samples: lags.length, p50: q(0.5), p99: q(0.99), p999: q(0.999), max: q(1) }
}

const machineLoad = () => ({
  uptimeSec: Math.round(uptime()),
  loadavg: loadavg().map((l) => Math.round(l * 100) / 100)
})

// Start the trivial server, measure autocannon, then the open loop on one thread and on `threads`
// generator threads, trace one failing probe (with `trace`), then the long rounds; always ends the server.
export async function runGenerator (settings, { signal, progress = () => {}, trace = null } = {}) {
  const { work, connections, durationSec, amount, start, steps, memorySec, memoryRounds = 2, threads } = settings
  const perRate = settings.perRate ?? PROBES_PER_RATE
  const loadBefore = machineLoad()
  const server = await startServer({
    entry: findServer('simple').entry,
    args: ['--work', work, '--telemetry', 'off'],
    signal
  })
  try {
    const url = `${server.url}/`
    progress(`bench: servers/simple --work ${work} listening on ${server.url} (pid ${server.pid}); ` +
      `load ${loadBefore.loadavg.join(' ')}`)
    await closedMax(url, { connections, durationSec: 1, amount: amount ? 50 : null }, signal) // warm-up, discarded
    const closed = await closedMax(url, { connections, durationSec, amount }, signal)
    progress(`bench: autocannon closed loop, ${connections} connections: ${closed.rps.toFixed(0)} req/s`)
    const timerLag = await bareTimerLag(amount ? 200 : 3000)
    progress(`bench: a bare setTimeout(fn, 1) loop woke late by p50 ${timerLag.p50}, p99 ${timerLag.p99}, ` +
      `p99.9 ${timerLag.p999} ms (${timerLag.samples} wake-ups)`)
    const ladder = { start, steps, durationSec, amount, perRate }
    const open = await highestRate(url, { ...ladder, generators: 1 }, signal, progress)
    const openThreads = threads > 1
      ? await highestRate(url, { ...ladder, generators: threads }, signal, progress)
      : null
    let traced = null
    if (trace && open.lowestFailAbove) {
      const p = await probe(url, open.lowestFailAbove, { durationSec, amount, generators: 1, trace }, signal)
      traced = { rate: p.rate, file: trace, kept: p.kept, why: p.why, summary: p.trace }
      progress(`bench: traced one probe at ${p.rate} req/s into ${trace}: ${JSON.stringify(p.trace)}`)
    }
    const memory = []
    const memoryRate = open.rps > 0 ? open.rps : start
    for (let i = 0; i < memoryRounds; i++) {
      const m = await memoryOverRound(url, { durationSec: memorySec, rate: memoryRate }, signal)
      memory.push(m)
      progress(`bench: memory ${i + 1}/${memoryRounds}: ${m.requests} requests at ${memoryRate} req/s in ${memorySec} s, ` +
        `answered ${(100 * m.answeredShare).toFixed(1)} %, ${m.timeouts} timeouts, ${m.dropped} dropped; lab RSS ` +
        `${m.rssMb.atStart.toFixed(0)} at its start, ${m.rssMb.atQuarter.toFixed(0)} → ${m.rssMb.atEnd.toFixed(0)} MB (peak ${m.rssMb.peak.toFixed(0)})`)
    }
    const ratio = (rps) => (closed.rps > 0 ? rps / closed.rps : null)
    return {
      ...loadOf({ work, connections, durationSec, amount }),
      warmupMs: WARMUP_MS,
      probesPerRate: perRate,
      closed,
      open,
      openThreads,
      ratio: ratio(open.rps),
      ratioBefore: ratio(open.rpsBefore),
      ratioThreads: openThreads ? ratio(openThreads.rps) : null,
      ratioThreadsBefore: openThreads ? ratio(openThreads.rpsBefore) : null,
      ratioOf: 'open-loop highest kept rate / autocannon closed-loop maximum',
      goal: 0.8,
      rule: {
        text: RULE_TEXT,
        lagP99LimitMs: TRUST.lagP99LimitMs,
        windowTolerance: TRUST.sendRateTolerance,
        windowMs: WINDOW_MS
      },
      previousRule: { text: PREVIOUS_RULE_TEXT, ...PREVIOUS_RULE },
      limits: { lagP99Ms: TRUST.lagP99LimitMs, sendRateTolerance: TRUST.sendRateTolerance },
      traced,
      timerLag,
      memory: memory[0],
      memoryRounds: memory,
      load: { before: loadBefore, after: machineLoad() },
      serverPid: server.pid
    }
  } finally {
    await server.stop({ graceMs: 5000 })
  }
}
