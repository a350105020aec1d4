// What a process measures about its own main thread, for a window since the last reset: event-loop
// delay (perf_hooks histogram), event-loop utilisation, a 1 ms tick counter, and requests answered.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { now } from './task.js'

const RESOLUTION = 10 // ms; the histogram records the whole timer interval, so this is subtracted

// A telemetry recorder for this process; `enabled: false` keeps only the request counts.
export function createTelemetry ({ enabled = true, role = 'main' } = {}) {
  const histogram = enabled ? monitorEventLoopDelay({ resolution: RESOLUTION }) : null
  histogram?.enable()
  let ticks = 0
  const timer = enabled
    ? setInterval(() => {
      ticks++
    }, 1).unref()
    : null
  let start, elu
  const requests = { completed: 0, failed: 0 }
  let taskSetups = 0

  const delay = (ns) => Math.max(0, ns / 1e6 - RESOLUTION)
  const self = {
    enabled,
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
      const sampled = enabled && histogram.count > 0
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
        elu: enabled ? performance.eventLoopUtilization(elu).utilization : null,
        ticks: enabled ? ticks : null,
        requests: { ...requests },
        taskSetups
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
  const ticks = processes.map((p) => p.ticks).filter((t) => t !== null)
  return {
    strategy,
    ...(variant ? { variant } : {}),
    pid: process.pid,
    windowMs: Math.max(...processes.map((p) => p.windowMs)),
    processes,
    eventLoop: loops.length ? { p50: worst('p50'), p99: worst('p99'), max: worst('max') } : null,
    elu: elus.length ? elus.reduce((a, b) => a + b, 0) / elus.length : null,
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
