// The outside view of processes from the `ps` command, for systems without /proc (macOS): one
// `ps -A -o …` call per sample lists the whole machine, and sample.js walks the tree by ppid. The same
// stat shape as the /proc reader; a figure this ps cannot give is null, never guessed.
//
// Options used work on both Linux procps-ng and macOS/BSD ps: -A, -p, -o with blank headers (`pid=`),
// the keywords pid, ppid, stat, rss, lstart; `nlwp` (threads) only where ps knows it (procps, not macOS:
// threads there would take `ps -M`, one line per thread, so they are null). CPU must include the reaped
// children's, as /proc's cutime + cstime do: procps sums them with `S`, but only into `bsdtime` (MMM:SS;
// `time` stays own CPU: seen with procps-ng 4.0.2), BSD/macOS with `-S` into `time` (MMM:SS.cc). The
// pair that works is probed once; with neither, CPU is null.
//
// Cost per sample, measured on the 2-core Linux box of this repository (procps-ng 4.0.2, 70–90
// processes, averages of 50 calls): one `ps -A` sample takes 6–8 ms of wall time on a quiet machine
// (11–22 ms with the cores busy); run asynchronously, as the sampler's interval samples are, it blocks
// the lab's event loop for 1.6 ms (3–10 ms busy: the spawn) and costs the lab 1.6–3 ms of CPU (spawn and
// parse). A /proc sample of a small tree costs 0.4–0.75 ms (1–3 ms where it must scan all of /proc).
import { execFile, execFileSync } from 'node:child_process'

const MAX_BUFFER = 64 * 1024 * 1024

let probed = null // { ok, error, cumulative, threads }

function env () {
  return { ...process.env, LC_ALL: 'C' } // lstart's day and month names, and the number format
}

function run (args) {
  const stdio = ['ignore', 'pipe', 'ignore']
  return execFileSync('ps', args, { env: env(), encoding: 'utf8', stdio, maxBuffer: MAX_BUFFER })
}

function works (args) {
  try {
    run(args)
    return true
  } catch {
    return false
  }
}

// How the CPU with reaped children is asked for: procps first (its `-S` means something else), then BSD.
const CUMULATIVE = [
  { flag: 'S', keyword: 'bsdtime' },
  { flag: '-S', keyword: 'time' }
]

// What this system's ps can do, asked once: { ok, error, cumulative: { flag, keyword } | null, threads }.
export function psCapabilities () {
  if (probed) return probed
  const self = ['-p', String(process.pid)]
  try {
    run([...self, '-o', 'pid=,ppid=,stat=,rss=,lstart='])
  } catch (err) {
    probed = { ok: false, error: err.code ?? err.message.split('\n')[0], cumulative: null, threads: false }
    return probed
  }
  // Probed with -A, as the samples call it (procps takes `-S -p PID` but refuses `-S -A`).
  const cumulative = CUMULATIVE.find(({ flag, keyword }) => works([flag, '-A', '-o', `pid=,${keyword}=`])) ?? null
  probed = { ok: true, error: null, cumulative, threads: works([...self, '-o', 'nlwp=']) }
  return probed
}

function columns () {
  const { threads, cumulative } = psCapabilities()
  return `pid=,ppid=,stat=,${cumulative?.keyword ?? 'time'}=,rss=${threads ? ',nlwp=' : ''},lstart=`
}

function argsFor (select) {
  const { cumulative } = psCapabilities()
  return [...(cumulative ? [cumulative.flag] : []), ...select, '-o', columns()]
}

// CPU time as ps prints it, in seconds: procps `time` [DD-]HH:MM:SS and `bsdtime` MMM:SS (whole seconds),
// BSD `time` MMM:SS.cc.
export function parseCpuTime (text) {
  const m = /^(?:(\d+)-)?(\d+(?::\d+)*(?:\.\d+)?)$/.exec(text)
  if (!m) return null
  let seconds = 0
  for (const part of m[2].split(':')) seconds = seconds * 60 + Number(part)
  return Math.round(((m[1] ? Number(m[1]) * 86400 : 0) + seconds) * 100) / 100
}

// One line of output as a stat: cpuSeconds is the process's CPU with its reaped children's where ps sums
// them (childCpuSeconds is then null: not given apart); threads null where ps has no nlwp; startTime is
// lstart (whole seconds), which with the pid names one process.
function parseLine (line, threads) {
  const f = line.trim().split(/\s+/)
  const n = threads ? 6 : 5
  if (f.length < n + 1) return null
  const pid = Number(f[0])
  const rssKiB = Number(f[4])
  if (!Number.isInteger(pid)) return null
  return {
    pid,
    state: f[2][0],
    ppid: Number(f[1]),
    cpuSeconds: parseCpuTime(f[3]),
    childCpuSeconds: null,
    threads: threads ? Number(f[5]) : null,
    startTime: f.slice(n).join(' '),
    rssBytes: Number.isFinite(rssKiB) ? rssKiB * 1024 : null
  }
}

function parseTable (text) {
  const { threads } = psCapabilities()
  const out = new Map()
  for (const line of text.split('\n')) {
    const s = line.trim() ? parseLine(line, threads) : null
    if (s) out.set(s.pid, s)
  }
  return out
}

// Every process of the machine, keyed by pid: one ps call.
export function psStats () {
  return parseTable(run(argsFor(['-A'])))
}

// The same without blocking the event loop for the call (the interval samples of a round).
export function psStatsAsync () {
  return new Promise((resolve, reject) => {
    execFile('ps', argsFor(['-A']), { env: env(), encoding: 'utf8', maxBuffer: MAX_BUFFER }, (err, stdout) =>
      err ? reject(err) : resolve(parseTable(stdout))
    )
  })
}

// One process's stat; null when it is gone (ps -p exits 1 with no line).
export function psStat (pid) {
  let text
  try {
    text = run(argsFor(['-p', String(pid)]))
  } catch {
    return null
  }
  return parseTable(text).get(Number(pid)) ?? null
}
