// A command as the decision prints it, started as a user would, for the tests that check it serves.
import { spawn } from 'node:child_process'
import pWaitFor from 'p-wait-for'
import { ROOT } from './lab.js'

// Start a printed command as a user would, from the checkout (a free port added: never a fixed one in
// tests): { url, child } once its ready line is out.
export async function startCommand (command) {
  const child = spawn('sh', ['-c', `exec ${command} --port 0`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d })
  let url = null
  await pWaitFor(() => {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}: ${err}`)
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? null
    return url !== null
  }, { interval: 50, timeout: 30000 })
  return { url, child }
}
