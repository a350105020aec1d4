// Start a lab server for the bench, wait for its "listening on" line, and end it by its pid.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

// Spawn `node servers/<name> --port 0 --host 127.0.0.1 ...args`; resolve { child, pid, url, stop }
// once it prints `listening on http://127.0.0.1:PORT`, reject (with its last stderr lines) if it exits.
// env: extra environment; ipc: give it an IPC channel (as the lab does), its messages counted in `messages`.
export async function startServer (name, args, { timeoutMs = 30_000, signal, env = {}, ipc = false } = {}) {
  const entry = `${root}servers/${name}/index.js`
  if (!existsSync(entry)) throw new Error(`servers/${name}/index.js does not exist (the bench needs it)`)
  const child = spawn(process.execPath, [entry, '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])]
  })
  const messages = { count: 0 }
  if (ipc) child.on('message', () => { messages.count++ })
  const exited = once(child, 'exit')
  const stderr = []
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr.push(...d.split('\n').filter(Boolean))
    if (stderr.length > 20) stderr.splice(0, stderr.length - 20)
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      try { await exited } finally { clearTimeout(timer) }
    }
  }
  try {
    const url = await new Promise((resolve, reject) => {
      let out = ''
      const done = (err, value) => {
        clearTimeout(timer)
        child.stdout.off('data', onData)
        child.off('exit', onExit)
        signal?.removeEventListener('abort', onAbort)
        if (err) reject(err)
        else resolve(value)
      }
      const onData = (d) => {
        out += d
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (m) done(null, m[1])
      }
      const onExit = (code, sig) => done(new Error(`servers/${name} ${args.join(' ')} exited (${sig ?? 'code ' + code}) before listening: ${stderr.slice(-5).join(' | ') || 'no stderr'}`))
      const onAbort = () => done(signal.reason ?? new Error('aborted'))
      const timer = setTimeout(() => done(new Error(`servers/${name} did not print "listening on" within ${timeoutMs} ms`)), timeoutMs)
      child.stdout.setEncoding('utf8').on('data', onData)
      child.on('exit', onExit)
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
    child.stdout.resume() // keep draining its stdout
    return { child, pid: child.pid, url, stop, messages }
  } catch (err) {
    await stop()
    throw err
  }
}
