// The machine model: what the ruler (report.ruler, measured with no server running) predicts for a figure
// of a strategy when the machine changes from report A's to report B's. Pure data and functions: the
// verdict (result/verdict.js) divides a ratio by this prediction and judges what is left.
//
// A request costs, on one thread, t = http + spawn + work (ms):
// - http: the loopback's cost per answer, 1000 / ruler.loopback.rps (what a cheap request is made of);
// - spawn: ruler.spawn.processMs or workerMs for a strategy that starts a process or thread per request;
// - work: the work's calibrated service time on A (report.calibration), times B's single-thread time over
//   A's for the ruler's work of the same kind (loop, hash, json, render); a sleep costs the same anywhere.
// Throughput goes as parallel / t, with parallel 1 for one event loop and min(cores.effective, pool) for the
// strategies that spread requests over processes or threads (pool: the server's --workers/--threads, else
// the cores the machine offered). A closed loop's latency goes as 1 / throughput (Little's law at a fixed
// number of connections); an open loop's, far under capacity, as t.
import { isNum } from './stats.js'
import { floorOf, rulerFigures, rulerRatios } from './ruler.js'
import { STRATEGIES, usesCores } from './strategies.js'

// How a strategy uses the machine (result/strategies.js): `parallel` 'one' (one event loop) or 'cores' (over
// processes or threads, bounded by its pool flag); `spawn` the ruler's start cost paid per request (null: none).
// A strategy the table does not name (a --url service, a new server): one event loop, no spawn.
const SPAWN = { thread: 'workerMs', process: 'processMs' }
export function strategyModel (server) {
  const s = STRATEGIES[server]
  return { parallel: usesCores(s) ? 'cores' : 'one', spawn: SPAWN[s?.starts] ?? null, pool: s?.pool ?? null }
}

// The ruler's single-thread figure that stands for a work's kind (the part before ':'); null: the work
// waits rather than computes (a sleep), and costs the same on any machine.
export const WORK_FIGURE = Object.freeze({
  loop: 'single.loop',
  fib: 'single.loop',
  fail: 'single.loop',
  hash: 'single.hash',
  json: 'single.json',
  render: 'single.render',
  ssr: 'single.render',
  sleep: null,
  'sleep-sync': null
})

// The ruler's figures flat (result/ruler.js rulerFigures: the start reading, or the mean of start and end)
// and the cores the machine offered; null without a ruler.
export function flatFigures (ruler) {
  if (!ruler?.start || typeof ruler.start !== 'object') return null
  const out = { ...rulerFigures(ruler) }
  out.offered = isNum(ruler.start.cores?.offered) ? ruler.start.cores.offered : null
  return out
}

// B's figures as the model reads them: a figure that did not move beyond its spread (each at least its quiet
// drift, result/ruler.js) is A's, so two readings of one machine predict no change rather than their noise
// (a JSON or loopback reading moves 2 × between quiet runs); a moved figure is B's, its spread its floor's.
function movedFigures (rulerA, rulerB, fa, fb) {
  const ratios = rulerRatios(rulerA, rulerB)
  const out = { ...fb }
  for (const [name, r] of Object.entries(ratios)) {
    out[name] = r.beyond ? { ...fb[name], spreadPct: Math.max(floorOf(name), fb[name].spreadPct ?? 0) } : fa[name]
  }
  return out
}

// The pool a run's server spread its requests over: its pool flag's value, else the cores the machine offered.
function poolOf (run, figures, flag) {
  const args = Array.isArray(run?.args) ? run.args : []
  const i = flag ? args.indexOf(flag) : -1
  if (i !== -1 && Number(args[i + 1]) > 0) return Number(args[i + 1])
  return isNum(figures.offered) ? figures.offered : Infinity
}

// The ruler's figure that stands for a work (its kind before ':'); undefined for a kind the table lacks.
function workFigure (work) {
  const kind = String(work ?? '').split(':')[0]
  return kind in WORK_FIGURE ? WORK_FIGURE[kind] : 'single.loop'
}

// One side's cost per request (ms) and parallelism, and the figures they read: { t, parallel, used }.
function sideCost (model, figures, { run, workMs, speed }) {
  const used = []
  const read = (name) => {
    const f = figures[name]
    if (!isNum(f?.value) || !(f.value > 0)) return null
    used.push(f)
    return f.value
  }
  const rps = read('loopback.rps')
  const http = rps ? 1000 / rps : 0
  const spawn = model.spawn ? read(`spawn.${model.spawn}`) ?? 0 : 0
  let parallel = 1
  if (model.parallel === 'cores') {
    const eff = read('cores.effective')
    parallel = Math.min(eff ?? 1, poolOf(run, figures, model.pool))
  }
  return { t: http + spawn + workMs * speed, parallel, used }
}

/**
 * What the ruler predicts for a run moved from machine A (ruler `rulerA`, the run `runA`, its report's
 * calibrated service time `workMs`) to machine B: { throughput, latency, spread, figures } with
 * throughput and latency the predicted ratios B / A, `spread` the prediction's own log uncertainty (the
 * ruler figures' spreads it rests on), `figures` the names it read; null when either side has no ruler.
 */
export function predict ({ rulerA, rulerB, runA, runB, workMs }) {
  const fa = flatFigures(rulerA)
  const measured = flatFigures(rulerB)
  if (!fa || !measured) return null
  const fb = movedFigures(rulerA, rulerB, fa, measured)
  const model = strategyModel(runA?.server)
  const name = workFigure(runA?.work)
  const sa = name ? fa[name] : null
  const sb = name ? fb[name] : null
  const speed = sa && sb && sa.value > 0 ? sb.value / sa.value : 1
  const work = isNum(workMs) && workMs > 0 ? workMs : 1 // no calibration: the work is all of a request
  const a = sideCost(model, fa, { run: runA, workMs: work, speed: 1 })
  const b = sideCost(model, fb, { run: runB ?? runA, workMs: work, speed })
  const throughput = (b.parallel / b.t) / (a.parallel / a.t)
  const closed = (runA?.loop ?? 'closed') !== 'open'
  const latency = closed ? 1 / throughput : b.t / a.t
  // the uncertainty is the moved figures' (a figure within its quiet drift is taken as unchanged)
  const spreads = [...b.used, ...(sb && sb !== sa ? [sb] : [])].filter((f) => !a.used.includes(f) && f !== sa)
    .map((f) => (f.spreadPct ?? 0) / 100)
  const spread = Math.sqrt(spreads.reduce((s, x) => s + x * x, 0))
  const figures = ['loopback.rps', ...(name && sa && sb ? [name] : []),
    ...(model.parallel === 'cores' ? ['cores.effective'] : []), ...(model.spawn ? [`spawn.${model.spawn}`] : [])]
  return { throughput, latency, spread, figures, model: model.parallel, spawn: model.spawn }
}
