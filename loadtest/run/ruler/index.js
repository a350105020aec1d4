// The ruler of a run: one reading of the machine (measure.js, in a child of its own: child.js) before any
// server of the fleet starts and one after the last stopped (lab.js), kept as result/ruler.js rulerOf makes
// it. The child is the lab's own node, bounded by READ_TIMEOUT_MS and the run's signal; it sends nothing
// anywhere but to its own loopback server.
import { loadExeca } from '../../result/lazy.js'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { rulerFault, rulerOf } from '../../result/ruler.js'
import { rulerFaultText } from '../../text/ruler.js'
import { describe, usageError } from '../../errors.js'

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url))

// What the ruler may cost a run, start and end readings together (s), on a quiet machine: `npm run bench
// -- --only ruler` measures it.
export const COST_BUDGET_SEC = 3

// The longest a reading may take (ms) before its child is killed: about a second on a quiet 2-core machine,
// a few beside a CPU hog.
export const READ_TIMEOUT_MS = 30000

// Whether LOADLAB_RULER turns the ruler off ('off', as --no-ruler; the test runner sets it: test/run.js);
// unset or empty it is on, anything else a usage error.
export function rulerOff (env = process.env) {
  const v = env.LOADLAB_RULER
  if (v === undefined || v === '') return false
  if (v === 'off') return true
  throw usageError(`LOADLAB_RULER: expected off (or unset), got ${describe(v)}`)
}

// One reading of this machine: the reading (its durationMs the whole cost, the child's start included);
// rejects with one line when the child fails, is stopped by `signal`, or reads a figure no machine gives.
export async function readRuler ({ signal, timeoutMs = READ_TIMEOUT_MS, execArgs = [] } = {}) {
  const t0 = performance.now()
  const execa = await loadExeca()
  const r = await execa(process.execPath, [...execArgs, CHILD], {
    reject: false, cancelSignal: signal, timeout: timeoutMs, stdin: 'ignore', env: { ...process.env }
  })
  let reading = null
  try {
    reading = JSON.parse(r.stdout)
  } catch {}
  if (r.failed || !reading) {
    const said = (r.stderr || r.shortMessage || 'no reading').split('\n').filter(Boolean).at(-1)
    const why = r.isCanceled ? 'interrupted' : (r.timedOut ? `not done in ${timeoutMs / 1000} s` : said)
    throw new Error(`the ruler could not read the machine: ${why}`)
  }
  reading.durationMs = Math.round(performance.now() - t0)
  const fault = rulerFault(rulerOf(reading))
  if (fault) throw new Error(`the ruler read a figure no machine gives: ${rulerFaultText(fault)}`)
  return reading
}
