// Calibration child: times work specs in this one long-lived process and prints the samples as JSON.
// argv[2] is JSON: { specs: [...], maxCalls, totalBudgetMs }. Each spec gets an equal share of what is
// left of the budget, at least 2 calls while the budget lasts and 1 after. Not an entry point for users.
import { performance } from 'node:perf_hooks'
import { runWork } from '../../servers/lib/workloads.js'

const { specs, maxCalls, totalBudgetMs } = JSON.parse(process.argv[2])
const deadline = performance.now() + totalBudgetMs
const out = {}
for (const [i, spec] of specs.entries()) {
  const share = (deadline - performance.now()) / (specs.length - i)
  const until = performance.now() + share
  const minCalls = performance.now() < deadline ? 2 : 1
  const samplesMs = []
  while (samplesMs.length < maxCalls) {
    const t0 = performance.now()
    await runWork(spec)
    samplesMs.push(performance.now() - t0)
    if (performance.now() > until && samplesMs.length >= minCalls) break
  }
  out[spec] = samplesMs
}
process.stdout.write(JSON.stringify(out) + '\n')
