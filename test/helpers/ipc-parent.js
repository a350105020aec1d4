// Fixture (not a test): an intermediate parent that forks a server with an IPC channel, waits for its
// ready line and reports { pid, url } to its own parent. A test then SIGKILLs this process to check
// that the server notices its IPC channel closing and exits. Usage: node ipc-parent.js NAME [args...]
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const [name, ...args] = process.argv.slice(2)
const server = fork(fileURLToPath(new URL(`../../servers/${name}`, import.meta.url)), ['--port', '0', ...args], {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc']
})
let out = ''
let sent = false
server.stdout.setEncoding('utf8').on('data', (d) => {
  out += d
  const m = /^listening on (\S+) .*pid (\d+)\)$/m.exec(out)
  if (m && !sent) {
    sent = true
    process.send({ url: m[1], pid: Number(m[2]) })
  }
})
server.on('exit', (code, signal) => process.send?.({ exited: { code, signal } }))
