// Experiment `dispatch` (study 003): how much it costs to hand a call to a worker thread.
//
// In-process, no HTTP. A CPU-spinning hook `resolveId(id)` is called `calls` times (1000 when it costs
// nothing, else floor(1000 / cost)) through three modes: inline on the main thread; a piscina pool
// (message passing); a shared-memory channel (SharedArrayBuffer + Atomics, no event-loop hop in the
// worker, no structured clone). Every answer is checked against 'worker:' + id.
import { availableParallelism } from 'node:os'
import { performance } from 'node:perf_hooks'
import { MODES, createDispatcher, expectedAnswer, makeId } from '../channels/index.js'

const POOLED = MODES.filter((m) => m !== 'main')

const defaults = Object.freeze({
  runs: 10,
  workers: [1, 4, 8, 16],
  costs: [0, 1, 3, 5, 10],
  payloads: [30, 1e4, 1e5, 1e6],
  payloadCost: 10, // the payload sweep runs at this cost, as the study did
  callsBase: 1000, // calls = callsBase when the cost is 0, else floor(callsBase / cost)
  startupRuns: null, // pool start-ups measured per mode and worker count (null: runs)
  // Long cases (their hook alone spins calls × cost / workers >= longCaseMs: main and 1 worker with a
  // cost) run min(runs, longCaseRuns) times, to keep the full run to a few minutes. Their time is
  // ~1000 ms of spinning by construction and varies little; longCaseMs: Infinity runs every case
  // `runs` times, as the study did.
  longCaseMs: 500,
  longCaseRuns: 3,
  modes: MODES
})

const quick = Object.freeze({
  runs: 1,
  workers: [1, 2],
  costs: [0, 1],
  payloads: [30, 1e4],
  payloadCost: 1,
  callsBase: 100,
  startupRuns: 1
})

// The options this experiment reads, merged: defaults, then quick (opts.quick), then opts.
export function resolveOptions (opts = {}) {
  const o = { ...defaults, ...(opts.quick ? quick : {}) }
  for (const key of Object.keys(defaults)) if (opts[key] !== undefined && opts[key] !== null) o[key] = opts[key]
  const list = (name, check, rule) => {
    const v = o[name]
    if (!Array.isArray(v) || v.length === 0 || !v.every(check)) {
      throw new RangeError(`dispatch: ${name}: expected a non-empty list of ${rule}, got ${JSON.stringify(v)}`)
    }
  }
  list('workers', (n) => Number.isInteger(n) && n >= 1 && n <= 256, 'integers from 1 to 256')
  list('costs', (n) => Number.isFinite(n) && n >= 0 && n <= 1000, 'numbers of ms from 0 to 1000')
  list('payloads', (n) => Number.isInteger(n) && n >= 1 && n <= 64e6, 'integers of bytes from 1 to 64e6')
  list('modes', (m) => MODES.includes(m), MODES.join(' | '))
  for (const [name, min, max] of [
    ['runs', 1, 1000],
    ['callsBase', 1, 1e7]
  ]) {
    if (!Number.isInteger(o[name]) || o[name] < min || o[name] > max) {
      throw new RangeError(
        `dispatch: ${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(o[name])}`
      )
    }
  }
  if (!(Number.isFinite(o.payloadCost) && o.payloadCost >= 0 && o.payloadCost <= 1000)) {
    throw new RangeError(
      `dispatch: payloadCost: expected a number of ms from 0 to 1000, got ${JSON.stringify(o.payloadCost)}`
    )
  }
  o.startupRuns ??= o.runs
  if (o.longCaseRuns !== null && (!Number.isInteger(o.longCaseRuns) || o.longCaseRuns < 1)) {
    throw new RangeError(
      `dispatch: longCaseRuns: expected a positive integer or null, got ${JSON.stringify(o.longCaseRuns)}`
    )
  }
  if (!(typeof o.longCaseMs === 'number' && o.longCaseMs >= 0)) {
    throw new RangeError(
      `dispatch: longCaseMs: expected a non-negative number (Infinity: no long cases), got ${JSON.stringify(o.longCaseMs)}`
    )
  }
  if (!Number.isInteger(o.startupRuns) || o.startupRuns < 1) {
    throw new RangeError(`dispatch: startupRuns: expected a positive integer, got ${JSON.stringify(o.startupRuns)}`)
  }
  return o
}

