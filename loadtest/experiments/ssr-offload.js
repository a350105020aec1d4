// Experiment `ssr-offload` (study 000, FormidableLabs/ssr-experiments), as the study ran it: a script,
// no server. For each concurrency (1, 2, 4) and scenario, each implementation runs that many
// executions: `sync` one after another on the main thread; each pool (piscina threads, workerpool
// threads and processes, jest-worker processes and threads) created for the case with one worker per
// execution, all executions submitted at once, then ended. Measuring is in ssr-offload/measure.js.
import { IMPLS, IMPL_NAMES, implFor } from '../offload/index.js'
import { measureCase } from './ssr-offload/measure.js'
import { MISSING, fmtMs, fmtCount } from '../text/format.js'
import { clip } from '../errors.js'

// The study's scenarios: noop = setTimeout 10 ms / 1 s, fib 4 / 40, react 1 / 1000 ("5K") / 50000.
const SCENARIOS = [
  { demo: 'noop', args: '10ms', work: 'sleep:10' },
  { demo: 'noop', args: '1s', work: 'sleep:1000' },
  { demo: 'fib', args: '4', work: 'fib:4' },
  { demo: 'fib', args: '40', work: 'fib:40' },
  { demo: 'react', args: '1', work: 'render:1' },
  { demo: 'react', args: '1000', work: 'render:1000' },
  { demo: 'react', args: '50000', work: 'render:50000' }
]
const QUICK = [
  { demo: 'noop', args: '10ms', work: 'sleep:10' },
  { demo: 'fib', args: '20', work: 'fib:20' },
  { demo: 'react', args: '50', work: 'render:50' }
]

// The cases in the study's order: concurrency, then scenario, then implementation.
export function cases (settings, work = null) {
  const scenarios = work ? [{ demo: work.split(':')[0], args: work.split(':')[1], work }] : settings.scenarios
  const impls = settings.impls.map(implFor)
  return settings.concurrencies.flatMap((conc) =>
    scenarios.flatMap((s) => impls.map((impl) => ({ impl, scenario: s, conc }))))
}

// Run every case; resolves with results[] (on abort: with what was measured so far).
async function run (opts = {}, { signal, progress = () => {} } = {}) {
  const settings = { ...defaults, ...(opts.quick ? quick : {}), ...opts.settings }
  const all = cases(settings, opts.work ?? null)
  progress(`ssr-offload: ${all.length} cases (${settings.impls.join(', ')}; ` +
    `concurrency ${settings.concurrencies.join(', ')})`)
  const results = []
  for (const { impl, scenario, conc } of all) {
    if (signal?.aborted) break
    const r = await measureCase(impl, scenario, conc)
    results.push(r)
    const check = r.status !== 'ok' ? `FAILED: ${r.failure.reason}` : r.trusted ? 'pass' : r.untrusted.join(', ')
    progress(`ssr-offload: ${r.impl} c${conc} ${scenario.work}: WO ${fmtMs(r.woMs)} ms (${check})`)
  }
  return results
}

const defaults = {
  concurrencies: [1, 2, 4],
  scenarios: SCENARIOS,
  impls: IMPL_NAMES
}
const quick = { concurrencies: [1, 2], scenarios: QUICK }

// The study's table (Demo, Conc, Args, Impl, M loops, WI time, WO time, W result), with the pool's
// start-up and the executions' mean latency beside WO under their own names. A failed case says why in
// its W result (a worker that crashed: the library's own words), the terminal's table included.
function table (report) {
  const head = [
    'Demo', 'Conc', 'Args', 'Impl', 'M loops', 'WI time', 'WO time', 'pool start', 'mean latency', 'W result'
  ]
  const rows = (report.results ?? [])
    .filter((r) => r.kind === 'offload')
    .map((r) => [
      r.study?.demo ?? r.work,
      String(r.conc),
      r.study?.args ?? MISSING,
      r.impl,
      fmtCount(r.ticks),
      fmtMs(r.innerMs),
      fmtMs(r.woMs),
      r.workers ? fmtMs(r.poolMs) : MISSING,
      fmtMs(r.latencyMs),
      r.status === 'failed' ? `FAILED: ${clip(r.failure?.reason ?? 'no reason', 60)}` : r.trusted ? 'pass' : 'fail'
    ])
  return { head, rows }
}

export default {
  name: 'ssr-offload',
  study: '000',
  title: 'SSR offload: sync vs piscina, workerpool and jest-worker pools, in threads and processes',
  description:
    `In-process, no HTTP, as the study ran: ${IMPLS.map((i) => i.name).join(', ')} on sleep:10, sleep:1000, fib:4, ` +
    'fib:40, render:1, render:1000, render:50000 at concurrency 1, 2, 4 (that many executions; each pool is created ' +
    'for the case with one worker per execution, as the study did). M loops: 1 ms main-loop ticks while the ' +
      'case ran. ' +
    'WI: mean time inside one execution. WO: the whole batch as the study timed it, pool start-up included; ' +
      'pool start: ' +
    'from creating the pool until every worker has answered a call; mean latency: mean time from the batch start to ' +
    'each execution\'s answer. sync runs its executions one after another. W result: every answer equals the ' +
      'sync body.',
  defaults,
  quick,
  run,
  table,
  notes: () => [
    'ssr-offload: the pool is created and ended for every case, as the study did; its start-up (until every ' +
      'worker has answered one call) is inside WO and shown apart as pool start. Ending the pool is not timed.',
    'ssr-offload: react renders the lab\'s deterministic colours (the study drew random ones) with React\'s build ' +
      'as NODE_ENV picks it (unset: the development build, as the study ran); W result compares whole bodies (the ' +
        'study compared the first 10 characters and the length).'
  ]
}
