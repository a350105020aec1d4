// Running one command on every host through pdsh, and reading what came back per host. pdsh prefixes
// each line a host writes with `host: ` (stdout on stdout, stderr on stderr), cuts lines past about
// 128 KiB, and says how a host's command ended on its own stderr: `pdsh@node: host: CMD exited with exit
// code N` or `… killed by signal N` (nothing when it exited 0). -S makes pdsh's own exit status the
// largest of them. Here: the argv for pdsh, and a reader that splits the two streams by host, bounded.
import { spawn } from 'node:child_process'
import { once } from 'node:events'

// What one host's stdout may hold (bytes): a shard's report, its timeline histograms included, is far
// smaller; past it the host's output is dropped and counted (`overflow`).
export const MAX_HOST_BYTES = 32 * 1024 * 1024
// The lines of a host's stderr kept (its last ones), each clipped: for the message of a failed shard.
export const STDERR_LINES = 20
const STDERR_LINE_CHARS = 400

// Quote a word for a POSIX shell (unquoted when it is plainly safe).
export function shellWord (s) {
  const text = String(s)
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`
}

// pdsh's own substitution (%h host, %u user, %n rank) kept out of a text: every % doubled.
export function escapePercent (s) {
  return String(s).replace(/%/g, '%%')
}

// The argv of pdsh running the shell command `command` on every host at once: -R rcmd, -w the hosts in
// order, -f all of them, -b (one Ctrl-C ends the job), -S (its status the largest), -u a time limit (s).
// With -R exec the local command is `prefix` (its %h the host) then `sh -c command`; with -R ssh the
// command goes to the host's shell as it is.
export function pdshArgs ({ hosts, rcmd, prefix = [], command, timeoutSec = null }) {
  const head = ['-R', rcmd, '-w', hosts.join(','), '-f', String(hosts.length), '-b', '-S']
  if (timeoutSec !== null) head.push('-u', String(Math.ceil(timeoutSec)))
  return rcmd === 'exec' ? [...head, ...prefix, 'sh', '-c', command] : [...head, command]
}

// A stream cut into lines, each handed to onLine(line); a line longer than `max` characters is cut there
// (onLine(text, true) for its first part, the rest dropped up to its end).
function lineReader (stream, max, onLine) {
  let pending = ''
  let dropping = false
  stream.setEncoding('utf8')
  stream.on('data', (chunk) => {
    let from = 0
    let nl
    while ((nl = chunk.indexOf('\n', from)) !== -1) {
      if (!dropping) onLine(pending + chunk.slice(from, nl), false)
      pending = ''
      dropping = false
      from = nl + 1
    }
    if (dropping) return
    pending += chunk.slice(from)
    if (pending.length > max) {
      onLine(pending.slice(0, max), true)
      pending = ''
      dropping = true
    }
  })
  return () => {
    if (pending && !dropping) onLine(pending, false)
  }
}

const END = /^pdsh@[^:]*: ([^:\s]+): .* (?:exited with exit code (\d+)|killed by signal (\d+))$/
const PDSH_SAYS = /^pdsh@[^:]*: ([^:\s]+): (.*)$/

// A host's record: its stdout (kept up to MAX_HOST_BYTES), its last stderr lines, how it ended.
function hostRecord () {
  return { chunks: [], bytes: 0, overflow: 0, stderrTail: [], exitCode: null, signal: null, said: null }
}

function keepTail (rec, line) {
  rec.stderrTail.push(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line)
  if (rec.stderrTail.length > STDERR_LINES) rec.stderrTail.shift()
}

// The host a `host: text` line names (one of `byHost`), and its text; null for any other line.
function split (line, byHost) {
  const at = line.indexOf(': ')
  if (at <= 0) return null
  const rec = byHost.get(line.slice(0, at))
  return rec ? { rec, text: line.slice(at + 2) } : null
}

// Run pdsh with `args` for `hosts`; resolves { exitCode, signal, hosts: Map(host → { stdout, overflow,
// stderrTail, exitCode, signal, said }), stray } once it has exited. A host's exitCode is 0 unless pdsh
// said otherwise; `said` is pdsh's last other word about it (a timeout, a connection refused). `signal`
// (an AbortSignal) sends pdsh SIGINT, which with -b ends every host's command. `onStderr(host, text)`
// hears every stderr line of a host as it comes (progress); `onSpawn(pid)` hears pdsh's process id.
export async function runPdsh (args, {
  hosts, signal = null, onStderr = null, onSpawn = null, pdsh = 'pdsh', env = process.env
} = {}) {
  const byHost = new Map(hosts.map((h) => [h, hostRecord()]))
  const stray = []
  const child = spawn(pdsh, args, { stdio: ['ignore', 'pipe', 'pipe'], env })
  if (child.pid) onSpawn?.(child.pid)
  const failed = once(child, 'error').then(([err]) => { throw err })
  const flushOut = lineReader(child.stdout, MAX_HOST_BYTES, (line, cut) => {
    const hit = split(line, byHost)
    if (!hit) return stray.length < STDERR_LINES && stray.push(line.slice(0, STDERR_LINE_CHARS))
    const { rec, text } = hit
    if (cut || rec.bytes + text.length + 1 > MAX_HOST_BYTES) {
      rec.overflow++
      return
    }
    rec.chunks.push(text)
    rec.bytes += text.length + 1
  })
  const flushErr = lineReader(child.stderr, 64 * 1024, (line) => stderrLine(line, byHost, stray, onStderr))
  const stop = () => child.kill('SIGINT')
  signal?.addEventListener('abort', stop, { once: true })
  try {
    const [code, sig] = await Promise.race([once(child, 'close'), failed])
    flushOut()
    flushErr()
    const out = new Map([...byHost].map(([h, r]) => [h, {
      stdout: r.chunks.join('\n'),
      overflow: r.overflow,
      stderrTail: r.stderrTail,
      exitCode: r.signal === null ? r.exitCode ?? 0 : null,
      signal: r.signal,
      said: r.said
    }]))
    return { exitCode: code, signal: sig, hosts: out, stray }
  } finally {
    signal?.removeEventListener('abort', stop)
  }
}

// One stderr line: pdsh saying how a host ended (or something else of it), or a host's own line.
function stderrLine (line, byHost, stray, onStderr) {
  const end = END.exec(line)
  if (end && byHost.has(end[1])) {
    const rec = byHost.get(end[1])
    if (end[2] !== undefined) rec.exitCode = Number(end[2])
    else rec.signal = Number(end[3])
    return
  }
  const says = PDSH_SAYS.exec(line)
  if (says && byHost.has(says[1])) {
    byHost.get(says[1]).said = says[2].slice(0, STDERR_LINE_CHARS)
    return keepTail(byHost.get(says[1]), line)
  }
  const hit = split(line, byHost)
  if (!hit) return stray.length < STDERR_LINES && stray.push(line.slice(0, STDERR_LINE_CHARS))
  keepTail(hit.rec, hit.text)
  onStderr?.(line.slice(0, line.indexOf(': ')), hit.text)
}
