// What else took the machine during a round: steal (the host ran other guests on our cores), the CPU of
// processes that are neither the lab nor the server's tree (other work on the machine, its top consumers
// named), the kernel's own interrupt work (irq, softirq: loopback traffic is mostly this) kept apart, and
// the work itself running slower than calibrated. The /proc parsing and the arithmetic are pure; only
// readMachine() and readProcesses() read files (null or empty where there is no /proc).
import { readFileSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { roundTo } from '../../result/stats.js'
import { summarizeHistogram } from '../../result/histogram.js'
import { clockTicksPerSecond } from './sample.js'

// The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal guest guest_nice",
// in clock ticks, summed over CPUs) as { busy, idle, steal, total, kernel }; null when the text has no such
// line. guest and guest_nice are already inside user and nice, so they are not added again; kernel is
// irq + softirq (inside busy): the kernel's interrupt work, no process's.
export function parseProcStat (text) {
  const line = String(text ?? '').split('\n').find((l) => /^cpu\s/.test(l))
  if (!line) return null
  const f = line.trim().split(/\s+/).slice(1).map(Number)
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return null
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = f
  const busy = user + nice + system + irq + softirq
  return { busy, idle: idle + iowait, steal, total: busy + idle + iowait + steal, kernel: irq + softirq }
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

// The kernel's interrupt work (irq + softirq) between two parsed /proc/stat texts, in cores.
export function kernelCores (a, b, { wallMs, clockTicks = 100 }) {
  if (typeof a?.kernel !== 'number' || typeof b?.kernel !== 'number' || !(wallMs > 0)) return null
  return (b.kernel - a.kernel) / clockTicks / (wallMs / 1000)
}

// One /proc/PID/stat line as { pid, name, ppid, ticks } (ticks: utime + stime); null when unreadable.
// The name is in parentheses and may hold spaces or parentheses: the fields follow its last ')'.
export function parsePidStat (text) {
  const t = String(text ?? '')
  const open = t.indexOf('(')
  const close = t.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const f = t.slice(close + 2).trim().split(/\s+/)
  const ticks = Number(f[11]) + Number(f[12])
  const ppid = Number(f[1])
  if (!Number.isFinite(ticks) || !Number.isFinite(ppid)) return null
  return { pid: Number(t.slice(0, open)), name: t.slice(open + 1, close), ppid, ticks }
}

// Every process's CPU ticks now: Map pid → { name, ppid, ticks }; empty without /proc. A process that
// ends while it is read is skipped.
export function readProcesses ({ readdir = readdirSync, read = readFileSync } = {}) {
  const out = new Map()
  let names = []
  try {
    names = readdir('/proc')
  } catch {
    return out
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      const p = parsePidStat(read(`/proc/${name}/stat`, 'latin1'))
      if (p) out.set(p.pid, p)
    } catch {}
  }
  return out
}

// The other processes named: at most TOP_FOREIGN names, each at least MIN_FOREIGN_CORES.
export const TOP_FOREIGN = 3
const MIN_FOREIGN_CORES = 0.01

// The processes that used the most CPU between two readings (readProcesses), grouped by name, leaving out
// the `exclude` pids (the lab, the server's tree) and their children: [{ name, cores, processes }], the
// busiest first. A process started during the round counts all its ticks; one that ended is not seen.
export function topConsumers (before, after, { wallMs, clockTicks = 100, exclude = new Set() }) {
  if (!(wallMs > 0) || !after?.size) return []
  const byName = new Map()
  for (const p of after.values()) {
    if (exclude.has(p.pid) || exclude.has(p.ppid)) continue
    const ticks = p.ticks - (before?.get(p.pid)?.ticks ?? 0)
    if (!(ticks > 0)) continue
    const g = byName.get(p.name) ?? { name: p.name, ticks: 0, processes: 0 }
    g.ticks += ticks
    g.processes++
    byName.set(p.name, g)
  }
  return [...byName.values()]
    .map((g) => ({ name: g.name, cores: roundTo(g.ticks / clockTicks / (wallMs / 1000), 3), processes: g.processes }))
    .filter((g) => g.cores >= MIN_FOREIGN_CORES)
    .sort((a, b) => b.cores - a.cores)
    .slice(0, TOP_FOREIGN)
}

// CPU seconds over a wall time, in cores (null when either is unknown).
function coresOf (cpuSeconds, wallMs) {
  return typeof cpuSeconds === 'number' && wallMs > 0 ? cpuSeconds / (wallMs / 1000) : null
}

// The noise of a round from its two /proc/stat readings and what the lab knows it used itself:
// { stealPct, foreignCores, kernelCores, foreign, workInflation, workAgainst, inFlight, treeCores, labCores,
// cores } (each null when it cannot be known). foreignCores: the machine's busy cores less the kernel's
// interrupt work (kernelCores: irq + softirq, shown apart), the lab's (labCpuSeconds) and the server
// tree's (serverCpuSeconds), never below 0 (clock ticks round); foreign: its top consumers by name
// (topConsumers, given as `consumers`); workInflation: the round's median Server-Timing work time ÷ the
// calibrated service time (workAgainst: which calibration, 'warm' or 'cold process' / 'cold thread');
// inFlight: the mean units of work running at once (Little's law: the summed work time of the round ÷
// its wall time, workSumMs over roundMs); treeCores and labCores: the server tree's and the lab's CPU in
// cores; cores: the machine's. The last four let result/trust.js tell the strategy's own contention from
// interference.
export function noiseOf ({
  start, end, wallMs, clockTicks, labCpuSeconds, serverCpuSeconds, workMs, serviceMs,
  workSumMs = null, roundMs = wallMs, cores = null, consumers = null, against = 'warm'
}) {
  const kernel = kernelCores(start, end, { wallMs, clockTicks })
  const machineBusy = busyCores(start, end, { wallMs, clockTicks })
  const busy = machineBusy === null ? null : machineBusy - (kernel ?? 0)
  const lab = coresOf(labCpuSeconds, roundMs)
  const tree = coresOf(serverCpuSeconds, roundMs)
  const own = busy !== null && lab !== null && tree !== null
    ? (labCpuSeconds + serverCpuSeconds) / (wallMs / 1000)
    : null
  const r3 = (x) => (x === null ? null : roundTo(x, 3))
  return {
    stealPct: stealPercent(start, end),
    foreignCores: own === null ? null : roundTo(Math.max(0, busy - own), 3),
    kernelCores: r3(kernel),
    foreign: consumers,
    workInflation: workMs > 0 && serviceMs > 0 ? roundTo(workMs / serviceMs, 3) : null,
    workAgainst: workMs > 0 && serviceMs > 0 ? against : null,
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
// tree's CPU and the lab's own since the sampler started), its Server-Timing work histogram, the
// calibrated service time and which calibration it is (`against`), and the pids of the server's tree
// (`tree`), and gives noiseOf's figures (steal and foreign cores null without /proc; foreignCores,
// treeCores and labCores null without the outside figures; the other processes named apart from the lab
// and the tree).
export function noiseWatch ({ cores = availableParallelism() } = {}) {
  const start = readMachine()
  const procs = start ? readProcesses() : null
  const startMs = performance.now()
  return {
    end ({ outside, workMs, serviceMs, against = 'warm', tree = [] }) {
      const end = start ? readMachine() : null
      const work = workMs?.totalCount ? summarizeHistogram(workMs) : null
      const wallMs = end ? end.atMs - start.atMs : null
      const exclude = new Set([process.pid, ...tree])
      const clockTicks = clockTicksPerSecond()
      const consumers = end ? topConsumers(procs, readProcesses(), { wallMs, clockTicks, exclude }) : null
      return noiseOf({
        consumers,
        against,
        start,
        end,
        wallMs,
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
