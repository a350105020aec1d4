// Outside view of a process tree from Linux /proc: CPU seconds, RSS, processes, threads.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'

let clockTicks = null
let pageSize = null

function sysconf (name, fallback) {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback
  } catch {
    return fallback
  }
}

function units () {
  if (clockTicks === null) {
    clockTicks = sysconf('CLK_TCK', 100)
    pageSize = sysconf('PAGESIZE', 4096)
  }
  return { clockTicks, pageSize }
}

// Parse /proc/PID/stat; null when the process is gone.
export function readStat (pid) {
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
    const s = readStat(name)
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

// The live processes of the tree rooted at rootPid (root first); empty when the root is gone. Walks the
// children files (a few reads per member, whatever else runs on the machine), or scans all of /proc
// where the kernel has none: the sampler runs beside the open loop's scheduler and must stay cheap.
export function processTree (rootPid, stats) {
  childrenFiles ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`)
  if (!stats && childrenFiles) {
    const out = []
    const queue = [rootPid]
    while (queue.length) {
      const pid = queue.shift()
      const s = readStat(pid)
      if (!s) continue
      out.push(s)
      const kids = childPids(pid)
      if (kids === null) return processTree(rootPid, allStats())
      queue.push(...kids)
    }
    return out
  }
  stats ??= allStats()
  const root = stats.get(rootPid)
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

// One sample of a tree: CPU seconds (own + reaped children of every live member), RSS, counts.
export function sampleTree (rootPid) {
  const tree = processTree(rootPid).filter((s) => s.state !== 'Z')
  let cpuSeconds = 0
  let rssBytes = 0
  let threads = 0
  for (const s of tree) {
    cpuSeconds += s.cpuSeconds + s.childCpuSeconds
    rssBytes += s.rssBytes
    threads += s.threads
  }
  return {
    cpuSeconds,
    rssBytes,
    processes: tree.length,
    threads,
    members: tree.map((s) => ({ pid: s.pid, startTime: s.startTime }))
  }
}

// Is this exact process (pid and start time) still alive (not a zombie)?
export function isAlive ({ pid, startTime }) {
  const s = readStat(pid)
  return s !== null && s.state !== 'Z' && (startTime === undefined || s.startTime === startTime)
}

// Sample a tree every intervalMs until stop(); stop() returns the round's outside figures.
// onSample(sample) sees every sample as it is taken; figures() gives the figures so far without stopping.
export function startSampler (rootPid, { intervalMs = 200, seen = new Map(), onSample = null } = {}) {
  const t0 = Date.now()
  const first = sampleTree(rootPid)
  const selfStart = process.cpuUsage()
  const wallStart = process.hrtime.bigint()
  const samples = []
  let peakRss = first.rssBytes
  let peakProcesses = first.processes
  let peakThreads = first.threads
  let lastCpu = first.cpuSeconds
  const take = () => {
    const s = sampleTree(rootPid)
    if (s.processes === 0) return
    for (const m of s.members) seen.set(`${m.pid}:${m.startTime}`, m)
    peakRss = Math.max(peakRss, s.rssBytes)
    peakProcesses = Math.max(peakProcesses, s.processes)
    peakThreads = Math.max(peakThreads, s.threads)
    lastCpu = Math.max(lastCpu, s.cpuSeconds)
    const sample = {
      t: Date.now() - t0,
      cpuSeconds: round3(s.cpuSeconds - first.cpuSeconds),
      rssBytes: s.rssBytes,
      processes: s.processes,
      threads: s.threads
    }
    samples.push(sample)
    onSample?.(sample)
  }
  take()
  const timer = setInterval(take, intervalMs)
  const figures = () => {
    take()
    const self = process.cpuUsage(selfStart)
    const wallSec = Number(process.hrtime.bigint() - wallStart) / 1e9
    const selfSec = (self.user + self.system) / 1e6
    return {
      cpuSeconds: round3(lastCpu - first.cpuSeconds),
      peakRssBytes: peakRss,
      peakProcesses,
      peakThreads,
      samples: samples.slice(),
      loadGenerator: {
        cpuSeconds: round3(selfSec),
        wallSeconds: round3(wallSec),
        utilisation: wallSec > 0 ? round3(selfSec / wallSec) : null
      }
    }
  }
  return {
    seen,
    figures,
    stop () {
      clearInterval(timer)
      return figures()
    }
  }
}

function round3 (x) {
  return Math.round(x * 1000) / 1000
}
