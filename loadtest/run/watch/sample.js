// Outside view of a process tree: CPU seconds, RSS, processes, threads. Two sources, chosen at start:
// Linux /proc (this file), or where there is none (macOS) one `ps` call per sample (sample-ps.js);
// LOADLAB_SAMPLER=proc|ps forces one. A figure the source cannot give is null.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { endianness } from 'node:os'
import { describe, usageError } from '../../errors.js'
import { psCapabilities, psStat, psStats, psStatsAsync } from './sample-ps.js'
import { maxOf, roundTo } from '../../result/stats.js'

const SAMPLER_SOURCES = ['proc', 'ps']

let hasProc = null

// The source the sampler uses: LOADLAB_SAMPLER when set, else 'proc' where /proc/self/stat exists, else
// 'ps'. Throws a usage error (exit 2) for a bad value, a forced proc without /proc, or a ps that fails.
export function samplerSource (env = process.env) {
  hasProc ??= existsSync('/proc/self/stat')
  const forced = env.LOADLAB_SAMPLER
  if (forced !== undefined && forced !== '' && !SAMPLER_SOURCES.includes(forced)) {
    throw usageError(`LOADLAB_SAMPLER: expected one of ${SAMPLER_SOURCES.join(', ')}, got ${describe(forced)}`)
  }
  const source = forced || (hasProc ? 'proc' : 'ps')
  if (source === 'proc' && !hasProc) throw usageError('LOADLAB_SAMPLER=proc: this system has no /proc/self/stat')
  if (source === 'ps' && !psCapabilities().ok) {
    throw usageError(`outside sampling with ps: the ps command failed (${psCapabilities().error})`)
  }
  return source
}

let clockTicks = null
let pageSize = null

// sysconf's CLK_TCK and PAGESIZE as the kernel gave them to this process (the auxiliary vector's
// AT_CLKTCK and AT_PAGESZ): no getconf to spawn; 100 and 4096 where /proc/self/auxv cannot be read.
function units () {
  if (clockTicks === null) {
    clockTicks = 100
    pageSize = 4096
    try {
      const buf = readFileSync('/proc/self/auxv')
      const word = /64|s390x/.test(process.arch) ? 8 : 4
      const read = (at) =>
        word === 8
          ? Number(endianness() === 'LE' ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at))
          : endianness() === 'LE' ? buf.readUInt32LE(at) : buf.readUInt32BE(at)
      for (let at = 0; at + 2 * word <= buf.length; at += 2 * word) {
        const type = read(at)
        if (type === 0) break // AT_NULL
        if (type === 17) clockTicks = read(at + word) || clockTicks // AT_CLKTCK
        if (type === 6) pageSize = read(at + word) || pageSize // AT_PAGESZ
      }
    } catch {}
  }
  return { clockTicks, pageSize }
}

// Clock ticks a second (sysconf CLK_TCK), the unit of /proc's CPU counters.
export function clockTicksPerSecond () {
  return units().clockTicks
}

// Parse /proc/PID/stat; null when the process is gone.
function procStat (pid) {
  let text
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return null
  }
  const close = text.lastIndexOf(')')
  const f = text.slice(close + 2).split(' ') // f[0] is field 3 (state)
  const { clockTicks, pageSize } = units()
  return {
    pid: Number(pid),
    state: f[0],
    ppid: Number(f[1]),
    cpuSeconds: (Number(f[11]) + Number(f[12])) / clockTicks, // utime + stime
    childCpuSeconds: (Number(f[13]) + Number(f[14])) / clockTicks, // cutime + cstime (reaped children)
    threads: Number(f[17]),
    startTime: Number(f[19]),
    rssBytes: Number(f[21]) * pageSize
  }
}

// Every live process's stat, keyed by pid.
function allStats () {
  const out = new Map()
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue
    const s = procStat(name)
    if (s) out.set(s.pid, s)
  }
  return out
}

