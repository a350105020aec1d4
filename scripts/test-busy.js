// `npm run test:busy [-- FILE …]`: the suite (test/run.js, every file or those named) with two busy loops
// beside it (`node -e 'for(;;);'`, one per core of the 2-core reference VM), ended by their pids when it
// ends; the suite must pass so: a test asserts what the rule guarantees, never what a quiet machine gives.
// Prints the suite's output, then one line: its pass and fail counts, its seconds and exit status.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LOOPS = 2

const loops = Array.from({ length: LOOPS }, () =>
  spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }))
const stopLoops = () => {
  for (const l of loops) {
    try {
      process.kill(l.pid, 'SIGKILL')
    } catch {}
  }
}
process.on('exit', stopLoops)

const start = performance.now()
const suite = spawn(process.execPath, ['test/run.js', ...process.argv.slice(2)], {
  cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']
})
let tail = ''
const keep = (chunk) => {
  tail = (tail + chunk).slice(-4096) // the summary is at the end: ℹ pass N, ℹ fail N
}
suite.stdout.on('data', (c) => { process.stdout.write(c); keep(c) })
suite.stderr.on('data', (c) => { process.stderr.write(c) })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => suite.kill(sig))
suite.on('exit', (code, signal) => {
  stopLoops()
  const count = (name) => Number(tail.match(new RegExp(`^(?:ℹ|#) ${name} (\\d+)$`, 'm'))?.[1] ?? NaN)
  const sec = Math.round((performance.now() - start) / 1000)
  const status = code ?? (signal ? 1 : 0)
  process.stderr.write(`test:busy: pass ${count('pass')}, fail ${count('fail')}, ${sec} s beside ${LOOPS} busy ` +
    `loops, exit ${status}\n`)
  process.exitCode = status
})
