// Experiment `dispatch`, its measuring: open each dispatcher, time every case's runs, check every
// answer, and turn what was measured (or what failed) into results.
import { performance } from 'node:perf_hooks'
import {
  NATIVE_MODES, UNPOOLED, createDispatcher, expectedAnswer, loadNativeCaller, makeId
} from '../../channels/index.js'
import { POOLED, cases, estimateMs, key, resolveOptions, runsFor } from './plan.js'
import { fmtMs3 } from '../../text/format.js'

// One progress line for a finished case.
function line (e) {
  const check = e.trusted ? 'all answers correct' : e.untrusted.join(', ')
  return `dispatch: ${e.mode === 'main' ? 'main' : e.mode + ' w' + e.workers} c${e.costMs} ` +
    `p${e.payloadBytes}: ${fmtMs3(e.meanMs)} ms (${e.runs} runs, ${e.calls} calls, ${check})`
}

// Mean, min and max of a case's run times (nulls for none).
export function stats (samples) {
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
    if (!Array.isArray(answers)) { // the native caller checks its answers itself: { calls, mismatches, errors }
      checked += answers.calls
      mismatches += answers.mismatches
      errors += answers.errors
      if (answers.mismatches || answers.errors) {
        firstProblem ??= `native check: ${answers.mismatches} ` +
        `mismatches, ${answers.errors} errors`
      }
      continue
    }
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

// Start a dispatcher `runs` times, timing each start-up and closing all but the last: { d (the last, or
// null), samplesMs, failure (the error of a start that threw, or null) }.
async function timedStarts (start, stop, runs, signal) {
  const samplesMs = []
  let d = null
  for (let r = 0; r < runs && !signal?.aborted; r++) {
    try {
      d = await start()
    } catch (err) {
      return { d: null, samplesMs, failure: signal?.aborted ? null : err }
    }
    samplesMs.push(d.startupMs)
    if (r < runs - 1) {
      await stop(d)
      d = null
    }
  }
  return { d, samplesMs, failure: null }
}

// The native caller when a native mode is asked for, built on first use; where it cannot be, one line
// says why and the native modes are left out of this run (o.modes is trimmed).
async function nativeCaller (o, progress, note) {
  if (!o.modes.some((m) => NATIVE_MODES.includes(m))) return null
  const native = await loadNativeCaller()
  if (native.addon) {
    if (native.built) progress(`dispatch: native caller built (${native.file})`)
    return native
  }
  const line = `dispatch: no native caller here (${native.reason}); running the JS callers only`
  progress(line)
  note(line) // the report's notes, and a line the terminal always shows (cli.js)
  o.modes = o.modes.filter((m) => !NATIVE_MODES.includes(m))
  return null
}

// Run the matrix; resolves with results[] (on abort: promptly, with what was measured so far).
export async function run (opts = {}, { signal, progress = () => {}, note = () => {} } = {}) {
  const o = resolveOptions(opts)
  const native = await nativeCaller(o, progress, note)
  const all = cases(o)
  const results = []
  const open = new Set()
  const onAbort = () => {
    for (const d of open) d.close({ graceMs: 0 }).catch(() => {})
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  const start = async (mode, workers) => {
    const d = await createDispatcher(mode, { workers, maxPayloadBytes: Math.max(...o.payloads), signal, native })
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
    `dispatch: ${all.length} cases × ${o.runs} runs, modes ${o.modes.join(', ')}, ` +
      `workers ${o.workers.join(', ')}; expected about ${Math.round(estimateMs(o) / 1000)} s`
  )
  try {
    for (const mode of UNPOOLED.filter((m) => o.modes.includes(m))) {
      if (!signal?.aborted) await measureAll(await start(mode, 0))
    }
    for (const workers of o.workers) {
      for (const mode of POOLED.filter((m) => o.modes.includes(m))) {
        if (signal?.aborted) break
        const { d, samplesMs, failure } = await timedStarts(() => start(mode, workers), stop, o.startupRuns, signal)
        if (signal?.aborted && !failure) {
          if (d) await stop(d)
          break
        }
        const took = failure ? `failed: ${failure.message}` : `${fmtMs3(stats(samplesMs).meanMs)} ms`
        progress(`dispatch: start-up ${mode} w${workers}: ${took}`)
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