// Calls per case: the study keeps the hook's total CPU time constant.
export function callsFor (costMs, callsBase = 1000) {
  return costMs === 0 ? callsBase : Math.max(1, Math.floor(callsBase / costMs))
}

// The cases in study order: each cost with the smallest payload, then the payload sweep at payloadCost.
export function cases (o) {
  const out = []
  const seen = new Set()
  const add = (costMs, payloadBytes) => {
    const k = `${costMs}/${payloadBytes}`
    if (seen.has(k)) return
    seen.add(k)
    out.push({ costMs, payloadBytes, calls: callsFor(costMs, o.callsBase) })
  }
  const [first, ...rest] = o.payloads
  for (const c of o.costs) add(c, first)
  for (const p of rest) add(o.payloadCost, p)
  return out
}

// Runs of one case: `runs`, or fewer for a long case (see longCaseMs in the defaults).
export function runsFor (o, c, workers) {
  const spinMs = (c.calls * c.costMs) / Math.max(1, workers)
  return o.longCaseRuns !== null && spinMs >= o.longCaseMs ? Math.min(o.runs, o.longCaseRuns) : o.runs
}

// Rough expected wall time of a run in ms: the hook's spin time (threads beyond the cores do not
// help much here, measured) plus allowances per call, per payload byte and per thread started.
export function estimateMs (opts) {
  const o = resolveOptions(opts)
  const cores = availableParallelism()
  let ms = 0
  for (const c of cases(o)) {
    const spin = c.calls * c.costMs
    if (o.modes.includes('main')) ms += runsFor(o, c, 0) * (spin * 1.05 + c.calls * 0.001)
    for (const w of o.workers) {
      const perRun = spin / Math.min(w, cores) + c.calls * 0.05 + (c.payloadBytes * c.calls) / 5e6
      for (const m of POOLED) if (o.modes.includes(m)) ms += runsFor(o, c, w) * perRun
    }
  }
  for (const w of o.workers) ms += POOLED.filter((m) => o.modes.includes(m)).length * o.startupRuns * (40 + 15 * w)
  return ms
}

const key = (mode, workers, costMs, payloadBytes) => `dispatch/${mode}/w${workers}/c${costMs}/p${payloadBytes}`

function stats (samples) {
  const n = samples.length
  if (n === 0) return { meanMs: null, minMs: null, maxMs: null }
  return { meanMs: samples.reduce((a, b) => a + b, 0) / n, minMs: Math.min(...samples), maxMs: Math.max(...samples) }
}

// Time `runs` batches of one case on an open dispatcher; check every answer.
async function measureCase (d, c, o, signal) {
  const id = makeId(c.payloadBytes)
  const expected = expectedAnswer(id)
  d.setCost(c.costMs)
  const samplesMs = []
  const cpuMs = []
  let mismatches = 0
  let errors = 0
  let firstProblem = null
  let checked = 0
  const poolErrorsBefore = d.poolErrors?.length ?? 0
  const runs = runsFor(o, c, d.workers)
  for (let r = 0; r < runs; r++) {
    if (signal?.aborted) break
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    const answers = await d.batch(id, c.calls)
    const ms = performance.now() - t0
    const used = process.cpuUsage(cpu)
    if (signal?.aborted) break // the answers of an interrupted batch are not a measurement
    samplesMs.push(ms)
    cpuMs.push((used.user + used.system) / 1000)
    for (const a of answers) {
      checked++
      if (a === expected) continue
      if (a instanceof Error) errors++
      else mismatches++
      firstProblem ??=
        a instanceof Error ? `error: ${a.message}` : `got ${describeAnswer(a)}, expected ${describeAnswer(expected)}`
    }
  }
  const s = stats(samplesMs)
  const untrusted = []
  if (mismatches) untrusted.push(`${mismatches} mismatches`)
  if (errors) untrusted.push(`${errors} errors`)
  const poolErrors = (d.poolErrors?.length ?? 0) - poolErrorsBefore
  if (poolErrors) untrusted.push(`${poolErrors} pool errors (first: ${d.poolErrors[poolErrorsBefore].message})`)
  return {
    kind: 'dispatch',
    key: key(d.mode, d.workers, c.costMs, c.payloadBytes),
    mode: d.mode,
    workers: d.workers,
    costMs: c.costMs,
    payloadBytes: c.payloadBytes,
    calls: c.calls,
    runs: samplesMs.length,
    ...s,
    perCallUs: s.meanMs === null ? null : (s.meanMs * 1000) / c.calls,
    samplesMs,
    cpuMs: stats(cpuMs).meanMs,
    startupMs: d.startup?.meanMs ?? null,
    startupSamplesMs: d.startup?.samplesMs ?? null,
    checked: checked > 0 && mismatches === 0 && errors === 0,
    answers: { calls: checked, mismatches, errors, first: firstProblem },
    status: 'ok',
    failure: null,
    trusted: untrusted.length === 0 && samplesMs.length > 0,
    untrusted
  }
}

