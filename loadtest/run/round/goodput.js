// Goodput of one open-loop round, from the load engine's per-request events (open-loop.js onResponse):
// a request is good when it was answered 2xx with the expected body within the target, counted from its
// due time. Each request falls in the 1 s window of its due time (what was offered then and what came
// of it), and each window keeps a small latency histogram of its answers, so the memory is bounded by
// the round's length (at most MAX_WINDOWS windows; later requests count in the totals only).
import { COARSE_DIGITS, createHistogram, encodeHistogram } from '../../result/histogram.js'
import { roundTo } from '../../result/stats.js'
import { isSuccess } from '../../result/requests.js'
import { WINDOW_MS } from '../../settings.js'

const MAX_WINDOWS = 600
// The statuses of a shed answer: the server said "not now" at once (503 Service Unavailable, 429).
const SHED_STATUSES = new Set([503, 429])

function emptyWindow () {
  return { offered: 0, good: 0, ok: 0, shed: 0, timeouts: 0, errors: 0, answered: null }
}

// An accumulator for a round at target `sloMs`: add(event) for each finished request; figures() the
// round's totals and its windows. `until` (optional) is told of every window that closes, in order.
export function createGoodput ({ sloMs, windowMs = WINDOW_MS, maxWindows = MAX_WINDOWS }) {
  const windows = []
  const shedLatency = createHistogram({ digits: COARSE_DIGITS })
  const answered = createHistogram({ digits: COARSE_DIGITS })
  const totals = { offered: 0, good: 0, ok: 0, shed: 0, timeouts: 0, errors: 0, goodWorkMs: 0, workMs: 0, beyond: 0 }
  const us = (ms) => Math.max(1, Math.round(ms * 1000))

  return {
    sloMs,
    windowMs,
    // One finished request (its event: dueMs, status, latencyMs, timeout, error, verified, workMs).
    add (e) {
      const i = Math.floor(e.dueMs / windowMs)
      let w = null
      if (i < maxWindows) {
        while (windows.length <= i) windows.push(emptyWindow())
        w = windows[i]
      } else totals.beyond++
      const count = (k) => {
        totals[k]++
        if (w) w[k]++
      }
      count('offered')
      if (e.timeout) return count('timeouts')
      if (e.error) return count('errors')
      answered.recordValue(us(e.latencyMs))
      if (w) (w.answered ??= createHistogram({ digits: COARSE_DIGITS })).recordValue(us(e.latencyMs))
      if (typeof e.workMs === 'number') totals.workMs += e.workMs
      if (SHED_STATUSES.has(e.status)) {
        count('shed')
        shedLatency.recordValue(us(e.latencyMs))
      } else if (isSuccess(e.status) && e.verified) {
        count('ok')
        if (e.latencyMs <= sloMs) {
          count('good')
          if (typeof e.workMs === 'number') totals.goodWorkMs += e.workMs
        }
      }
    },
    // Window i so far, light (no histogram encoded): { offered, good, p99 }, or null (none yet).
    window (i) {
      const w = windows[i]
      if (!w) return null
      return { offered: w.offered, good: w.good, p99: msAt(w.answered, 99) }
    },
    // The totals and the windows: { ...totals, shedP50, answeredP99, windows: [{ t, offered, good, shed,
    // timeouts, p99, histogram }] } (latencies in ms; a window's histogram encoded, null without answers).
    figures () {
      const ms = msAt
      return {
        ...totals,
        goodWorkMs: roundTo(totals.goodWorkMs, 3),
        workMs: roundTo(totals.workMs, 3),
        shedP50: ms(shedLatency, 50),
        answeredP99: ms(answered, 99),
        windowMs,
        windows: windows.map((w, i) => ({
          t: i * windowMs,
          offered: w.offered,
          good: w.good,
          ok: w.ok,
          shed: w.shed,
          timeouts: w.timeouts,
          errors: w.errors,
          p99: ms(w.answered, 99),
          histogram: w.answered ? encodeHistogram(w.answered) : null
        }))
      }
    }
  }
}

// A percentile of a microsecond histogram in ms; null without values.
function msAt (h, p) {
  return h && h.totalCount > 0 ? Math.round(h.getValueAtPercentile(p)) / 1000 : null
}
