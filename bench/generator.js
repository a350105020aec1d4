// Bench part 3: the open-loop generator against autocannon on the same trivial server, in one run.
// autocannon's closed-loop maximum (its connections always busy) is the ceiling of what one Node
// process can push at this server; the generator's highest rate is the highest constant rate it still
// issues on schedule (scheduler lag p99 within the limit, issue rate within tolerance, every request
// answered), on the lab's own thread and with extra generator threads (--generators). Then a long closed
// round shows the lab's memory stays flat as requests pile up.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import { startServer } from '../loadtest/run/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { fireGenerators } from '../loadtest/run/generators.js'
import { fireRound } from '../loadtest/run/fire.js'
import { roundFigures } from '../loadtest/result/figures.js'
import { LAG_P99_LIMIT_MS, SEND_RATE_TOLERANCE, untrustedReasons } from '../loadtest/result/trust.js'

// autocannon's closed-loop maximum: own-timed 2xx answers per second over `durationSec` (or `amount`).
async function closedMax (url, { connections, durationSec, amount }, signal) {
  let first = Infinity
  let last = -Infinity
  const opts = { url, connections, ...(amount ? { amount } : { duration: durationSec }) }
  const instance = autocannon(opts)
  instance.on('response', (client, status, bytes, ms) => {
    const now = performance.now()
    first = Math.min(first, now - ms)
    last = now
  })
  const stop = () => instance.stop()
  signal?.addEventListener('abort', stop, { once: true })
  try {
    const result = await instance
    return {
      rps: result['2xx'] / ((last - first) / 1000),
      requests: result['2xx'],
      failed: result.non2xx + result.errors + result.timeouts
    }
  } finally {
    signal?.removeEventListener('abort', stop)
  }
}

// One open-loop probe at `rate` with `generators` threads: would the lab trust the round (every thread's
// lag p99 and issue rate within the limits, every request answered)?
async function probe (url, rate, { durationSec, amount, generators }, signal) {
  const duration = amount ? null : durationSec
  const r = await fireGenerators({ url, rate, durationSec: duration, amount, timeoutSec: 5, generators, signal })
  const fig = roundFigures({ fire: r })
  const why = untrustedReasons(fig)
  return {
    rate,
    generators,
    lagP99: Math.max(fig.open.lag.p99, ...(fig.open.generators ?? []).map((g) => g.lag.p99)),
    sendRate: fig.open.sendRate,
    // the worst issue-rate error of the round and of each thread (the trust rule judges every thread)
    sendError: [fig.open, ...(fig.open.generators ?? [])].map((g) => g.sendRateError ?? 0)
      .reduce((a, e) => (Math.abs(e) > Math.abs(a) ? e : a), 0),
    sent: r.sent,
    failed: r.errors + r.timeouts + r.non2xx + fig.requests.mismatches + fig.requests.unanswered,
    kept: why.length === 0,
    why
  }
}

// The highest rate the generator keeps: double from `start` until a probe fails, then bisect `steps` times.
async function highestRate (url, { start, steps, durationSec, amount, generators }, signal, progress) {
  const probes = []
  const bounds = { lo: 0, hi: null }
  const step = async (rate) => {
    const p = await probe(url, rate, { durationSec, amount, generators }, signal)
    probes.push(p)
    progress(`bench: open loop, ${generators} generator(s), ${rate} req/s: lag p99 ${p.lagP99} ms, ` +
      `${p.kept ? 'kept' : `missed (${p.why.join('; ')})`}`)
    if (p.kept) bounds.lo = rate
    else bounds.hi = rate
  }
  for (let rate = start; bounds.hi === null && rate <= 1e6; rate *= 2) await step(rate)
  for (let i = 0; i < steps && bounds.hi !== null && bounds.lo > 0; i++) {
    await step(Math.round((bounds.lo + bounds.hi) / 2))
  }
  const lo = bounds.lo
  return { rps: lo, generators, probes }
}

// The lab's RSS while one long closed-loop round records every latency into its histograms.
async function memoryOverRound (url, { durationSec, connections }, signal) {
  const rss = []
  const t0 = performance.now()
  const timer = setInterval(
    () => rss.push({ s: (performance.now() - t0) / 1000, mb: process.memoryUsage().rss / 2 ** 20 }),
    500
  )
  try {
    const r = await fireRound({ url, connections, durationSec, timeoutSec: 10, signal })
    rss.push({ s: (performance.now() - t0) / 1000, mb: process.memoryUsage().rss / 2 ** 20 })
    const mid = rss.find((x) => x.s >= durationSec / 4) ?? rss[0]
    return {
      durationSec,
      requests: r.completed,
      histogramBytes: r.latency.estimatedFootprintInBytes,
      rssMb: { atQuarter: mid.mb, atEnd: rss.at(-1).mb, peak: Math.max(...rss.map((x) => x.mb)) },
      // What the arrays of issue 8 would have held: three numbers a request.
      arraysWouldHoldMb: (r.completed * 3 * 8) / 2 ** 20
    }
  } finally {
    clearInterval(timer)
  }
}

// Start the trivial server, measure autocannon, then the open loop on one thread and on `threads`
// generator threads, then the long round; always ends the server.
export async function runGenerator (
  { work, connections, durationSec, amount, start, steps, memorySec, threads },
  { signal, progress = () => {} } = {}
) {
  const server = await startServer({
    entry: findServer('simple').entry,
    args: ['--work', work, '--telemetry', 'off'],
    signal
  })
  try {
    const url = `${server.url}/`
    progress(`bench: servers/simple --work ${work} listening on ${server.url} (pid ${server.pid})`)
    await closedMax(url, { connections, durationSec: 1, amount: amount ? 50 : null }, signal) // warm-up, discarded
    const closed = await closedMax(url, { connections, durationSec, amount }, signal)
    progress(`bench: autocannon closed loop, ${connections} connections: ${closed.rps.toFixed(0)} req/s`)
    const probe = { start, steps, durationSec, amount }
    const open = await highestRate(url, { ...probe, generators: 1 }, signal, progress)
    const openThreads = await highestRate(url, { ...probe, generators: threads }, signal, progress)
    const memory = await memoryOverRound(url, { durationSec: memorySec, connections }, signal)
    progress(
      `bench: ${memory.requests} requests in ${memorySec} s, lab RSS ${memory.rssMb.atQuarter.toFixed(0)} → ${memory.rssMb.atEnd.toFixed(0)} MB`
    )
    const ratio = (o) => (closed.rps > 0 ? o.rps / closed.rps : null)
    return {
      server: 'simple',
      work,
      connections,
      durationSec,
      amount,
      closed,
      open,
      openThreads,
      ratio: ratio(open),
      ratioThreads: ratio(openThreads),
      ratioOf: 'open-loop highest kept rate / autocannon closed-loop maximum',
      goal: 0.8,
      limits: { lagP99Ms: LAG_P99_LIMIT_MS, sendRateTolerance: SEND_RATE_TOLERANCE },
      memory,
      serverPid: server.pid
    }
  } finally {
    await server.stop({ graceMs: 5000 })
  }
}