function describeAnswer (a) {
  if (typeof a !== 'string') return String(a)
  return a.length > 40 ? `${JSON.stringify(a.slice(0, 20))}… (${a.length} chars)` : JSON.stringify(a)
}

function failedCase (mode, workers, c, err, startupSamplesMs) {
  return {
    kind: 'dispatch',
    key: key(mode, workers, c.costMs, c.payloadBytes),
    mode,
    workers,
    costMs: c.costMs,
    payloadBytes: c.payloadBytes,
    calls: c.calls,
    runs: 0,
    meanMs: null,
    minMs: null,
    maxMs: null,
    perCallUs: null,
    samplesMs: [],
    cpuMs: null,
    startupMs: null,
    startupSamplesMs,
    checked: false,
    answers: { calls: 0, mismatches: 0, errors: 0, first: null },
    status: 'failed',
    failure: { reason: err.message, code: err.code ?? null },
    trusted: false,
    untrusted: [`failed: ${err.message}`]
  }
}

// Run the matrix; resolves with results[] (on abort: promptly, with what was measured so far).
async function run (opts = {}, { signal, progress = () => {} } = {}) {
  const o = resolveOptions(opts)
  const all = cases(o)
  const results = []
  const open = new Set()
  const onAbort = () => {
    for (const d of open) d.close({ graceMs: 0 }).catch(() => {})
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  const start = async (mode, workers) => {
    const d = await createDispatcher(mode, { workers, maxPayloadBytes: Math.max(...o.payloads), signal })
    open.add(d)
    return d
  }
  const stop = async (d) => {
    open.delete(d)
    await d.close()
  }
  // Every case on one open dispatcher, in order, until aborted; the dispatcher is closed after.
  async function measureAll (d) {
    try {
      for (const c of all) {
        if (signal?.aborted) break
        const entry = await measureCase(d, c, o, signal)
        if (entry.runs > 0) results.push(entry)
        progress(line(entry))
      }
    } finally {
      await stop(d)
    }
  }
  progress(
    `dispatch: ${all.length} cases × ${o.runs} runs, modes ${o.modes.join(', ')}, workers ${o.workers.join(', ')}; expected about ${Math.round(estimateMs(o) / 1000)} s`
  )
  try {
    if (o.modes.includes('main')) {
      await measureAll(await start('main', 0))
    }
    for (const workers of o.workers) {
      for (const mode of POOLED.filter((m) => o.modes.includes(m))) {
        if (signal?.aborted) break
        const samplesMs = []
        let d = null
        let failure = null
        for (let r = 0; r < o.startupRuns && !signal?.aborted; r++) {
          try {
            d = await start(mode, workers)
          } catch (err) {
            if (signal?.aborted) break
            failure = err
            break
          }
          samplesMs.push(d.startupMs)
          if (r < o.startupRuns - 1) {
            await stop(d)
            d = null
          }
        }
        if (signal?.aborted && !failure) {
          if (d) await stop(d)
          break
        }
        progress(
          `dispatch: start-up ${mode} w${workers}: ${failure ? 'failed: ' + failure.message : fmt(stats(samplesMs).meanMs) + ' ms'}`
        )
        if (failure) {
          if (d) await stop(d)
          for (const c of all) results.push(failedCase(mode, workers, c, failure, samplesMs))
          continue
        }
        d.startup = { ...stats(samplesMs), samplesMs }
        await measureAll(d)
      }
      if (signal?.aborted) break
    }
  } finally {
    signal?.removeEventListener('abort', onAbort)
    await Promise.all([...open].map((d) => d.close({ graceMs: 0 })))
  }
  return results
}

const fmt = (ms) =>
  ms === null || ms === undefined ? '–' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)

