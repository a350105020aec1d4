// The open loop judged in two parts (pure). *Offered load kept*: the arrivals the server saw were the
// plan's — the issue rate within a tolerance in every 1 s window after the warm-up, the unsent backlog
// never more than that tolerance of a window, and the scheduler lag at a stated percentile under a stated
// limit after the warm-up. *Latency accuracy*: the generator's lag is inside every latency from the due
// time, so each reported percentile is shown with the lag's share of it. The rule before it (kept for
// comparison, `previousRule`) judged the whole round's lag p99 and its average issue rate.

// The offered-load rule's limits. windowTolerance: the issue rate of every window within this share of
// the schedule's (or one request, at low rates); backlogMs: the unsent backlog at any wake-up at most
// this much of the schedule (windowTolerance of a window: a backlog that size cannot move a window's
// count past the tolerance); lag: the scheduler lag's p99 after the warm-up under limitMs.
export const OFFERED_RULE = {
  windowTolerance: 0.02,
  backlogMs: 20,
  lagPercentile: 'p99',
  lagLimitMs: 5
}

// The previous rule: the whole round's lag p99 and its mean issue rate (round and every thread).
export const PREVIOUS_RULE = { lagP99LimitMs: 5, sendRateTolerance: 0.02 }

// Each window's { index, due, issued, error } (error: issued / due − 1, null without due). Requests
// issued after the last window that had any due (the round's last ones, late by their lag) count in it.
export function windowErrors ({ due = [], issued = [] }) {
  let last = due.length - 1
  while (last > 0 && !(due[last] > 0)) last--
  const out = []
  for (let i = 0; i <= last; i++) {
    const d = due[i] ?? 0
    let s = issued[i] ?? 0
    if (i === last) for (let j = i + 1; j < issued.length; j++) s += issued[j]
    out.push({ index: i, due: d, issued: s, error: d > 0 ? s / d - 1 : null })
  }
  return out
}

// Whether a window kept its rate: |issued − due| within the tolerance of due, or one request.
function windowKept (w, tolerance) {
  return Math.abs(w.issued - w.due) <= Math.max(tolerance * w.due, 1)
}

// The rule in words, as the bench and reports print it.
export function offeredRuleText (rule = OFFERED_RULE, warmupMs = null) {
  const after = warmupMs === null ? 'after the warm-up' : `after a ${warmupMs} ms warm-up`
  return `issue rate within ${rule.windowTolerance * 100} % in every 1 s window ${after}, unsent backlog ` +
    `at most ${rule.backlogMs} ms of the schedule, scheduler lag ${rule.lagPercentile} <= ${rule.lagLimitMs} ms ${after}`
}

// Was the offered load kept? `o` (a round, or one generator thread of it): { windows: { due, issued },
// peakBacklog (counting the request that woke the generator), rate (its own share, requests/s),
// lagJudged: { p99, ... } } → { kept, reasons, worstWindow, backlogMs }.
export function offeredLoad (o, rule = OFFERED_RULE) {
  const reasons = []
  const windows = windowErrors(o.windows ?? {})
  let worst = null
  for (const w of windows) {
    if (w.error !== null && (worst === null || Math.abs(w.error) > Math.abs(worst.error))) worst = w
    if (!windowKept(w, rule.windowTolerance)) {
      reasons.push(`window ${w.index + 1}: issued ${w.issued} of ${w.due} due` +
        (w.error === null ? '' : ` (${(w.error * 100).toFixed(1)} %)`))
    }
  }
  // the request that woke the generator is not behind: the backlog is what was due before it
  const backlogMs = o.rate > 0 ? (Math.max(0, (o.peakBacklog ?? 0) - 1) / o.rate) * 1000 : null
  if (backlogMs !== null && backlogMs > rule.backlogMs) {
    reasons.push(`unsent backlog ${o.peakBacklog} requests (${backlogMs.toFixed(1)} ms of the schedule) > ${rule.backlogMs} ms`)
  }
  const lag = o.lagJudged?.[rule.lagPercentile]
  if (lag > rule.lagLimitMs) {
    reasons.push(`scheduler lag ${rule.lagPercentile} ${lag} ms after the warm-up > ${rule.lagLimitMs} ms`)
  }
  return { kept: reasons.length === 0, reasons, worstWindow: worst, backlogMs }
}

// The previous rule on the same figures: { kept, reasons } from the whole round's lag p99 and issue rate.
export function previousRule (o, rule = PREVIOUS_RULE) {
  const reasons = []
  if (o.lag?.p99 > rule.lagP99LimitMs) reasons.push(`scheduler lag p99 ${o.lag.p99} ms > ${rule.lagP99LimitMs} ms`)
  if (typeof o.sendRateError === 'number' && Math.abs(o.sendRateError) > rule.sendRateTolerance) {
    reasons.push(`issue rate off by ${(o.sendRateError * 100).toFixed(1)} %`)
  }
  return { kept: reasons.length === 0, reasons }
}

// Latency accuracy: for each percentile of the latency (from the due time), the generator's lag at the
// same percentile and its share of it (an upper bound: the lag's tail is not always the same requests').
export function lagShare (latency, lag, percentiles = ['p50', 'p97_5', 'p99', 'p99_9']) {
  const out = {}
  for (const p of percentiles) {
    const l = latency?.[p]
    const g = lag?.[p]
    if (typeof l !== 'number' || typeof g !== 'number') continue
    out[p] = { latencyMs: l, lagMs: g, share: l > 0 ? Math.min(1, g / l) : null }
  }
  return out
}
