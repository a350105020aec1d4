// The work of one study-000 execution, as every pool's worker runs it: the lab's workload, timed from
// inside (the study's WI), its answer as the body a server would send (checked against the sync one).
import { performance } from 'node:perf_hooks'
import { threadId } from 'node:worker_threads'
import { runWork } from '../../servers/lib/workloads.js'

// One execution: { body, innerMs }.
export async function run (spec) {
  const start = performance.now()
  const result = await runWork(spec)
  return { body: JSON.stringify(result), innerMs: performance.now() - start }
}

// Which worker answered (process id and thread id): how a pool's start-up sees every worker up.
export function ready () {
  return `${process.pid}:${threadId}`
}
