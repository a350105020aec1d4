// Shared test utilities for the servers (also used by other suites): start a server as a real process,
// stop it and wait for its exit, list its process tree from /proc, fire a verified burst at it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'
import autocannon from 'autocannon'
import { startServer as bootServer } from '../../loadtest/run/watch/boot.js'
import { SAMPLE_INT_MS } from '../../loadtest/run/generate/fire.js'
import { isAlive as isAliveProcess, processTree as labTree } from '../../loadtest/run/watch/sample.js'

export { ROOT }

// Start `node servers/NAME --port 0 ...args` (or `entry`, a fixture) through the lab's own starter
// (loadtest/run/watch/boot.js: IPC ready message, /health answered); rejects with its stderr if it exits
// first or takes longer than `timeout`. Resolves to { url, port, pid, strategy, work, child, exited,
// stdout(), stderr(), stop(signal) } where stop sends the signal by pid and resolves to { code, signal }.
// `cwd`: another working directory; `env`: added to the environment the lab gives its servers.
export async function startServer (
  name,
  args = [],
  { env = {}, timeout = 30000, cwd = ROOT, entry = join(ROOT, 'servers', name) } = {}
) {
  let server
  try {
    server = await bootServer({ entry, args, bootTimeoutMs: timeout, cwd, env, keepLines: 10000 })
  } catch (err) {
    throw new Error(`${name} not ready: ${err.message}; stderr: ${(err.failure?.stderrTail ?? []).join('\n')}`)
  }
  const exited = server.exited.then(({ exitCode, signal }) => ({ code: exitCode, signal }))
  return {
    url: server.url,
    port: Number(new URL(server.url).port),
    pid: server.pid,
    strategy: server.strategy,
    work: server.work,
    child: server.child,
    exited,
    stdout: () => server.stdoutTail().join('\n'),
    stderr: () => server.stderrTail().join('\n'),
    async stop (signal = 'SIGTERM') {
      if (server.exit === null) process.kill(server.pid, signal)
      return exited
    }
  }
}

// Run `node servers/NAME ...args` to its end: { code, stdout, stderr } (for bad-flag tests).
export async function runServer (name, args = [], { env = {}, timeout = 30000 } = {}) {
  const child = spawn(process.execPath, [`servers/${name}`, ...args], { cwd: ROOT, env: { ...process.env, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
  })
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
  return { code, stdout, stderr }
}

// Whether `pid` is a live process (a zombie counts as gone): the lab's own /proc reader.
export function isAlive (pid) {
  return isAliveProcess({ pid })
}

// Pids of `pid` and all its live descendants (empty if `pid` is gone): the lab's own /proc reader.
export function processTree (pid) {
  return labTree(pid)
    .filter((s) => s.state !== 'Z')
    .map((s) => s.pid)
}

// Fire `amount` GET requests over `connections` connections with autocannon and check every body
// against `expected`. Resolves to { sent, ok, non2xx, errors, timeouts, mismatches, statuses }.
export async function fire (url, { path = '/', connections = 10, amount = 50, expected, timeout = 30 } = {}) {
  let mismatches = 0
  const statuses = {}
  const result = await autocannon({
    url,
    connections,
    amount,
    timeout,
    sampleInt: SAMPLE_INT_MS, // an amount round ends at autocannon's next sample tick (fire.js)
    requests: [
      {
        method: 'GET',
        path,
        onResponse: (status, body) => {
          statuses[status] = (statuses[status] ?? 0) + 1
          if (expected !== undefined && (status !== 200 || body !== expected)) mismatches++
        }
      }
    ]
  })
  return {
    sent: amount,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches,
    statuses
  }
}

// GET/POST `url` and parse JSON: { status, headers, body }.
export async function getJson (url, init) {
  const res = await fetch(url, init)
  const text = await res.text()
  let body
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, headers: res.headers, body }
}
