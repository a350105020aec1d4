// Shared test utilities for the servers (also used by other suites): start a server as a real process,
// stop it and wait for its exit, list its process tree from /proc, fire a verified burst at it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export const root = fileURLToPath(new URL('../..', import.meta.url))
const READY = /^listening on http:\/\/(\S+):(\d+) \((\S+), (\S+), pid (\d+)\)$/m

// Spawn `node servers/NAME --port 0 ...args` (or `entry`, a fixture) and wait for its ready line (rejects with its stderr if it
// exits first or takes longer than `timeout`). Resolves to { url, port, pid, strategy, work, child,
// stdout(), stderr(), stop(signal) } where stop sends the signal by pid and resolves to { code, signal }.
// `cwd`: another working directory (the server is then named by its absolute path); `entry`: a fixture.
export async function startServer (name, args = [], { env = {}, timeout = 30000, cwd = root, entry = `${root}servers/${name}` } = {}) {
  const child = spawn(process.execPath, [entry, '--port', '0', ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d })
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }))
  const match = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} not ready after ${timeout} ms; stderr: ${err.trim()}`))
    }, timeout)
    const check = () => {
      const m = READY.exec(out)
      if (m) { clearTimeout(timer); child.stdout.off('data', check); resolve(m) }
    }
    child.stdout.on('data', check)
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${signal ?? code}) before ready; stderr: ${err.trim()}`))
    })
  })
  const [, host, port, strategy, work, pid] = match
  return {
    url: `http://${host}:${port}`,
    port: Number(port),
    pid: Number(pid),
    strategy,
    work,
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    async stop (signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, signal)
      return exited
    }
  }
}

// Run `node servers/NAME ...args` to its end: { code, stdout, stderr } (for bad-flag tests).
export async function runServer (name, args = [], { env = {}, timeout = 30000 } = {}) {
  const child = spawn(process.execPath, [`servers/${name}`, ...args], { cwd: root, env: { ...process.env, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
  return { code, stdout, stderr }
}

function stat (pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ')
    return { state: rest[0], ppid: Number(rest[1]) }
  } catch {
    return null
  }
}

// Whether `pid` is a live process (a zombie counts as gone).
export function isAlive (pid) {
  const s = stat(pid)
  return s !== null && s.state !== 'Z'
}

// Pids of `pid` and all its live descendants, read from /proc (empty if `pid` is gone).
export function processTree (pid) {
  const children = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const s = stat(name)
    if (!s || s.state === 'Z') continue
    if (!children.has(s.ppid)) children.set(s.ppid, [])
    children.get(s.ppid).push(Number(name))
  }
  if (!isAlive(pid)) return []
  const out = [pid]
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []))
  return out
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
    requests: [{
      method: 'GET',
      path,
      onResponse: (status, body) => {
        statuses[status] = (statuses[status] ?? 0) + 1
        if (expected !== undefined && (status !== 200 || body !== expected)) mismatches++
      }
    }]
  })
  return { sent: amount, ok: result['2xx'], non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, mismatches, statuses }
}

// GET/POST `url` and parse JSON: { status, headers, body }.
export async function getJson (url, init) {
  const res = await fetch(url, init)
  const text = await res.text()
  let body
  try { body = JSON.parse(text) } catch { body = text }
  return { status: res.status, headers: res.headers, body }
}
