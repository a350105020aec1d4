// A user's service started by a shell command (`loadlab ab … --kind command`): run with PORT set to
// a free port on 127.0.0.1, in its own process group; ready once GET of its path answers; stopped
// by SIGTERM to the group (SIGKILL after the grace), waited for. A command that exits or never
// answers is a failed run.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { LabError, clip } from '../errors.js'
import { request } from '../run/generate/http.js'
import { STOP_GRACE_MS, bootTimeoutMs } from '../run/watch/boot.js'

// A port no one listens on now (the kernel's choice for port 0).
async function freePort () {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  await once(server, 'close')
  return port
}

// Starts `command` (sh -c) with PORT; resolves { url, stop() } once `path` answers, or throws a
// LabError (exit 1) naming the command and why, its last stderr line with it.
export async function startService (command, { path = '/', signal } = {}) {
  const port = await freePort()
  const child = spawn('sh', ['-c', command], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true
  })
  let tail = ''
  child.stderr.on('data', (chunk) => { tail = (tail + chunk).slice(-400) })
  const exited = once(child, 'exit').then(([code, sig]) => ({ code, sig }))
  let exit = null
  exited.then((e) => { exit = e })
  const kill = (sig) => { // the group: sh and what it started
    try { process.kill(-child.pid, sig) } catch {}
  }
  const stop = async () => {
    if (exit) return
    kill('SIGTERM')
    const timer = setTimeout(() => kill('SIGKILL'), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
  }
  const url = `http://127.0.0.1:${port}${path}`
  const deadline = Date.now() + bootTimeoutMs()
  while (true) {
    const said = tail.trim().split('\n').at(-1)
    const why = exit
      ? `exited (code ${exit.code}, signal ${exit.sig})`
      : signal?.aborted
        ? 'interrupted'
        : Date.now() > deadline ? `GET ${url} got no answer in time` : null
    if (why) {
      await stop()
      throw new LabError('LAB_AB_SERVICE', `--kind command: ${clip(command, 60)} ${why}` +
        `${said ? `: ${clip(said, 120)}` : ''}`)
    }
    const r = await request(url, { timeoutMs: 1000, signal })
    if (typeof r.status === 'number') return { url, stop }
    await sleep(100)
  }
}
