// Whether a shard's figures can be believed before they are added (`npm run merge`, loadlab fanout): its
// rate against its counts and duration, its percentiles against its own latency histogram (its lag too),
// its schedule's rate against its slice of the plan, its classes
// against the plan's mix by name and against its counts, its timeline within its own span. Nothing a
// shard says is merged on its word: each check is a sentence naming what disagrees, or null. Pure.
import { decodeHistogram, summarizeHistogram } from '../result/histogram.js'

// How far a shown rate may be from completed ÷ duration (req/s): the report rounds it to 3 decimals.
const RATE_SLACK = 0.002
// How far a shown percentile may be from its histogram's (ms): the histogram's own precision (3
// significant digits, 0.1 %) and the report's rounding to the µs.
const PCT_REL = 1e-3
const PCT_ABS = 0.002
// The percentiles of a latency summary checked against the histogram.
const CHECKED = ['p50', 'p99', 'max']
// A timeline's points past its plan: the plan's length, twice its request timeout (a round ends with
// what is in flight), its recovery's timeout and a minute of grace; past it a point is refused (a point
// at t = 1e13 would otherwise ask the merge for 10^11 slots). Its interval is at least MIN_INTERVAL_MS.
const TIMELINE_GRACE_MS = 60_000
const MIN_INTERVAL_MS = 1
// A status code as the lab counts it: three digits.
const STATUS = /^[1-5]\d\d$/

const isCount = (n) => Number.isInteger(n) && n >= 0

// The histogram of an encoded string, or a sentence saying why it is not one.
function decoded (text, what) {
  try {
    return { h: decodeHistogram(text) }
  } catch (err) {
    return { fault: `its ${what} histogram is unreadable (${String(err.message).split('\n')[0]})` }
  }
}

// A shown latency summary against its histogram's: the first percentile that disagrees, or null.
function percentileFault (latency, h, what) {
  const own = summarizeHistogram(h)
  for (const k of CHECKED) {
    const said = latency?.[k]
    const is = own[k]
    if (is === null && (said === null || said === undefined)) continue
    if (typeof said !== 'number' || !Number.isFinite(said) || Math.abs(said - is) > PCT_ABS + PCT_REL * Math.abs(is)) {
      return `${what} ${k} ${JSON.stringify(said)} ms, its histogram says ${is} ms`
    }
  }
  return null
}

// A shown rate against completed ÷ duration: a sentence, or null.
function rateFault (rps, completed, durationMs, what) {
  if (!(typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs > 0)) {
    return `its durationMs is ${JSON.stringify(durationMs)}, not a duration`
  }
  const is = (completed * 1000) / durationMs
  if (typeof rps !== 'number' || !Number.isFinite(rps) || Math.abs(rps - is) > RATE_SLACK + 1e-9 * is) {
    return `${what} ${JSON.stringify(rps)} req/s, its counts say ${round3(is)} (${completed} answered ` +
      `in ${durationMs} ms)`
  }
  return null
}

const round3 = (x) => Math.round(x * 1000) / 1000

// The shard's round against itself: status codes, rate, percentiles.
function roundFault (r) {
  const bad = Object.keys(r.statusCodes ?? {}).find((code) => !STATUS.test(code))
  if (bad !== undefined) return `its status codes hold ${JSON.stringify(bad)}, not an HTTP status`
  const rate = rateFault(r.rps, r.requests.completed, r.durationMs, 'its rate')
  if (rate) return rate
  const { h, fault } = decoded(r.histograms?.latency, 'latency')
  return fault ?? percentileFault(r.latency, h, 'its latency')
}

// The shard's classes against the plan's mix (`mix`: method.mix, or null) and against its own counts.
function classesFault (r, mix) {
  const names = (mix?.classes ?? []).map((c) => c?.name)
  const classes = r.classes
  if (!mix) return classes === undefined || classes === null ? null : 'it has classes, its plan has no mix'
  if (!Array.isArray(classes)) return 'its plan has a mix, it has no classes'
  const got = classes.map((c) => c?.name)
  if (got.length !== names.length || new Set(got).size !== got.length || !names.every((n) => got.includes(n))) {
    return `its classes ${JSON.stringify(got)} are not its mix's ${JSON.stringify(names)}`
  }
  const fields = ['sent', 'completed', 'ok', 'non2xx', 'errors', 'timeouts', 'mismatches']
  for (const c of classes) {
    const q = c.requests ?? {}
    const odd = fields.find((f) => !isCount(q[f]))
    if (odd) return `class ${c.name}: requests.${odd} is ${JSON.stringify(q[odd])}, not a count`
    const { h, fault } = decoded(c.histogram, `class ${c.name}'s`)
    if (fault) return fault
    if (h.totalCount !== q.completed + q.timeouts) {
      return `class ${c.name}'s histogram holds ${h.totalCount} samples, completed ${q.completed} + ` +
        `timeouts ${q.timeouts}`
    }
    const own = percentileFault(c.latency, h, `class ${c.name}'s latency`) ??
      rateFault(c.rps, q.completed, r.durationMs, `class ${c.name}'s rate`)
    if (own) return own
  }
  for (const f of fields) {
    const sum = classes.reduce((a, c) => a + c.requests[f], 0)
    if (sum !== r.requests[f]) return `its classes' ${f} add up to ${sum}, the round's is ${r.requests[f]}`
  }
  return null
}