function line (e) {
  const check = e.trusted ? 'all answers correct' : e.untrusted.join(', ')
  return `dispatch: ${e.mode === 'main' ? 'main' : e.mode + ' w' + e.workers} c${e.costMs} p${e.payloadBytes}: ${fmt(e.meanMs)} ms (${e.runs} runs, ${e.calls} calls, ${check})`
}

const bytes = (n) => (n >= 1e6 ? `${n / 1e6} MB` : n >= 1e3 ? `${n / 1e3} kB` : `${n} B`)

// The study's table: start-up per pool, then per case main vs each pooled mode and worker count,
// with the mean time and its ratio to main.
function table (report) {
  const results = report.results ?? []
  const head = ['case', 'mode', 'workers', 'calls', 'mean ms', 'min–max ms', 'µs/call', 'vs main', 'answers']
  const rows = []
  const entries = results.filter((r) => r.kind === 'dispatch')
  const pools = new Map()
  for (const e of entries) { if (e.mode !== 'main' && !pools.has(`${e.mode}/${e.workers}`)) pools.set(`${e.mode}/${e.workers}`, e) }
  const order = (e) => MODES.indexOf(e.mode) * 10000 + e.workers
  for (const e of [...pools.values()].sort((a, b) => order(a) - order(b))) {
    const s = e.startupSamplesMs?.length ? stats(e.startupSamplesMs) : null
    rows.push([
      'start-up',
      e.mode,
      String(e.workers),
      '',
      e.startupMs === null ? 'failed' : fmt(e.startupMs),
      s ? `${fmt(s.minMs)}–${fmt(s.maxMs)}` : '',
      '',
      '',
      ''
    ])
  }
  const caseKeys = [...new Set(entries.map((e) => `${e.costMs}/${e.payloadBytes}`))]
  for (const ck of caseKeys) {
    const group = entries.filter((e) => `${e.costMs}/${e.payloadBytes}` === ck).sort((a, b) => order(a) - order(b))
    const main = group.find((e) => e.mode === 'main' && e.meanMs !== null)
    for (const e of group) {
      rows.push([
        `cost ${e.costMs} ms, ${bytes(e.payloadBytes)}`,
        e.mode,
        e.mode === 'main' ? '–' : String(e.workers),
        String(e.calls),
        e.status === 'ok' ? fmt(e.meanMs) : 'failed',
        e.meanMs === null ? '' : `${fmt(e.minMs)}–${fmt(e.maxMs)}`,
        e.perCallUs === null ? '' : e.perCallUs.toFixed(1),
        main && e.meanMs !== null ? `${(e.meanMs / main.meanMs).toFixed(2)}×` : '',
        e.status !== 'ok' ? 'failed' : e.trusted ? `${e.answers.calls} ok` : e.untrusted.join(', ')
      ])
    }
  }
  return { head, rows }
}

// Caveats a reader of this experiment's report should see.
function notes (opts = {}) {
  const o = resolveOptions(opts)
  return [
    "dispatch: the hook spins on wall-clock time (performance.now()), as the study's did: with more threads than cores, threads time-share and each still finishes its call after costMs of wall time, so speed-ups beyond the core count measure dispatch overhead, not extra CPU (cpuMs shows the CPU actually used).",
    `dispatch: piscina runs with its default options except minThreads = maxThreads = W and idleTimeout = Infinity; the shared channel's buffers hold ${Math.max(...o.payloads)} bytes + the 'worker:' prefix.`,
    'dispatch: main runs are the hook in a synchronous loop; start-up is measured from spawning the pool until every thread has loaded the hook.',
    ...(o.longCaseRuns === null ||
    o.longCaseRuns >= o.runs ||
    !cases(o).some((c) => [0, ...o.workers].some((w) => runsFor(o, c, w) < o.runs))
      ? []
      : [
          `dispatch: cases whose hook alone spins >= ${o.longCaseMs} ms per run (calls × cost / workers: main and 1 worker with a cost) ran min(runs, ${o.longCaseRuns}) times instead of ${o.runs}, to keep the run short; their entries' runs field says so. The study ran every case 10 times.`
        ])
  ]
}

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
