// Whether a shard's counts can be believed before they are summed (`npm run merge`): they must agree with
// the shard's own histograms (every answered or timed-out request is one latency sample, every issued
// one a lag sample) and with its slice of the plan (the requests of the plan's schedule that are its
// own, a count the plan fixes exactly). A report whose counts were edited, or mixed from two runs, is
// refused in one line, not merged into a plan's figures.
import { decodeHistogram } from '../result/histogram.js'

// How many requests of the plan (`method`: rate, arrival, amount, durationSec) fall to shard `index` of
// `count` (request i to shard i mod count + 1, run/generate/schedule.js): { planned, spread }. Exact (spread 0)
// for an amount, or a constant rate, whose due times are i / rate; a Poisson plan's count over a duration
// is random, planned its mean and spread six standard deviations of it.
export function plannedSlice (method, { index, count }) {
  const share = (n) => Math.max(0, Math.ceil((n - (index - 1)) / count))
  if (method.amount !== null && method.amount !== undefined) return { planned: share(method.amount), spread: 0 }
  const durationMs = method.durationSec * 1000
  if ((method.arrival ?? 'constant') === 'constant') {
    const gapMs = 1000 / method.rate // due times i · gapMs < durationMs, computed as the schedule does
    let n = Math.ceil(durationMs / gapMs)
    while (n > 0 && (n - 1) * gapMs >= durationMs) n--
    while (n * gapMs < durationMs) n++
    return { planned: share(n), spread: 0 }
  }
  const mean = (method.rate * method.durationSec) / count
  return { planned: Math.round(mean), spread: Math.ceil((6 * Math.sqrt(method.rate * method.durationSec)) / count) + 1 }
}

// The number of samples in one of a result's encoded histograms, or null when it has none.
function samples (result, name) {
  const text = result.histograms?.[name]
  if (typeof text !== 'string' || text.length === 0) return null
  try {
    return decodeHistogram(text).totalCount
  } catch {
    return NaN // an unreadable histogram disagrees with every count
  }
}

// The first way a shard's counts disagree with its histograms or its slice of the plan (a sentence), or
// null. What may have been in flight when the round ended (its connection cap) is allowed for.
export function countsFault (report) {
  const r = report.results[0]
  if (r.status === 'failed' && !r.requests) return null // a shard that failed before it measured: no counts
  const q = r.requests ?? {}
  const counts = ['sent', 'completed', 'ok', 'non2xx', 'errors', 'timeouts', 'mismatches']
  const optional = ['protocolErrors', 'interim', 'dropped', 'unanswered'].filter((k) => q[k] !== undefined)
  const bad = [...counts, ...optional].find((k) => !Number.isInteger(q[k]) || q[k] < 0)
  if (bad) return `requests.${bad} is ${JSON.stringify(q[bad])}, not a count`
  const statuses = Object.values(r.statusCodes ?? {}).reduce((a, n) => a + n, 0)
  const ended = q.completed + q.errors + q.timeouts
  const unanswered = Math.max(0, q.sent - ended - (q.dropped ?? 0)) // as result/figures.js roundFigures counts it
  const latency = samples(r, 'latency')
  const lag = samples(r, 'lag')
  const service = samples(r, 'service')
  const checks = [
    [q.ok + q.non2xx === q.completed, () => `ok ${q.ok} + non-2xx ${q.non2xx} ≠ completed ${q.completed}`],
    [statuses === q.completed, () => `its status codes count ${statuses} answers, completed says ${q.completed}`],
    [q.mismatches <= q.ok, () => `mismatches ${q.mismatches} > ok ${q.ok}`],
    [ended <= q.sent, () => `completed ${q.completed} + errors ${q.errors} + timeouts ${q.timeouts} > sent ${q.sent}`],
    [latency === q.completed + q.timeouts, () => `its latency histogram holds ${latency ?? 'no'} samples, ` +
      `completed ${q.completed} + timeouts ${q.timeouts} = ${q.completed + q.timeouts}`],
    [lag === null || lag === q.sent, () => `its scheduler-lag histogram holds ${lag} samples, sent says ${q.sent}`],
    [service === null || service === q.completed,
      () => `its service histogram holds ${service} samples, completed says ${q.completed}`],
    [q.unanswered === undefined || q.unanswered === unanswered,
      () => `unanswered ${q.unanswered}, its counts say ${unanswered} (sent less ended and dropped)`]
  ]
  const failed = checks.find(([holds]) => !holds)
  return failed ? failed[1]() : planFault(report, q, ended)
}

// Against the plan: the open loop issues every request of its slice, never more, never fewer unless the
// round was cut short or failed; of those, no more than its connection cap may be left in flight.
function planFault (report, q, ended) {
  const m = report.method
  const r = report.results[0]
  const { planned, spread } = plannedSlice(m, m.shard)
  const whole = m.amount !== null && m.amount !== undefined
    ? `${m.amount} requests`
    : `${m.rate} req/s ` +
    `× ${m.durationSec} s`
  const plan = `${whole} ÷ ${m.shard.count}: ${spread ? `about ${planned} ± ${spread}` : planned}`
  if (q.sent > planned + spread) return `sent ${q.sent}, more than its slice of the plan (${plan})`
  const allowance = r.connections ?? m.connections ?? 0
  const cut = r.interrupted || r.status === 'failed' || report.status === 'partial'
  if (cut) return null
  if (q.sent < planned - spread) {
    return `sent ${q.sent}, short of its slice of the plan (${plan}) in a round ` +
    'not cut short'
  }
  if (ended < q.sent - allowance) {
    return `${q.sent - ended} of ${q.sent} requests never ended, more than the ${allowance} in flight allowed`
  }
  return null
}