// The shard's open loop: its lag against its lag histogram, its schedule's rate against its slice of the
// plan (constant arrivals: rate ÷ N exactly), its send rate's error against its two rates.
function openFault (r, method) {
  const o = r.open
  if (!o) return null
  if (r.histograms?.lag) {
    const { h, fault } = decoded(r.histograms.lag, 'scheduler-lag')
    const lag = fault ?? percentileFault(o.lag, h, 'its scheduler lag')
    if (lag) return lag
  }
  const finite = (v) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= -1)
  const odd = ['scheduledRate', 'sendRate', 'sendRateError'].find((k) => !finite(o[k] ?? null))
  if (odd) return `its open loop's ${odd} is ${JSON.stringify(o[odd])}`
  const slice = method.rate / method.shard.count
  if ((method.arrival ?? 'constant') === 'constant' && o.scheduledRate !== null && o.scheduledRate !== undefined &&
    Math.abs(o.scheduledRate - slice) > RATE_SLACK + 1e-4 * slice) {
    return `its schedule's rate ${o.scheduledRate} req/s, its slice of the plan ${round3(slice)}`
  }
  if (o.sendRate && o.scheduledRate && typeof o.sendRateError === 'number' &&
    Math.abs(o.sendRateError - (o.sendRate / o.scheduledRate - 1)) > 2e-4) {
    return `its send rate's error ${o.sendRateError}, its rates say ${round3(o.sendRate / o.scheduledRate - 1)}`
  }
  return null
}

// How far (ms from the common start) a shard's timeline may reach: see TIMELINE_GRACE_MS.
export function timelineLimitMs (method) {
  const planMs = (method.amount ?? null) !== null ? (method.amount / method.rate) * 1000 : method.durationSec * 1000
  const timeoutMs = (method.timeoutSec ?? 0) * 1000
  const recoveryMs = (method.recovery?.timeoutSec ?? 0) * 1000
  return planMs + 2 * timeoutMs + recoveryMs + TIMELINE_GRACE_MS
}

// The shard's timeline: an interval, points within its span, counts, readable histograms.
function timelineFault (r, limitMs) {
  const t = r.timeline
  if (t === null || t === undefined) return null
  if (typeof t !== 'object' || !Array.isArray(t.points)) return 'its timeline has no points'
  const iv = t.intervalMs
  if (typeof iv !== 'number' || !Number.isFinite(iv) || iv < MIN_INTERVAL_MS || iv > limitMs) {
    return `its timeline's intervalMs is ${JSON.stringify(iv)}, not an interval of its plan`
  }
  if (t.points.length > limitMs / iv + 1) return `its timeline has ${t.points.length} points, more than its plan spans`
  for (const p of t.points) {
    const at = p?.t
    if (typeof at !== 'number' || !Number.isFinite(at) || at < 0 || at > limitMs) {
      return `its timeline has a point at t ${JSON.stringify(at)}, outside its plan (0 to ${Math.round(limitMs)} ms)`
    }
    const odd = ['sent', 'completed', 'ok', 'non2xx', 'timeouts', 'errors']
      .find((k) => p[k] !== undefined && !isCount(p[k]))
    if (odd) return `its timeline's point at t ${at}: ${odd} is ${JSON.stringify(p[odd])}, not a count`
    if (p.histogram !== null && p.histogram !== undefined) {
      const { fault } = decoded(p.histogram, `timeline's t ${at}`)
      if (fault) return fault
    }
  }
  return null
}

// The first way a shard's figures disagree with its counts, its histograms or its plan (a sentence), or
// null. Run after countsFault (counts.js), which checks the counts themselves.
export function figuresFault (report) {
  const r = report.results[0]
  if (r.status === 'failed' && !r.requests) return null
  return roundFault(r) ?? openFault(r, report.method) ?? classesFault(r, report.method.mix ?? null) ??
    timelineFault(r, timelineLimitMs(report.method))
}
