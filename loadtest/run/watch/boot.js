// Start a server with execa, wait until it is healthy, stop it and make sure nothing of it is left.
import { loadExeca } from '../../result/lazy.js'
import pWaitFor from 'p-wait-for'
import { request } from '../generate/http.js'
import { isAlive, readStat, processTree } from './sample.js'
import { describe, serverError, usageError } from '../../errors.js'
import { ENV_FALLBACKS } from '../../../servers/lib/options.js'
import { failure as failureRecord } from '../../result/build.js'
import { BOOT_TIMEOUT_MAX_MS, BOOT_TIMEOUT_MS } from '../../settings.js'

// The boot timeout of this run: LOADLAB_BOOT_TIMEOUT_MS (whole ms, 1 ms to an hour), else the default;
// anything else is a usage error (exit 2), checked before anything starts.
export function bootTimeoutMs (env = process.env) {
  const raw = env.LOADLAB_BOOT_TIMEOUT_MS
  if (raw === undefined || raw === '') return BOOT_TIMEOUT_MS
  const ms = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(ms) || ms < 1 || ms > BOOT_TIMEOUT_MAX_MS) {
    throw usageError(`LOADLAB_BOOT_TIMEOUT_MS: expected whole milliseconds from 1 to ${BOOT_TIMEOUT_MAX_MS}, ` +
      `got ${describe(raw)}`)
  }
  return ms
}
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

// Spawn the server process and keep what the lab needs of it: its exit, its ready message, the last
// lines of its output, and a stop(). It runs in its own process group (detached): a terminal's Ctrl-C
// goes to the whole foreground group, and must reach the lab only, which stops its servers itself
// (they exit when the lab's IPC channel closes, so a killed lab still leaves none behind).
function spawnServer ({ execa, entry, args, cwd, env, keepLines, execPath, execArgs }) {
  const argv = [entry, '--port', '0', '--host', '127.0.0.1', ...args]
  const child = execa(execPath, [...execArgs, ...argv], {
    ipc: true,
    detached: true,
    // JSON, not execa's default 'advanced' (V8 serialisation): Bun and Deno read and write only JSON on
    // a channel from Node, and every message is plain data.
    serialization: 'json',
    cwd,
    env: { ...serverEnv(), ...env },
    extendEnv: false, // execa would merge process.env back in
    stdin: 'ignore',
    buffer: false,
    reject: false,
    forceKillAfterDelay: 5000
  })
  let exit = null
  let ready = null
  child.on('message', (msg) => {
    if (msg?.type === 'ready' && ready === null) ready = msg
  })
  const server = {
    child,
    pid: child.pid,
    argv,
    exited: child.then((r) => (exit = { exitCode: r.exitCode ?? null, signal: r.signal ?? null })),
    get exit () {
      return exit
    },
    get ready () {
      return ready
    },
    stdoutTail: lineBuffer(child.stdout, keepLines),
    stderrTail: lineBuffer(child.stderr, keepLines),
    url: null,
    work: null,
    strategy: null,
    // SIGTERM, wait, and make sure nothing of its tree is left (stopServer below).
    stop: (opts) => stopServer(server, opts)
  }
  return server
}

// The failure record of a server that did not start, with how it exited and its last stderr lines.
function bootFailure (server, reason) {
  const { exitCode = null, signal = null } = server.exit ?? {}
  return failureRecord(reason, { exitCode, signal, stderrTail: server.stderrTail() })
}

// Wait for the ready message, then for /health to answer 200, within bootTimeoutMs in all; throws a
// server error with its failure record when the server exits, the signal aborts or time runs out.
async function awaitHealthy (server, { bootTimeoutMs, signal }) {
  const fail = (reason) => serverError(reason, { failure: bootFailure(server, reason) })
  const gone = (what) => {
    if (signal?.aborted) throw fail('interrupted while starting')
    const exit = server.exit
    if (exit) throw fail(`exited before ${what} (code ${exit.exitCode}, signal ${exit.signal})`)
  }
  const started = Date.now()
  const within = (message) => ({ milliseconds: Math.max(1, bootTimeoutMs - (Date.now() - started)), message })
  await pWaitFor(() => {
    gone('it was ready')
    return server.ready !== null
  }, { interval: 20, timeout: within(`no ready message within ${bootTimeoutMs} ms`) })
  server.url = server.ready.url
  server.work = server.ready.work
  server.strategy = server.ready.strategy
  await pWaitFor(async () => {
    gone('/health answered')
    return (await request(`${server.url}/health`, { timeoutMs: 1000, signal })).status === 200
  }, { interval: 50, timeout: within(`/health did not answer 200 within ${bootTimeoutMs} ms`) })
}

// Spawn `node entry --port 0 --host 127.0.0.1 ...args` with an IPC channel (a killed lab leaves no
// server behind); resolves once the server's `{ type: 'ready', url, pid, strategy, work }` message has
// come and /health answers 200. The one way the lab, the bench and the tests start a server.
// `execPath` is the runtime it runs under (--runtime), `execArgs` what that runtime needs before the
// script (Deno's `run -A`); `cwd`, `env` (added to serverEnv()) and `keepLines`
// (stdout/stderr lines kept) are for tests. A server that does not start is stopped, and the error
// carries its failure record.
export async function startServer ({
  entry,
  args = [],
  bootTimeoutMs = BOOT_TIMEOUT_MS,
  signal,
  cwd,
  env = {},
  keepLines = 20,
  execPath = process.execPath,
  execArgs = []
}) {
  const server = spawnServer({ execa: await loadExeca(), entry, args, cwd, env, keepLines, execPath, execArgs })
  try {
    await awaitHealthy(server, { bootTimeoutMs, signal })
  } catch (err) {
    const reason = err.failure?.reason ?? err.message
    await stopServer(server, { graceMs: 2000 }).catch(() => {})
    throw serverError(reason, { failure: bootFailure(server, reason) })
  }
  return server
}

// SIGTERM the server by pid, wait for its exit (SIGKILL after graceMs), then make sure no process of
// its tree (every member ever seen) is left: leftovers are killed by pid and returned.
export async function stopServer (server, { graceMs = STOP_GRACE_MS, seen = new Map() } = {}) {
  for (const s of processTree(server.pid)) seen.set(`${s.pid}:${s.startTime}`, { pid: s.pid, startTime: s.startTime })
  const startTime = readStat(server.pid)?.startTime
  seen.delete(`${server.pid}:${startTime}`)
  let forced = false
  if (!server.exit) {
    try {
      process.kill(server.pid, 'SIGTERM')
    } catch {}
    const timer = setTimeout(() => {
      // exited already (a zombie not yet reaped): a starved lab ran this timer before the exit event
      if (!isAlive({ pid: server.pid, startTime })) return
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
