// Experiment `ssr-offload`, its measuring: one case is one implementation running `conc` executions of
// one scenario, timed as study 000 timed it, with a 1 ms interval counting main-loop turns meanwhile.
import { performance } from 'node:perf_hooks'
import { expectedBody } from '../../../servers/lib/workloads.js'
import { runInline, startPool } from '../../offload/index.js'

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)

// A case's key: implementation, concurrency, work.
const key = (impl, conc, work) => `ssr-offload/${impl}/c${conc}@${work}`

// `conc` executions: submitted at once to a pool, or one after another on the main thread (sync).
// Each settles to { body, innerMs, doneMs } or { error, doneMs }; doneMs counts from the batch's start.
async function executions (pool, work, conc) {
  const start = performance.now()
  const settle = (p) => p.then(
    (v) => ({ ...v, doneMs: performance.now() - start }),
    (err) => ({ error: err instanceof Error ? err : new Error(String(err)), doneMs: performance.now() - start })
  )
  if (pool) return Promise.all(Array.from({ length: conc }, () => settle(pool.run(work))))
  const out = []
  for (let i = 0; i < conc; i++) out.push(await settle(runInline(work)))
  return out
}

// One case, measured: the study's M loops, WI, WO (pool start-up + executions, as the study's timer
// wrapped both), and beside them the start-up alone and the executions' mean latency.
export async function measureCase (impl, scenario, conc) {
  const base = {
    kind: 'offload',
    key: key(impl.name, conc, scenario.work),
    mode: impl.name,
    impl: impl.name,
    library: impl.library,
    runsOn: impl.mode,
    work: scenario.work,
    study: { demo: scenario.demo, args: scenario.args, impl: impl.name, conc },
    conc,
    workers: impl.create ? conc : 0
  }
  let ticks = 0
  const interval = setInterval(() => ticks++, 1)
  const start = performance.now()
  let pool = null
  try {
    pool = impl.create ? await startPool(impl, conc) : null
    const poolMs = pool ? performance.now() - start : 0
    const done = await executions(pool, scenario.work, conc)
    const woMs = performance.now() - start
    clearInterval(interval)
    const seen = { workersSeen: pool?.workersSeen ?? 0, processesSeen: pool?.processesSeen ?? 0 }
    return { ...base, ...verdict(done, scenario.work), ticks, poolMs, woMs, meanMs: woMs, ...seen }
  } catch (err) {
    clearInterval(interval)
    const reason = err.message.split('\n')[0]
    return {
      ...base,
      status: 'failed',
      failure: { reason, code: err.code ?? null },
      checked: false,
      trusted: false,
      untrusted: [`failed: ${reason}`],
      ticks: null,
      poolMs: null,
      woMs: null,
      meanMs: null
    }
  } finally {
    clearInterval(interval)
    await pool?.close()
  }
}

// The executions' figures and their check against the sync body (the study's W result).
function verdict (done, work) {
  const expected = expectedBody(work)
  const errors = done.filter((d) => d.error)
  const mismatches = done.filter((d) => !d.error && d.body !== expected)
  const untrusted = []
  if (errors.length) untrusted.push(`${errors.length} errors (first: ${errors[0].error.message.split('\n')[0]})`)
  if (mismatches.length) untrusted.push(`${mismatches.length} results differ from sync`)
  return {
    status: 'ok',
    failure: null,
    executions: done.length,
    innerMs: mean(done.filter((d) => !d.error).map((d) => d.innerMs)),
    latencyMs: mean(done.map((d) => d.doneMs)),
    batchMs: Math.max(...done.map((d) => d.doneMs)),
    answers: { calls: done.length, mismatches: mismatches.length, errors: errors.length },
    checked: untrusted.length === 0,
    trusted: untrusted.length === 0,
    untrusted
  }
}
