// The open loop's trace (`LOADLAB_TRACE_GENERATOR=FILE`, or the bench's --trace): for one round, every
// late request with its lag, the GC pauses, the connection opens, the event loop's utilisation in 10 ms
// windows, and every send batch (how many requests one wake-up issued, and whether the timer or an answer
// woke it). Written as JSON when the round ends, with a summary that names what the late requests
// overlapped. Off, it costs the round one `if` per send batch.
import { writeFileSync } from 'node:fs'
import { PerformanceObserver, performance } from 'node:perf_hooks'

// What the trace counts as late (ms of scheduler lag): wrk2 states its own accuracy at about ±1 ms.
const LATE_MS = 1
// The loop-utilisation window (ms).
const ELU_WINDOW_MS = 10
// The environment variable that names the trace file (the first open-loop round of the process, or of
// each generator thread: FILE.g<k> for thread k).
export const TRACE_ENV = 'LOADLAB_TRACE_GENERATOR'

let envUsed = false

// The trace file a round should write: its own option, else the environment's for the first round.
export function traceFileFor (opts, threadIndex = null) {
  if (opts.trace) return opts.trace
  const file = process.env[TRACE_ENV]
  if (!file || envUsed) return null
  envUsed = true
  return threadIndex === null ? file : `${file}.g${threadIndex}`
}

// A trace recorder; times are ms on the round's clock (due time 0 = t0, performance.now() based).
export function createTrace (file) {
  const t = {
    file,
    t0: 0,
    late: [], // [dueMs, lagMs]
    batches: [], // [atMs, count, 'timer' | 'answer']
    opens: [], // ms a connection was opened (negative: before time zero)
    connected: [], // ms each connection opened ahead finished connecting (null: it failed)
    gc: [], // [startMs, durationMs, kind] (kind: 1 minor, 2 major, 4 incremental, 8 weak callbacks)
    elu: [], // [windowEndMs, loop utilisation, CPU time / wall time of the process in the window]
    observer: null,
    eluTimer: null,
    lastElu: null
  }
  t.observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) t.gc.push([e.startTime, e.duration, e.detail?.kind ?? e.kind ?? null])
  })
  t.observer.observe({ entryTypes: ['gc'] })
  return {
    // Due time 0 is `t0` (the connections opened ahead connected at `connectedAt`): start the windows.
    start (t0, connectedAt = []) {
      t.t0 = t0
      t.opens = t.opens.map((at) => at - t0) // recorded before t0 was known: on the round's clock now
      t.connected = connectedAt.map((at) => (at === null ? null : at - t0))
      t.lastElu = performance.eventLoopUtilization()
      t.lastCpu = process.cpuUsage()
      t.lastAt = performance.now()
      t.eluTimer = setInterval(() => {
        const now = performance.eventLoopUtilization()
        const cpu = process.cpuUsage(t.lastCpu)
        const at = performance.now()
        const share = (cpu.user + cpu.system) / 1000 / (at - t.lastAt)
        t.elu.push([at - t.t0, performance.eventLoopUtilization(now, t.lastElu).utilization, share])
        t.lastElu = now
        t.lastCpu = process.cpuUsage()
        t.lastAt = at
      }, ELU_WINDOW_MS)
    },
    opened () {
      t.opens.push(performance.now() - t.t0)
    },
    batch (atMs, count, source) {
      t.batches.push([atMs, count, source])
    },
    issued (dueMs, lagMs) {
      if (lagMs > LATE_MS) t.late.push([dueMs, lagMs])
    },
    // The round ended: stop observing and write the file; returns the summary.
    stop (extra = {}) {
      clearInterval(t.eluTimer)
      t.observer.disconnect()
      t.gc = t.gc.map(([at, d, kind]) => [at - t.t0, d, kind]) // observed on performance.now()'s clock
      const summary = summarizeTrace(t)
      const { late, batches, opens, connected, gc, elu } = t
      const trace = { kind: 'loadlab-generator-trace', lateMs: LATE_MS, eluWindowMs: ELU_WINDOW_MS, ...extra, summary }
      writeFileSync(t.file, JSON.stringify({ ...trace, late, batches, opens, connected, gc, elu }))
      return summary
    }
  }
}

// The window (of `elu`, sorted by end) that holds time `ms`, or null.
function windowAt (elu, ms) {
  let lo = 0
  let hi = elu.length - 1
  if (hi < 0 || ms > elu[hi][0]) return null
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (elu[mid][0] < ms) lo = mid + 1
    else hi = mid
  }
  const start = lo > 0 ? elu[lo - 1][0] : elu[lo][0] - ELU_WINDOW_MS
  return { end: elu[lo][0], start, util: elu[lo][1], cpu: elu[lo][2] }
}

// What each late request overlapped, in this order: a GC pause between its due time and its send; a
// loop window that was busy (utilisation ≥ 0.9) while the process got most of a core (CPU ≥ 0.7 of the
// wall time: the generator's own work); a busy window in which the process got less than half a core
// (it was runnable but the machine ran something else: descheduled); a mostly idle window (utilisation
// < 0.5: the loop was waiting for its timer and woke late, the OS's wake-up or the timer's 1 ms grain);
// a window longer than twice its length (the loop itself was held up); else none of these.
export function summarizeTrace ({ late, batches, opens, connected = [], gc, elu }) {
  const cause = { gc: 0, ownWork: 0, descheduled: 0, wokeLate: 0, heldUp: 0, other: 0 }
  for (const [due, lag] of late) {
    if (gc.some(([s, d]) => s < due + lag && s + d > due)) { cause.gc++; continue }
    const w = windowAt(elu, due)
    if (w === null) cause.other++
    else if (w.util >= 0.9 && w.cpu >= 0.7) cause.ownWork++
    else if (w.util >= 0.5 && w.cpu < 0.5) cause.descheduled++
    else if (w.util < 0.5) cause.wokeLate++
    else if (w.end - w.start > 2 * ELU_WINDOW_MS) cause.heldUp++
    else cause.other++
  }
  const busy = elu.filter(([, u]) => u >= 0.9)
  const sizes = batches.map((b) => b[1])
  const byAnswer = batches.filter((b) => b[2] === 'answer')
  return {
    lateRequests: late.length,
    worstLagMs: late.reduce((m, l) => Math.max(m, l[1]), 0),
    lateBy: cause,
    gcPauses: gc.length,
    gcMs: gc.reduce((a, g) => a + g[1], 0),
    gcMaxMs: gc.reduce((m, g) => Math.max(m, g[1]), 0),
    connectionsOpened: opens.length,
    openedAfterZero: opens.filter((o) => o >= 0).length,
    connectedBeforeZero: connected.filter((c) => c !== null && c < 0).length,
    busyWindows: busy.length,
    windows: elu.length,
    batches: batches.length,
    sentByAnswer: byAnswer.reduce((a, b) => a + b[1], 0),
    sentByTimer: sizes.reduce((a, b) => a + b, 0) - byAnswer.reduce((a, b) => a + b[1], 0),
    largestBatch: sizes.reduce((m, s) => Math.max(m, s), 0)
  }
}
