// Start a server with execa, wait until it is healthy, stop it and make sure nothing of it is left.
import { execa } from 'execa'
import pWaitFor from 'p-wait-for'
import { request } from './http.js'
import { isAlive, readStat, processTree } from './sample.js'
import { serverError } from '../errors.js'

const READY = /listening on (https?:\/\/\S+) \((.*)\)/

// Parse a server's ready line into { url, strategy, work, pid }; null when the line is not one.
export function parseReadyLine (line) {
  const m = READY.exec(line)
  if (!m) return null
  const parts = m[2].split(',').map((s) => s.trim())
  const pidPart = parts.findLast((p) => /^pid \d+$/.test(p))
  const rest = parts.filter((p) => p !== pidPart)
  return {
    url: m[1].replace(/\/$/, ''),
    strategy: rest[0] ?? null,
    work: rest.length > 1 ? rest.slice(1).join(', ') : null,
    pid: pidPart ? Number(pidPart.slice(4)) : null
  }
}

function lineBuffer (stream, keep, onLine) {
  const lines = []
  let partial = ''
  stream?.setEncoding('utf8')
  stream?.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop()
    for (const line of parts) {
      lines.push(line)
      if (lines.length > keep) lines.shift()
      onLine?.(line)
    }
  })
  return () => (partial ? [...lines, partial] : [...lines]).slice(-keep)
}

// Spawn `node entry --port 0 --host 127.0.0.1 ...args` with an IPC channel (a killed lab leaves no
// server behind); resolves once the ready line is printed and /health answers 200.
export async function startServer ({ entry, args = [], env = {}, bootTimeoutMs = 30000, signal }) {
  const argv = [entry, '--port', '0', '--host', '127.0.0.1', ...args]
  const child = execa(process.execPath, argv, {
    ipc: true,
    env: { ...process.env, ...env },
    stdin: 'ignore',
    buffer: false,
    reject: false,
    forceKillAfterDelay: 5000
  })
  let exit = null
  const exited = child.then((r) => {
    exit = { exitCode: r.exitCode ?? null, signal: r.signal ?? null }
    return exit
  })
  let ready = null
  const stdoutTail = lineBuffer(child.stdout, 20, (line) => { ready ??= parseReadyLine(line) })
  const stderrTail = lineBuffer(child.stderr, 20)
  const server = {
    child,
    pid: child.pid,
    argv,
    exited,
    get exit () { return exit },
    get ready () { return ready },
    stdoutTail,
    stderrTail,
    url: null,
    work: null
  }
  const fail = (reason) => serverError(reason, { failure: { reason, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail: stderrTail() } })
  const started = Date.now()
  const left = () => Math.max(1, bootTimeoutMs - (Date.now() - started))
  try {
    await pWaitFor(() => {
      if (signal?.aborted) throw fail('interrupted while starting')
      if (exit) throw fail(`exited before it was ready (code ${exit.exitCode}, signal ${exit.signal})`)
      return ready !== null
    }, { interval: 20, timeout: { milliseconds: left(), message: `no ready line within ${bootTimeoutMs} ms` } })
    server.url = ready.url
    server.work = ready.work
    await pWaitFor(async () => {
      if (signal?.aborted) throw fail('interrupted while starting')
      if (exit) throw fail(`exited before /health answered (code ${exit.exitCode}, signal ${exit.signal})`)
      const r = await request(`${server.url}/health`, { timeoutMs: 1000, signal })
      return r.status === 200
    }, { interval: 50, timeout: { milliseconds: left(), message: `/health did not answer 200 within ${bootTimeoutMs} ms` } })
  } catch (err) {
    const failure = err.failure ?? { reason: err.message, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail: stderrTail() }
    await stopServer(server, { graceMs: 2000 }).catch(() => {})
    failure.exitCode ??= exit?.exitCode ?? null
    failure.signal ??= exit?.signal ?? null
    failure.stderrTail = stderrTail()
    throw serverError(`${failure.reason}`, { failure })
  }
  return server
}

// SIGTERM the server by pid, wait for its exit (SIGKILL after graceMs), then make sure no process of
// its tree (every member ever seen) is left: leftovers are killed by pid and returned.
export async function stopServer (server, { graceMs = 8000, seen = new Map() } = {}) {
  for (const s of processTree(server.pid)) seen.set(`${s.pid}:${s.startTime}`, { pid: s.pid, startTime: s.startTime })
  seen.delete(`${server.pid}:${readStat(server.pid)?.startTime}`)
  let forced = false
  if (!server.exit) {
    try { process.kill(server.pid, 'SIGTERM') } catch {}
    const timer = setTimeout(() => {
      forced = true
      try { process.kill(server.pid, 'SIGKILL') } catch {}
    }, graceMs)
    await server.exited
    clearTimeout(timer)
  }
  const leftovers = []
  await pWaitFor(() => [...seen.values()].every((m) => !isAlive(m)), { interval: 50, timeout: 2000 }).catch(() => {})
  for (const m of seen.values()) {
    if (m.pid !== server.pid && isAlive(m)) {
      leftovers.push(m.pid)
      try { process.kill(m.pid, 'SIGKILL') } catch {}
    }
  }
  return { exit: server.exit, forced, leftovers }
}
