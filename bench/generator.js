// Bench part 3: the open-loop generator against autocannon on the same trivial server, in one run.
// autocannon's closed-loop maximum (its connections always busy) is the ceiling of what one Node
// process can push at this server; the generator's highest rate is the highest constant rate it still
// issues on schedule (scheduler lag p99 within the limit, issue rate within tolerance, every request
// answered). Then a long closed round shows the lab's memory stays flat as requests pile up.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import { startServer } from '../loadtest/run/boot.js'
import { findServer } from '../loadtest/catalog.js'
import { fireOpenLoop } from '../loadtest/run/open-loop.js'
import { fireRound } from '../loadtest/run/fire.js'
import { summarizeHistogram } from '../loadtest/result/histogram.js'
import { LAG_P99_LIMIT_MS, SEND_RATE_TOLERANCE } from '../loadtest/result/trust.js'

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

// One open-loop probe at `rate`: did the generator keep the schedule?
async function probe (url, rate, { durationSec, amount }, signal) {
  const r = await fireOpenLoop({ url, rate, durationSec: amount ? null : durationSec, amount, timeoutSec: 5, signal })
  const lag = summarizeHistogram(r.lag)
  const sendRate = (r.sent - 1) / ((r.lastIssueMs - r.firstIssueMs) / 1000)
  const scheduled = (r.sent - 1) / (r.lastDueMs / 1000)
  const sendError = sendRate / scheduled - 1
  const failed = r.errors + r.timeouts + r.non2xx
  const kept =
    lag.p99 <= LAG_P99_LIMIT_MS && Math.abs(sendError) <= SEND_RATE_TOLERANCE && failed === 0 && r.completed === r.sent
  return { rate, lagP99: lag.p99, sendRate, sendError, sent: r.sent, failed, kept }
}

// The highest rate the generator keeps: double from `start` until a probe fails, then bisect `steps` times.
async function highestRate (url, { start, steps, durationSec, amount }, signal, progress) {
  const probes = []
  let lo = 0
  let hi = null
  for (let rate = start; hi === null && rate <= 1e6; rate *= 2) {
    const p = await probe(url, rate, { durationSec, amount }, signal)
    probes.push(p)
    progress(`bench: open loop at ${rate} req/s: lag p99 ${p.lagP99} ms, ${p.kept ? 'kept' : 'missed'} the schedule`)
    if (p.kept) lo = rate
    else hi = rate
  }
  for (let i = 0; i < steps && hi !== null && lo > 0; i++) {
    const rate = Math.round((lo + hi) / 2)
    const p = await probe(url, rate, { durationSec, amount }, signal)
    probes.push(p)
    progress(`bench: open loop at ${rate} req/s: lag p99 ${p.lagP99} ms, ${p.kept ? 'kept' : 'missed'} the schedule`)
    if (p.kept) lo = rate
    else hi = rate
  }
  return { rps: lo, probes }
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

// Start the trivial server, measure both sides, then the long round; always ends the server.
export async function runGenerator (
  { work, connections, durationSec, amount, start, steps, memorySec },
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
    const open = await highestRate(url, { start, steps, durationSec, amount }, signal, progress)
    const memory = await memoryOverRound(url, { durationSec: memorySec, connections }, signal)
    progress(
      `bench: ${memory.requests} requests in ${memorySec} s, lab RSS ${memory.rssMb.atQuarter.toFixed(0)} → ${memory.rssMb.atEnd.toFixed(0)} MB`
    )
    return {
      server: 'simple',
      work,
      connections,
      durationSec,
      amount,
      closed,
      open,
      ratio: closed.rps > 0 ? open.rps / closed.rps : null,
      ratioOf: 'open-loop highest kept rate / autocannon closed-loop maximum',
      limits: { lagP99Ms: LAG_P99_LIMIT_MS, sendRateTolerance: SEND_RATE_TOLERANCE },
      memory,
      serverPid: server.pid
    }
  } finally {
    await server.stop({ graceMs: 5000 })
  }
}
