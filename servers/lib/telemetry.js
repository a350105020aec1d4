// What a process measures about its own main thread, for a window since the last reset: event-loop
// delay (perf_hooks histogram), event-loop utilisation, a 1 ms tick counter, and requests answered.
// The delay and the utilisation are given only where this runtime's instruments passed their check at
// start (instruments.js); otherwise they are null and `unmeasured` says why.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { now } from './task.js'
import { RESOLUTION, checkInstruments } from './instruments.js'

// Why an instrument's figures are null: its failed check, or no check yet.
export function unmeasuredOf (instruments) {
  if (!instruments) {
    return {
      eventLoop: 'the instrument check has not finished',
      elu: 'the instrument check has not finished'
    }
  }
  const out = {}
  if (!instruments.eventLoopDelay.trusted) out.eventLoop = instruments.eventLoopDelay.reason
  if (!instruments.elu.trusted) out.elu = instruments.elu.reason
  return out
}

// A telemetry recorder for this process; `enabled: false` keeps only the request counts. `ready`
// resolves once the instruments are checked (the server announces itself after it).
export function createTelemetry ({ enabled = true, role = 'main' } = {}) {
  const histogram = enabled ? monitorEventLoopDelay({ resolution: RESOLUTION }) : null
  histogram?.enable()
  let instruments = null
  const ready = enabled ? checkInstruments().then((c) => { instruments = c }) : Promise.resolve()
  let ticks = 0
  const timer = enabled
    ? setInterval(() => {
      ticks++
    }, 1).unref()
    : null
  let start, elu
  const requests = { completed: 0, failed: 0 }
  let taskSetups = 0

  const delay = (ns) => Math.max(0, ns / 1e6 - instruments.eventLoopDelay.offsetMs)
  const self = {
    enabled,
    ready,
    // Start a new window.
    reset () {
      start = now()
      histogram?.reset()
      elu = enabled ? performance.eventLoopUtilization() : null
      ticks = 0
      requests.completed = 0
      requests.failed = 0
      taskSetups = 0
    },
    // Count one answered work request.
    count (ok) {
      requests[ok ? 'completed' : 'failed']++
    },
    // Count one run of a task module's setup() (reported by the thread/process that ran it).
    countSetup () {
      taskSetups++
    },
    // This process's figures for the current window (null where telemetry is off or nothing was sampled).
    snapshot () {
      const unmeasured = enabled ? unmeasuredOf(instruments) : {}
      const sampled = enabled && histogram.count > 0 && !unmeasured.eventLoop
      return {
        pid: process.pid,
        role,
        windowMs: now() - start,
        eventLoop: sampled
          ? {
              p50: delay(histogram.percentile(50)),
              p99: delay(histogram.percentile(99)),
              max: delay(histogram.max),
              mean: delay(histogram.mean)
            }
          : null,
        elu: enabled && !unmeasured.elu ? performance.eventLoopUtilization(elu).utilization : null,
        ticks: enabled ? ticks : null,
        requests: { ...requests },
        taskSetups,
        unmeasured
      }
    },
    // Stop sampling (on shutdown).
    close () {
      clearInterval(timer)
      histogram?.disable()
    }
  }
  self.reset()
  return self
}

// The /__lab/stats answer: per-process snapshots plus worst-of delay, mean ELU, summed ticks and requests.
export function aggregate ({ strategy, variant, processes, gauges = {} }) {
  const loops = processes.map((p) => p.eventLoop).filter(Boolean)
  const worst = (k) => (loops.length ? Math.max(...loops.map((l) => l[k])) : null)
  const elus = processes.map((p) => p.elu).filter((e) => e !== null)
  const unmeasured = unmeasuredOver(processes)
  // on, trusted, and still no sample anywhere: say so rather than leave a bare null
  if (!loops.length && !unmeasured.eventLoop && processes.some((p) => p.ticks !== null)) {
    unmeasured.eventLoop = 'monitorEventLoopDelay took no sample in the window (its timer never ran: a loop busy ' +
      'throughout, or a window under 10 ms)'
  }
  const ticks = processes.map((p) => p.ticks).filter((t) => t !== null)
  return {
    strategy,
    ...(variant ? { variant } : {}),
    pid: process.pid,
    windowMs: Math.max(...processes.map((p) => p.windowMs)),
    processes,
    eventLoop: loops.length && !unmeasured.eventLoop
      ? { p50: worst('p50'), p99: worst('p99'), max: worst('max') }
      : null,
    elu: elus.length && !unmeasured.elu ? elus.reduce((a, b) => a + b, 0) / elus.length : null,
    // why eventLoop or elu is null although telemetry is on: a process's instrument failed its check
    unmeasured,
    ticks: ticks.length ? ticks.reduce((a, b) => a + b, 0) : null,
    requests: {
      completed: processes.reduce((a, p) => a + p.requests.completed, 0),
      failed: processes.reduce((a, p) => a + p.requests.failed, 0)
    },
    // setup() runs of a --task module in the window, wherever they ran (main, threads, children)
    taskSetups: processes.reduce((a, p) => a + (p.taskSetups ?? 0), 0),
    gauges
  }
}

// The instruments any process could not trust, with the first reason given: a figure over processes
// is null when one of them could not measure it (never a mean of the ones that could).
function unmeasuredOver (processes) {
  const out = {}
  for (const p of processes) {
    for (const [k, why] of Object.entries(p.unmeasured ?? {})) out[k] ??= why
  }
  return out
}
