// Run one server (or a --url target) through warm-up and measured rounds while watching it; returns
// a raw record that report.js turns into a result. No formatting here.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { ROOT, findServer } from '../catalog.js'
import { startServer, stopServer } from './boot.js'
import { fireRound, startProbe } from './fire.js'
import { defaultConnections, fireOpenLoop } from './open-loop.js'
import { request, getJson } from './http.js'
import { startSampler } from './sample.js'
import { chooseInterval } from './timeline.js'
import { watchRound } from './watch.js'
import { makeKey, roundFigures } from '../report/build.js'

let workloads = null
async function expectedBodyOf (work) {
  if (!work) return null
  const path = join(ROOT, 'servers', 'lib', 'workloads.js')
  if (!existsSync(path)) return null
  workloads ??= await import(path)
  try {
    return workloads.expectedBody(work)
  } catch {
    return null
  }
}

// Time one fresh GET / right after a round: { ms, status } (status 'timeout' / 'error' when no answer).
export async function timeRecovery (url, { timeoutMs, signal }) {
  const r = await request(`${url}/`, { timeoutMs, signal })
  return { ms: typeof r.status === 'number' ? Math.round(r.ms * 1000) / 1000 : null, status: r.status, timeoutMs }
}

// Fire one round of `amount` (or the load's amount/duration) at url: open loop when the load has a
// rate, else autocannon's closed loop. onSent/onRecord feed the round's timeline (watch.js).
export function fireLoad (
  url,
  load,
  { amount = load.amount, durationSec = load.durationSec, verify, signal, onResponse, onSent, onRecord }
) {
  const common = {
    url,
    amount,
    durationSec: amount ? null : durationSec,
    timeoutSec: load.timeoutSec,
    verify,
    signal,
    onResponse,
    onSent,
    onRecord
  }
  if (load.rate) {
    return fireOpenLoop({
      ...common,
      rate: load.rate,
      arrival: load.arrival,
      seed: load.seed,
      connections: load.connections
    })
  }
  return fireRound({ ...common, connections: amount ? Math.min(load.connections, amount) : load.connections })
}

// How long the recovery period of a round's timeline may last at most (the server may never be idle).
export const RECOVERY_CAP_MS = 30000

// The timeline interval of a load: fixed by --duration, else the smallest (an --amount round coarsens).
export function timelineInterval (load) {
  return chooseInterval(load.durationSec ? load.durationSec * 1000 : null)
}

// One measured round against url: reset stats, sample /proc, probe /health, fire, recover, collect stats;
// the whole round and its recovery period are watched in time (watch.js).
async function measuredRound (target, load, { verify, signal, pid, child, seen, progress, notes }) {
  const reset = await request(`${target}/__lab/stats/reset`, { method: 'POST', timeoutMs: 5000, signal })
  const statsOn = reset.status === 200 || reset.status === 204
  const note = `no telemetry: POST /__lab/stats/reset answered ${reset.status}`
  if (!statsOn && !notes.includes(note)) notes.push(note)
  const intervalMs = timelineInterval(load)
  const watch = watchRound({
    intervalMs,
    child,
    plannedMs: load.durationSec ? load.durationSec * 1000 : null,
    amount: load.amount ?? null,
    onProgress: typeof progress === 'function' ? (event) => progress(event) : null
  })
  const sampler = pid
    ? startSampler(pid, { seen, intervalMs: Math.min(200, intervalMs), onSample: watch.onOutside })
    : null
  const probe = startProbe(`${target}/health`)
  let done = 0
  // Without a recovery request, the stats are read the moment the last answer of an --amount round
  // arrives, before autocannon's closing tick: the server's window (ticks, loop delay) is the round's.
  const readStats = () =>
    statsOn && !signal.aborted ? getJson(`${target}/__lab/stats`, { timeoutMs: 5000, signal }) : null
  let early = null
  const onResponse = () => {
    done++
    if (load.recovery === false && load.amount && done === load.amount) early = readStats()
  }
  const fire = await fireLoad(`${target}/`, load, {
    verify,
    signal,
    onResponse,
    onSent: watch.sent,
    onRecord: watch.record
  })
  watch.endRound()
  const probeResult = await probe.stop()
  const outside = sampler ? sampler.figures() : null
  // With a recovery request, it goes first (the stats request would wait behind abandoned work too);
  // without one, the stats are read at once so that nothing else falls into their window.
  let stats = null
  let recovery = null
  if (load.recovery === false) stats = await (early ?? readStats())
  else {
    recovery = signal.aborted
      ? null
      : await timeRecovery(target, {
        timeoutMs: (load.recoveryTimeoutSec ?? Math.max(10, load.timeoutSec)) * 1000,
        signal
      })
    stats = await readStats()
  }
  // The timeline goes on until the server is idle again, so that abandoned work shows.
  if (load.recovery !== false && (sampler || child)) {
    await watch.recover({ capMs: Math.max(0, RECOVERY_CAP_MS - (recovery?.ms ?? 0)), signal })
  }
  sampler?.stop()
  const timeline = watch.stop()
  return { fire, probe: probeResult, outside, recovery, telemetry: stats?.json ?? null, timeline }
}

