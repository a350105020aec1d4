// Calibration child: times work specs in this one long-lived process and prints the samples as JSON.
// argv[2] is JSON: [{ spec, maxCalls, budgetMs }]. Not a test, not an entry point for users.
import { performance } from 'node:perf_hooks'
import { runWork } from '../servers/lib/workloads.js'

const plan = JSON.parse(process.argv[2])
const out = {}
for (const { spec, maxCalls, budgetMs } of plan) {
  const samplesMs = []
  const started = performance.now()
  while (samplesMs.length < maxCalls) {
    const t0 = performance.now()
    await runWork(spec)
    samplesMs.push(performance.now() - t0)
    if (performance.now() - started > budgetMs && samplesMs.length >= 2) break
  }
  out[spec] = samplesMs
}
process.stdout.write(JSON.stringify(out) + '\n')