// The pids of pid's children, from every one of its threads' /proc/PID/task/TID/children (a child
// forked from a worker thread is listed under that thread); null where the kernel has no such file.
function childPids (pid) {
  let tasks
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const out = []
  for (const tid of tasks) {
    let text
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1')
    } catch (err) {
      if (err.code === 'ENOENT' && existsSync(`/proc/${pid}/task/${tid}`)) return null
      continue
    }
    for (const c of text.split(' ')) if (c) out.push(Number(c))
  }
  return out
}

let childrenFiles = null // whether /proc/PID/task/TID/children exists here (CONFIG_PROC_CHILDREN)

// The /proc tree rooted at rootPid (root first); empty when the root is gone. Walks the children files
// (a few reads per member, whatever else runs on the machine), or scans all of /proc where the kernel
// has none: the sampler runs beside the open loop's scheduler and must stay cheap.
function procTree (rootPid, stats) {
  childrenFiles ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`)
  if (!stats && childrenFiles) {
    const out = []
    const queue = [rootPid]
    while (queue.length) {
      const pid = queue.shift()
      const s = procStat(pid)
      if (!s) continue
      out.push(s)
      const kids = childPids(pid)
      if (kids === null) return procTree(rootPid, allStats())
      queue.push(...kids)
    }
    return out
  }
  return treeOf(rootPid, stats ?? allStats())
}

// The members of the tree rooted at rootPid in a table of stats keyed by pid, walked by ppid (root first).
function treeOf (rootPid, stats) {
  const root = stats.get(Number(rootPid))
  if (!root) return []
  const children = new Map()
  for (const s of stats.values()) {
    if (!children.has(s.ppid)) children.set(s.ppid, [])
    children.get(s.ppid).push(s)
  }
  const out = []
  const queue = [root]
  while (queue.length) {
    const s = queue.shift()
    out.push(s)
    for (const c of children.get(s.pid) ?? []) queue.push(c)
  }
  return out
}

// Each source's readers. cpuOf: a member's CPU seconds with its reaped children's (null: not known).
const SOURCES = {
  proc: {
    readStat: procStat,
    processTree: procTree,
    cpuOf: (s) => s.cpuSeconds + s.childCpuSeconds
  },
  ps: {
    readStat: psStat,
    processTree: (rootPid, stats) => treeOf(rootPid, stats ?? psStats()),
    processTreeAsync: async (rootPid) => treeOf(rootPid, await psStatsAsync()),
    cpuOf: (s) => (psCapabilities().cumulative ? s.cpuSeconds : null)
  }
}

// Parse one process's stat ({ pid, state, ppid, cpuSeconds, childCpuSeconds, threads, startTime,
// rssBytes }); null when the process is gone.
export function readStat (pid) {
  return SOURCES[samplerSource()].readStat(pid)
}

// The live processes of the tree rooted at rootPid (root first); empty when the root is gone. `stats`: a
// table of stats keyed by pid to walk instead of reading the machine again.
export function processTree (rootPid, stats) {
  return SOURCES[samplerSource()].processTree(rootPid, stats)
}

// A sum over members that is null as soon as one member's figure is.
function total (tree, figure) {
  let sum = 0
  for (const s of tree) {
    const x = figure(s)
    if (typeof x !== 'number' || !Number.isFinite(x)) return null
    sum += x
  }
  return sum
}

function summarize (tree, cpuOf) {
  const live = tree.filter((s) => s.state !== 'Z')
  return {
    cpuSeconds: total(live, cpuOf),
    rssBytes: total(live, (s) => s.rssBytes),
    processes: live.length,
    threads: total(live, (s) => s.threads),
    members: live.map((s) => ({ pid: s.pid, startTime: s.startTime }))
  }
}

// One sample of a tree: CPU seconds (own + reaped children of every live member), RSS, counts; a figure
// the source cannot give is null. `source`: 'proc' or 'ps' (default: samplerSource()).
export function sampleTree (rootPid, { source = samplerSource() } = {}) {
  const src = SOURCES[source]
  return summarize(src.processTree(rootPid), src.cpuOf)
}

// Is this exact process (pid and start time) still alive (not a zombie)?
export function isAlive ({ pid, startTime }) {
  const s = readStat(pid)
  return s !== null && s.state !== 'Z' && (startTime === undefined || s.startTime === startTime)
}

// The round's outside figures as samples arrive: the samples (CPU from the first), peaks, members seen.
function treeRecorder (first, seen, onSample) {
  const state = { samples: [], peakRss: first.rssBytes, peakProcesses: first.processes, peakThreads: first.threads }
  state.lastCpu = first.cpuSeconds
  let lastT = -1
  state.record = (s, t) => {
    if (s.processes === 0 || t < lastT) return
    lastT = t
    for (const m of s.members) seen.set(`${m.pid}:${m.startTime}`, m)
    state.peakRss = maxOf(state.peakRss, s.rssBytes)
    state.peakProcesses = Math.max(state.peakProcesses, s.processes)
    state.peakThreads = maxOf(state.peakThreads, s.threads)
    state.lastCpu = maxOf(state.lastCpu, s.cpuSeconds)
    const sample = {
      t,
      cpuSeconds: minus(s.cpuSeconds, first.cpuSeconds),
      rssBytes: s.rssBytes,
      processes: s.processes,
      threads: s.threads
    }
    state.samples.push(sample)
    onSample?.(sample)
  }
  return state
}

// One interval sample with a source that samples asynchronously (ps): at most one call in flight, a late
// answer after stop() dropped, a failure kept for figures() to throw.
function asyncTick (src, rootPid, rec, t0, flags) {
  return () => {
    if (flags.pending || flags.stopped) return
    flags.pending = true
    const t = Date.now() - t0
    src.processTreeAsync(rootPid).then(
      (tree) => {
        flags.pending = false
        if (!flags.stopped) rec.record(summarize(tree, src.cpuOf), t)
      },
      (err) => {
        flags.pending = false
        flags.failure ??= err
      }
    )
  }
}

// The lab's own CPU since `since` (process.cpuUsage and hrtime at the start): is the load generator saturated?
function loadGeneratorSince ({ cpu, wall }) {
  const self = process.cpuUsage(cpu)
  const wallSec = Number(process.hrtime.bigint() - wall) / 1e9
  const selfSec = (self.user + self.system) / 1e6
  return {
    cpuSeconds: roundTo(selfSec, 3),
    wallSeconds: roundTo(wallSec, 3),
    utilisation: wallSec > 0 ? roundTo(selfSec / wallSec, 3) : null
  }
}

// Sample a tree every intervalMs until stop(); stop() returns the round's outside figures.
// onSample(sample) sees every sample as it is taken; figures() gives the figures so far without stopping.
// The source is chosen once, at the start; with ps the interval samples run without blocking the event
// loop (a sample that comes back after a newer one is dropped), and a failed ps call fails figures().
export function startSampler (rootPid, { intervalMs = 200, seen = new Map(), onSample = null } = {}) {
  const source = samplerSource()
  const src = SOURCES[source]
  const t0 = Date.now()
  const first = sampleTree(rootPid, { source })
  const since = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() }
  const rec = treeRecorder(first, seen, onSample)
  const flags = { pending: false, stopped: false, failure: null }
  const take = () => rec.record(sampleTree(rootPid, { source }), Date.now() - t0)
  take()
  const timer = setInterval(src.processTreeAsync ? asyncTick(src, rootPid, rec, t0, flags) : take, intervalMs)
  const figures = () => {
    if (flags.failure) throw flags.failure
    take()
    return {
      cpuSeconds: minus(rec.lastCpu, first.cpuSeconds),
      peakRssBytes: rec.peakRss,
      peakProcesses: rec.peakProcesses,
      peakThreads: rec.peakThreads,
      samples: rec.samples.slice(),
      loadGenerator: loadGeneratorSince(since)
    }
  }
  return {
    seen,
    source,
    figures,
    stop () {
      flags.stopped = true
      clearInterval(timer)
      return figures()
    }
  }
}

function minus (a, b) {
  return a === null || b === null ? null : roundTo(a - b, 3)
}
