// Experiment `dispatch` (study 003): how much it costs to hand a call to a worker thread.
//
// In-process, no HTTP. A CPU-spinning hook `resolveId(id)` is called `calls` times (1000 when it costs
// nothing, else floor(1000 / cost)) through three modes: inline on the main thread; a piscina pool
// (message passing); a shared-memory channel (SharedArrayBuffer + Atomics, no event-loop hop in the
// worker, no structured clone). Every answer is checked against 'worker:' + id.
//
// The plan (settings, cases) is in dispatch/plan.js, the measuring in dispatch/measure.js, the study's
// table in dispatch/table.js.
import { callsFor, cases, defaults, estimateMs, quick, resolveOptions, runsFor } from './dispatch/plan.js'
import { run } from './dispatch/measure.js'
import { notes, table } from './dispatch/table.js'

export { callsFor, cases, estimateMs, resolveOptions, runsFor }

export default {
  name: 'dispatch',
  study: '003',
  title: 'Dispatching a CPU-bound hook: main thread vs piscina vs a shared-memory channel',
  description:
    'In-process, no HTTP: calls a hook that spins for 0, 1, 3, 5 or 10 ms (1000 calls, or 1000/cost) ' +
    'with a 30 B to 1 MB id, on the main thread, through a piscina pool (message passing, structured clone) ' +
    'and through a shared-memory channel (SharedArrayBuffer + Atomics.wait in the worker, Atomics.waitAsync ' +
    'on the main thread, no event-loop hop in the worker, no structured clone), with 1, 4, 8 and 16 workers; ' +
    'the payload sweep runs at 10 ms as in the study. Each case runs 10 times (mean, no warm-up), except ' +
    'that the long cases (main and 1 worker with a cost: about 1 s of spinning per run) run 3 times to keep ' +
    'the full run to a few minutes (the study ran every case 10 times; longCaseMs: Infinity does too). ' +
    'Every answer is checked; pool start-up is timed from spawn until all threads are ready. The hook spins ' +
    'on wall-clock time, so with more workers than cores the speed-up reflects dispatch overhead, not CPU.',
  defaults,
  quick,
  run,
  table,
  notes,
  estimateMs
}