// What a sweep needs to know of a finished step: its rate and figures.
function stepOf (round) {
  return { rate: round.fire.rate, figures: roundFigures(round) }
}

// Run one plan entry end to end; never throws for a server's fault (it is recorded as a failure).
// `expectedBody`: the body every answer must have when the work is not built in (a --task).
export async function runEntry (entry, load, opts = {}) {
  const { signal, progress, bootTimeoutMs = 30000, url = null, calibration = {}, expectedBody = null } = opts
  const raw = {
    entry: { ...entry, ...load },
    args: entry.args ?? [],
    rounds: [],
    failure: null,
    interrupted: false,
    workReported: null,
    stop: null,
    notes: []
  }
  let server = null
  const seen = new Map()
  if (url) {
    server = { url: url.replace(/\/$/, ''), pid: null, work: entry.work ?? null }
    const health = await getJson(`${server.url}/health`, { timeoutMs: 5000, signal })
    if (typeof health.status !== 'number') {
      raw.failure = {
        reason: `--url: ${server.url}/health got no answer (${health.error})`,
        exitCode: null,
        signal: null,
        stderrTail: []
      }
      raw.entry.key ??= makeKey(raw.entry)
      return raw
    }
    server.health = health.json ?? null
    if (typeof health.json?.strategy === 'string') {
      raw.entry.server = health.json.strategy
      raw.notes.push(`--url: /health names the strategy ${health.json.strategy}`)
    } else {
      raw.notes.push(`--url: /health answered ${health.status}; the server is named by its address`)
    }
  } else {
    const cat = findServer(entry.server)
    progress?.('starting')
    try {
      // The server pushes its samples over IPC at the timeline's interval (servers/lib/sampling.js).
      const env = { LOADLAB_SAMPLE_MS: String(timelineInterval(load)) }
      server = await startServer({
        entry: cat.entry,
        args: raw.args,
        env,
        bootTimeoutMs,
        signal,
        execPath: entry.runtime?.path
      })
    } catch (err) {
      if (!err.failure) throw err
      raw.failure = err.failure
      raw.interrupted = signal.aborted
      raw.entry.key ??= makeKey(entry)
      return raw
    }
  }
  raw.workReported = server.work ?? entry.work ?? null
  // The runtime the server says it runs (its ready message; /health for --url): recorded, never assumed.
  raw.runtime = server.ready?.node
    ? { node: server.ready.node, v8: server.ready.v8 ?? null }
    : server.health?.node
      ? { node: server.health.node, v8: server.health.v8 ?? null }
      : null
  if (entry.work && server.work && server.work !== entry.work) { raw.notes.push(`planned work ${entry.work}, server reports ${server.work}`) }
  raw.entry.key ??= makeKey({ ...raw.entry, work: raw.workReported })
  const expected = expectedBody ?? (await expectedBodyOf(raw.workReported))
  const verify = expected === null ? null : (body) => body === expected
  if (expected === null) raw.notes.push('bodies compared with the first 2xx response (no expected body for this work)')

  const run = new AbortController()
  const stopRun = () => run.abort()
  signal.addEventListener('abort', stopRun, { once: true })
  let stopping = false
  let crashed = false
  server.exited?.then(() => {
    if (!stopping) {
      crashed = true
      run.abort()
    }
  })
  try {
    if (load.warmup > 0) {
      progress?.('warm-up')
      await fireLoad(`${server.url}/`, load, { amount: load.warmup, verify, signal: run.signal })
    }
    if (entry.sweep) {
      // A rate sweep (the capacity experiment): each step is one open-loop round at the rate the sweep
      // chooses from the steps so far.
      const sweep = entry.sweep({
        serviceMs: calibration?.[raw.workReported]?.medianMs ?? null,
        cores: availableParallelism()
      })
      raw.sweep = { ...sweep.describe(), kinds: sweep.kinds }
      for (let rate = sweep.next([]); rate !== null && !run.signal.aborted; rate = sweep.next(raw.rounds.map(stepOf))) {
        progress?.(`step ${raw.rounds.length + 1}: ${rate.toFixed(1)} req/s`)
        const connections = load.userConnections ?? defaultConnections(rate, load.timeoutSec)
        const round = await measuredRound(
          server.url,
          { ...load, rate, connections },
          {
            verify,
            signal: run.signal,
            pid: server.pid,
            child: server.child ?? null,
            seen,
            notes: raw.notes
          }
        )
        raw.rounds.push(round)
      }
    } else {
      for (let i = 0; i < load.runs && !run.signal.aborted; i++) {
        progress?.(`measuring${load.runs > 1 ? ` round ${i + 1}/${load.runs}` : ''}`)
        const round = await measuredRound(server.url, load, {
          verify,
          signal: run.signal,
          pid: server.pid,
          child: server.child ?? null,
          seen,
          progress,
          notes: raw.notes
        })
        raw.rounds.push(round)
      }
    }
  } catch (err) {
    if (!crashed && !signal.aborted) { raw.failure = { reason: `lab error: ${err.message}`, exitCode: null, signal: null, stderrTail: [] } }
  } finally {
    stopping = true
    signal.removeEventListener('abort', stopRun)
    if (server.pid) {
      progress?.('stopping')
      // After Ctrl-C the user is waiting: a shorter grace before SIGKILL.
      const stop = await stopServer(server, { seen, graceMs: signal.aborted ? 3000 : 8000 })
      const lastRecovery = raw.rounds.at(-1)?.recovery
      const busy = signal.aborted || (lastRecovery && typeof lastRecovery.status !== 'number')
      raw.stop = {
        exitCode: stop.exit?.exitCode ?? null,
        signal: stop.exit?.signal ?? null,
        forced: stop.forced,
        leftovers: stop.leftovers
      }
      const tail = server.stderrTail()
      if (crashed) {
        raw.failure = {
          reason: `exited during the run (code ${stop.exit?.exitCode}, signal ${stop.exit?.signal})`,
          exitCode: stop.exit?.exitCode ?? null,
          signal: stop.exit?.signal ?? null,
          stderrTail: tail
        }
      } else if (stop.forced && busy) {
        // Still working through abandoned requests (interrupted, or the recovery request got no
        // answer): inline work cannot be stopped, so the kill is the strategy's cost, not a failure.
        raw.notes.push(`still busy when stopped: did not exit within ${signal.aborted ? 3 : 8} s of SIGTERM, killed`)
      } else if (stop.forced) {
        raw.failure ??= {
          reason: 'did not exit within 8 s of SIGTERM (killed)',
          exitCode: stop.exit?.exitCode ?? null,
          signal: stop.exit?.signal ?? null,
          stderrTail: tail
        }
      } else if (stop.exit?.exitCode !== 0) {
        raw.failure ??= {
          reason: `exited with code ${stop.exit?.exitCode} (signal ${stop.exit?.signal}) after SIGTERM`,
          exitCode: stop.exit?.exitCode ?? null,
          signal: stop.exit?.signal ?? null,
          stderrTail: tail
        }
      }
      if (stop.leftovers.length) {
        raw.failure ??= {
          reason: `${stop.leftovers.length} process(es) of its tree left after it exited (killed: ${stop.leftovers.join(', ')})`,
          exitCode: stop.exit?.exitCode ?? null,
          signal: stop.exit?.signal ?? null,
          stderrTail: tail
        }
      }
    }
    raw.interrupted = signal.aborted
  }
  return raw
}
