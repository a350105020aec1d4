// Start a server with execa, wait until it is healthy, stop it and make sure nothing of it is left.
import { execa } from 'execa'
import pWaitFor from 'p-wait-for'
import { request } from './http.js'
import { isAlive, readStat, processTree } from './sample.js'
import { serverError } from '../errors.js'
import { ENV_FALLBACKS } from '../../servers/lib/options.js'
import { failure as failureRecord } from '../result/build.js'

// How long a server may take to send its ready message and answer /health (LOADLAB_BOOT_TIMEOUT_MS).
export const BOOT_TIMEOUT_MS = 30000
// How long a server has to exit after SIGTERM before SIGKILL; shorter after Ctrl-C (the user waits).
export const STOP_GRACE_MS = 8000
export const INTERRUPTED_GRACE_MS = 3000

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

// The environment a server starts with: the lab's, less the variables the servers read as fallbacks
// (PORT, HOST, WORK, TASK …): a stray WORK= in the user's shell must not change what is measured.
export function serverEnv (env = process.env) {
  const out = { ...env }
  for (const name of ENV_FALLBACKS) delete out[name]
  return out
}

// Spawn `node entry --port 0 --host 127.0.0.1 ...args` with an IPC channel (a killed lab leaves no
// server behind); resolves once the server's `{ type: 'ready', url, pid, strategy, work }` message has
// come and /health answers 200. The one way the lab, the bench and the tests start a server.
// `execPath` is the node it runs under (--node); `cwd`, `env` (added to serverEnv()) and `keepLines`
// (stdout/stderr lines kept) are for tests.
export async function startServer ({
  entry,
  args = [],
  bootTimeoutMs = BOOT_TIMEOUT_MS,
  signal,
  cwd,
  env = {},
  keepLines = 20,
  execPath = process.execPath
}) {
  const argv = [entry, '--port', '0', '--host', '127.0.0.1', ...args]
  const child = execa(execPath, argv, {
    ipc: true,
    cwd,
    env: { ...serverEnv(), ...env },
    extendEnv: false, // execa would merge process.env back in
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
  child.on('message', (msg) => {
    if (msg?.type === 'ready' && ready === null) ready = msg
  })
  const stdoutTail = lineBuffer(child.stdout, keepLines)
  const stderrTail = lineBuffer(child.stderr, keepLines)
  const server = {
    child,
    pid: child.pid,
    argv,
    exited,
    get exit () {
      return exit
    },
    get ready () {
      return ready
    },
    stdoutTail,
    stderrTail,
    url: null,
    work: null,
    strategy: null,
    // SIGTERM, wait, and make sure nothing of its tree is left (stopServer below).
    stop: (opts) => stopServer(server, opts)
  }
  const record = (reason) =>
    failureRecord(reason, { exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail: stderrTail() })
  const fail = (reason) => serverError(reason, { failure: record(reason) })
  const started = Date.now()
  const left = () => Math.max(1, bootTimeoutMs - (Date.now() - started))
  try {
    await pWaitFor(
      () => {
        if (signal?.aborted) throw fail('interrupted while starting')
        if (exit) throw fail(`exited before it was ready (code ${exit.exitCode}, signal ${exit.signal})`)
        return ready !== null
      },
      { interval: 20, timeout: { milliseconds: left(), message: `no ready message within ${bootTimeoutMs} ms` } }
    )
    server.url = ready.url
    server.work = ready.work
    server.strategy = ready.strategy
    await pWaitFor(
      async () => {
        if (signal?.aborted) throw fail('interrupted while starting')
        if (exit) throw fail(`exited before /health answered (code ${exit.exitCode}, signal ${exit.signal})`)
        const r = await request(`${server.url}/health`, { timeoutMs: 1000, signal })
        return r.status === 200
      },
      {
        interval: 50,
        timeout: { milliseconds: left(), message: `/health did not answer 200 within ${bootTimeoutMs} ms` }
      }
    )
  } catch (err) {
    const failure = err.failure ?? record(err.message)
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
export async function stopServer (server, { graceMs = STOP_GRACE_MS, seen = new Map() } = {}) {
  for (const s of processTree(server.pid)) seen.set(`${s.pid}:${s.startTime}`, { pid: s.pid, startTime: s.startTime })
  seen.delete(`${server.pid}:${readStat(server.pid)?.startTime}`)
  let forced = false
  if (!server.exit) {
    try {
      process.kill(server.pid, 'SIGTERM')
    } catch {}
    const timer = setTimeout(() => {
      forced = true
      try {
        process.kill(server.pid, 'SIGKILL')
      } catch {}
    }, graceMs)
    await server.exited
    clearTimeout(timer)
  }
  const leftovers = []
  await pWaitFor(() => [...seen.values()].every((m) => !isAlive(m)), { interval: 50, timeout: 2000 }).catch(() => {})
  for (const m of seen.values()) {
    if (m.pid !== server.pid && isAlive(m)) {
      leftovers.push(m.pid)
      try {
        process.kill(m.pid, 'SIGKILL')
      } catch {}
    }
  }
  return { exit: server.exit, forced, leftovers }
}
