// What else took the machine during a round: steal (the host ran other guests on our cores), the CPU of
// processes that are neither the lab nor the server's tree (other work on the machine), and the work
// itself running slower than calibrated. The /proc/stat parsing and the arithmetic are pure; only
// readMachine() reads the file (null where there is no /proc).
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { roundTo } from '../../result/stats.js'
import { summarizeHistogram } from '../../result/histogram.js'
import { clockTicksPerSecond } from './sample.js'

// The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal guest guest_nice",
// in clock ticks, summed over CPUs) as { busy, idle, steal, total }; null when the text has no such line.
// guest and guest_nice are already inside user and nice, so they are not added again.
export function parseProcStat (text) {
  const line = String(text ?? '').split('\n').find((l) => /^cpu\s/.test(l))
  if (!line) return null
  const f = line.trim().split(/\s+/).slice(1).map(Number)
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return null
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = f
  const busy = user + nice + system + irq + softirq
  return { busy, idle: idle + iowait, steal, total: busy + idle + iowait + steal }
}

// Steal as a share of all CPU time between two parsed /proc/stat texts (percent); null when unknown.
export function stealPercent (a, b) {
  if (!a || !b) return null
  const total = b.total - a.total
  return total > 0 ? roundTo(((b.steal - a.steal) / total) * 100, 2) : null
}

// The machine's busy CPU between two parsed /proc/stat texts, in cores (ticks at clockTicks a second).
export function busyCores (a, b, { wallMs, clockTicks = 100 }) {
  if (!a || !b || !(wallMs > 0)) return null
  return (b.busy - a.busy) / clockTicks / (wallMs / 1000)
}

// CPU seconds over a wall time, in cores (null when either is unknown).
function coresOf (cpuSeconds, wallMs) {
  return typeof cpuSeconds === 'number' && wallMs > 0 ? cpuSeconds / (wallMs / 1000) : null
}

// The noise of a round from its two /proc/stat readings and what the lab knows it used itself:
// { stealPct, foreignCores, workInflation, inFlight, treeCores, labCores, cores } (each null when it
// cannot be known). foreignCores: the machine's busy cores less the lab's (labCpuSeconds) and the server
// tree's (serverCpuSeconds), never below 0 (clock ticks round); workInflation: the round's median
// Server-Timing work time ÷ the calibrated service time; inFlight: the mean units of work running at
// once (Little's law: the summed work time of the round ÷ its wall time, workSumMs over roundMs);
// treeCores and labCores: the server tree's and the lab's CPU in cores; cores: the machine's. The last
// four let result/trust.js tell the strategy's own contention from interference.
export function noiseOf ({
  start, end, wallMs, clockTicks, labCpuSeconds, serverCpuSeconds, workMs, serviceMs,
  workSumMs = null, roundMs = wallMs, cores = null
}) {
  const busy = busyCores(start, end, { wallMs, clockTicks })
  const lab = coresOf(labCpuSeconds, roundMs)
  const tree = coresOf(serverCpuSeconds, roundMs)
  const own = busy !== null && lab !== null && tree !== null
    ? (labCpuSeconds + serverCpuSeconds) / (wallMs / 1000)
    : null
  const r3 = (x) => (x === null ? null : roundTo(x, 3))
  return {
    stealPct: stealPercent(start, end),
    foreignCores: own === null ? null : roundTo(Math.max(0, busy - own), 3),
    workInflation: workMs > 0 && serviceMs > 0 ? roundTo(workMs / serviceMs, 3) : null,
    inFlight: workSumMs > 0 && roundMs > 0 ? r3(workSumMs / roundMs) : null,
    treeCores: r3(tree),
    labCores: r3(lab),
    cores: cores > 0 ? cores : null
  }
}

// The machine's CPU counters now (parsed /proc/stat) and when they were read; null where there is no /proc.
export function readMachine (read = readFileSync) {
  let text
  try {
    text = read('/proc/stat', 'latin1')
  } catch {
    return null
  }
  const parsed = parseProcStat(text)
  return parsed ? { ...parsed, atMs: performance.now() } : null
}

// Watch one round's noise from now: end() takes the round's outside figures (sample.js: the server
// tree's CPU and the lab's own since the sampler started), its Server-Timing work histogram and the
// calibrated service time, and gives noiseOf's figures (steal and foreign cores null without /proc;
// foreignCores, treeCores and labCores null without the outside figures).
export function noiseWatch ({ cores = availableParallelism() } = {}) {
  const start = readMachine()
  const startMs = performance.now()
  return {
    end ({ outside, workMs, serviceMs }) {
      const end = start ? readMachine() : null
      const work = workMs?.totalCount ? summarizeHistogram(workMs) : null
      return noiseOf({
        start,
        end,
        wallMs: end ? end.atMs - start.atMs : null,
        roundMs: performance.now() - startMs,
        clockTicks: clockTicksPerSecond(),
        labCpuSeconds: outside?.loadGenerator?.cpuSeconds ?? null,
        serverCpuSeconds: outside?.cpuSeconds ?? null,
        workMs: work?.p50 ?? null,
        workSumMs: work ? work.mean * work.count : null,
        serviceMs,
        cores
      })
    }
  }
}
