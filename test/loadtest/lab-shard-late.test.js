// A shard whose common start passed before its generator was ready: the round fails, and the lab's process
// ends once the report is made. The /health probe, the sampler and the watch began with the round; a round
// that never ran must end them, or their timers keep the process alive (pdsh then waits out its timeout).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startServer, ROOT } from '../helpers/server.js'

// The run in a process of its own, so that a leftover timer shows as a process that does not exit.
const SCRIPT = `
import { runLab } from './index.js'
const url = process.argv[1]
// the warm-up (3 answers of 1.5 s, one connection) outlasts the start 1 s ahead: the start has passed
const report = await runLab({ url, rate: 20, amount: 10, warmup: 3, connections: 1, shard: '1/2',
  startAt: new Date(Date.now() + 1000), noRuler: true, out: false })
console.log(JSON.stringify(report.results[0].failure?.reason ?? null))
`

test('a shard whose start passed fails its round and its process still ends', async (t) => {
  const server = await startServer('simple', ['--work', 'sleep:1500'])
  t.after(() => server.stop())
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, server.url], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  const killer = setTimeout(() => child.kill('SIGKILL'), 30000)
  const [code, signal] = await once(child, 'exit')
  clearTimeout(killer)
  assert.equal(signal, null, 'the process ended by itself (it was killed 30 s in: something kept it alive)')
  assert.equal(code, 0)
  assert.match(JSON.parse(out.trim().split('\n').at(-1)), /start time .* passed .* before this generator was ready/)
})
