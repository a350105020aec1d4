// Run one server (or a --url target) through warm-up and measured rounds while watching it; returns
// a run record that result/build.js turns into a result. No formatting here.
import { performance } from 'node:perf_hooks'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, findServer } from '../../catalog.js'
import { STOP_GRACE_MS, INTERRUPTED_GRACE_MS, startServer, stopServer } from '../watch/boot.js'
import { fireRound, startProbe } from '../generate/fire.js'
import { BOOT_TIMEOUT_MS, defaultConnections } from '../../settings.js'
import { fireGenerators, waitForStart } from '../generate/generators.js'
import { request, getJson } from '../generate/http.js'
import { bodyReference } from '../generate/body.js'
import { startSampler } from '../watch/sample.js'
import { noiseWatch } from '../watch/noise.js'
import { noiseServiceMs } from '../watch/calibrate.js'
import { chooseInterval } from '../watch/timeline.js'
import { watchRound } from '../watch/watch.js'
import { connectionsAt, recoveryTimeoutSec } from './load.js'
import { failure, sweptCapacity } from '../../result/build.js'
import { roundFigures, serviceTime } from '../../result/figures.js'
import { createGoodput } from './goodput.js'
import { createCut } from './cut.js'
import { overloadRounds } from './overload.js'
import { requestFactor, sharesOf } from '../../result/mix.js'
import { redactUrl } from '../../result/redact.js'
import { isRedirect, isSuccess } from '../../result/requests.js'

let workloads = null
async function expectedBodyOf (work) {
  if (!work) return null
  const path = join(ROOT, 'servers', 'lib', 'workloads.js')
  if (!existsSync(path)) return null
  workloads ??= await import(pathToFileURL(path).href) // a URL: a path with # or % is not one
  try {
    return workloads.expectedBody(work)
  } catch {
    return null
  }
}

// The request that says a server answers: the mix's first class, else GET of the load's URL (a lab
// server's /, a --url as given). Readiness, recovery and the last check of a server that answered no 2xx.
// The class's path goes to the target's origin exactly as written: never resolved against the target
// (a path such as //other-host/x would change the host).
function firstRequest (server, load) {
  const c = load.mix?.requests[0]
  if (!c) return { url: server.target, method: 'GET', headers: {}, body: null }
  const url = { origin: new URL(server.target).origin, path: c.path }
  return { url, method: c.method, headers: c.headers, body: c.body }
}

// A request's target as a line says it: the URL, or the origin and the path as written.
const shown = (url) => (typeof url === 'string' ? url : `${url.origin}${url.path}`)

// Time one fresh first request (firstRequest) right after a round: { ms, status } (status 'timeout' /
// 'error' when no answer).
async function timeRecovery (server, load, { timeoutMs, signal }) {
  const { url, ...how } = firstRequest(server, load)
  const r = await request(url, { ...how, timeoutMs, signal })
  return { ms: typeof r.status === 'number' ? Math.round(r.ms * 1000) / 1000 : null, status: r.status, timeoutMs }
}

// Fire one round of `amount` (or the load's amount/duration) at url: open loop when the load has a
// rate, else autocannon's closed loop. `expected`: the body every 2xx answer must have (null: the first
// 2xx body's; false: none compared); both loops check it as it streams, by sha256 and length (body.js), keeping at most
// --max-body bytes of each. onSent/onRecord feed the round's timeline (watch.js); an open loop's
// generator threads feed it through `watch` and start at `startAt` (a shard's common start).
function fireLoad (url, load, opts) {
  const { amount = load.amount, durationSec = load.durationSec, expected = null, signal, ...open } = opts
  const { onResponse, onSent, onRecord } = open
  const common = {
    url,
    amount,
    durationSec: amount ? null : durationSec,
    timeoutSec: load.timeoutSec,
    signal,
    onResponse,
    onSent,
    onRecord,
    expected: expected === null || expected === false ? expected : bodyReference(expected),
    maxBody: load.maxBody,
    mix: load.mix ?? null // each class's own request and expect (a mix compares bodies only when asked)
  }
  if (load.rate) {
    return fireGenerators({
      ...common,
      rate: load.rate,
      phases: load.phases ?? null, // a rate profile (the overload experiment's burst)
      until: open.until ?? null,
      arrival: load.arrival,
      seed: load.seed,
      connections: load.connections,
      generators: load.generators,
      shard: load.shard ?? null,
      startAt: open.startAt ?? null,
      clock: open.watch?.clock ?? null,
      absorb: open.watch ? (dump) => open.watch.absorb(dump) : null,
      onEnded: open.watch ? (delta) => open.watch.ended(delta) : null
    })
  }
  const connections = amount ? Math.min(load.connections, amount) : load.connections
  return fireRound({ ...common, connections, drain: open.drain })
}

// How long the recovery period of a round's timeline may last at most (the server may never be idle).
const RECOVERY_CAP_MS = 30000
// The server's stats (their reset, their read): the first try's time to answer, and a second's where the first
// got none.
const STATS_FIRST_MS = 5000
const STATS_RETRY_MS = 15000

// The timeline interval of a load: fixed by --duration, else the smallest (an --amount round coarsens).
function timelineInterval (load) {
  return chooseInterval(load.durationSec ? load.durationSec * 1000 : null)
}

// The server's stats window reset before a round: once with 5 s to answer, and where that got no 200 or 204 (a
// machine busy enough can outlast it) once more with longer; a reset that never answered leaves the round without
// telemetry, noted.
const resetDone = (r) => isSuccess(r?.status)
async function resetStats (target, signal) {
  const reset = (timeoutMs) => request(`${target}/__lab/stats/reset`, { method: 'POST', timeoutMs, signal })
  const first = await reset(STATS_FIRST_MS)
  return resetDone(first) || signal.aborted ? first : reset(STATS_RETRY_MS)
}

// The server's own counts after a round: the `first` read's, or where it got none (a machine busy enough can
// outlast its 5 s) one more read's, with longer to answer; a round still without them says so in its notes.
async function statsAfter (first, { target, statsOn, signal, notes }) {
  const got = await first
  if (!statsOn || signal.aborted || got?.json) return got
  const again = await getJson(`${target}/__lab/stats`, { timeoutMs: STATS_RETRY_MS, signal })
  const why = again.error ?? null
  if (!again.json && !signal.aborted) notes.push({ code: 'stats-unread', status: again.status, why })
  return again
}

// One measured round against a server: reset stats, sample /proc, probe /health, fire, recover, collect
// stats; the whole round and its recovery period are watched in time (watch.js). The lab's endpoints
// (the stats, their reset, the /health probe) only on a server that has them (`server.lab`).
async function measuredRound (server, load, ctx) {
  const { expected, signal, pid, child, seen, onRound, notes, serviceMs, against } = ctx
  const target = server.url
  const reset = server.lab ? await resetStats(target, signal) : null
  const statsOn = resetDone(reset)
  if (reset && !statsOn) notes.push({ code: 'no-telemetry', status: reset.status ?? null })
  const intervalMs = timelineInterval(load)
  const watch = watchRound({
    intervalMs,
    child,
    plannedMs: load.durationSec ? load.durationSec * 1000 : null,
    amount: load.amount ?? null,
    onProgress: onRound ?? null,
    originEpochMs: load.startAt ?? null, // a shard's timeline starts at the common start
    histograms: Boolean(load.shard)
  })
  const sampler = pid
    ? startSampler(pid, { seen, intervalMs: Math.min(200, intervalMs), onSample: watch.onOutside })
    : null
  const noise = noiseWatch()
  const probe = server.lab ? startProbe(`${target}/health`) : null
  let done = 0
  // Without a recovery request, the stats are read the moment the last answer of an --amount round
  // arrives, before autocannon's closing tick: the server's window (ticks, loop delay) is the round's.
  const readStats = () =>
    statsOn && !signal.aborted ? getJson(`${target}/__lab/stats`, { timeoutMs: STATS_FIRST_MS, signal }) : null
  let early = null
  const { goodput, cut, until } = earlyEnd(load)
  const onResponse = (e) => {
    goodput?.add(e)
    cut?.onResponse(e)
    done++
    if (load.recovery === false && load.amount && done === load.amount) early = readStats()
  }
  const fire = await fireWatched(server, load, {
    expected,
    signal,
    onResponse,
    onSent: watch.sent,
    onRecord: watch.record,
    startAt: load.startAt ?? null,
    until,
    watch
  }, { probe, sampler, watch })
  watch.endRound()
  if (fire.bodies?.overCap) notes.push({ code: 'bodies-over-cap', maxBytes: fire.bodies.maxBytes })
  if (fire.interim) notes.push({ code: 'interim-skipped', count: fire.interim })
  const probeResult = probe ? await probe.stop() : null
  const outside = sampler ? sampler.figures() : null
  const tree = [pid, ...[...(seen?.values() ?? [])].map((m) => m.pid)].filter(Boolean)
  const noiseFigures = noise.end({ outside, workMs: fire.workMs, serviceMs, against, tree })
  // With a recovery request, it goes first (the stats request would wait behind abandoned work too);
  // without one, the stats are read at once so that nothing else falls into their window.
  let stats = null
  let recovery = null
  const statsOf = (read) => statsAfter(read, { target, statsOn, signal, notes })
  if (load.recovery === false) stats = await statsOf(early ?? readStats())
  else {
    recovery = signal.aborted
      ? null
      : await timeRecovery(server, load, {
        timeoutMs: recoveryTimeoutSec(load) * 1000,
        signal
      })
    stats = await statsOf(readStats())
  }
  // The timeline goes on until the server is idle again, so that abandoned work shows.
  if (load.recovery !== false && (sampler || child)) {
    await watch.recover({ capMs: Math.max(0, RECOVERY_CAP_MS - (recovery?.ms ?? 0)), signal })
  }
  const drained = sampler?.stop() // the tree's CPU up to idle again: work for clients who left counts
  const timeline = watch.stop()
  const telemetry = stats?.json ?? null
  const round = { fire, probe: probeResult, outside, recovery, telemetry, timeline, noise: noiseFigures }
  if (cut?.figures()) round.cut = cut.figures()
  if (goodput) round.goodput = { ...goodput.figures(), drainedCpuSeconds: drained?.cpuSeconds ?? null }
  return round
}

// What may end a round before its schedule does: the overload experiment's goodput at its target (goodput.js)
// once its burst's recovery shows, or a sweep's step once it clearly fails every target (cut.js); both fed
// by every finished request.
function earlyEnd (load) {
  const goodput = load.goodput ? createGoodput({ sloMs: load.goodput.sloMs }) : null
  const cut = load.cutOverMs ? createCut({ overMs: load.cutOverMs }) : null
  const until = load.goodput?.until ? (due) => load.goodput.until(goodput, due) : (cut?.until ?? null)
  return { goodput, cut, until }
}

// fireLoad; when it throws (a round that never ran: a shard's start passed), what watched the round ends with
// it, or the /health probe's loop and the timers would keep the lab's process alive after its report.
async function fireWatched (server, load, opts, { probe, sampler, watch }) {
  try {
    return await fireLoad(server.target, load, opts)
  } catch (err) {
    await probe?.stop()
    sampler?.stop()
    watch.stop()
    throw err
  }
}

// What a sweep needs to know of a finished step: its rate and figures.
function sweepHistoryOf (round) {
  return { rate: round.fire.rate, figures: roundFigures(round) }
}

// The run record of one plan entry's run, filled in as it goes (result/build.js makes the result).
function newRecord (entry, load) {
  return {
    entry: { ...entry, ...load },
    args: entry.args ?? [],
    rounds: [],
    failure: null,
    interrupted: false,
    workReported: null,
    stop: null,
    notes: []
  }
}

// Whether a /health answer is the lab's own (servers/lib/app.js): a status, a strategy named as the
// lab's servers are (it names the result: never a terminal escape or a megabyte) and a node version.
function labHealth (json) {
  return json?.status === 'ok' &&
    typeof json.strategy === 'string' && /^[a-z0-9][a-z0-9._-]{0,63}$/i.test(json.strategy) &&
    typeof json.node === 'string' && /^v\d+\.\d+\.\d+\S{0,40}$/.test(json.node)
}

// Whether a request reached a service: an answer, or one that broke off or broke HTTP (the rounds count
// those as the errors they are); not a refused or unreachable connection, nor silence until the timeout.
function reached (r) {
  if (typeof r.status === 'number') return true
  return r.status === 'error' && !/\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/.test(r.error ?? '')
}

// The response header by which a service announces the lab's endpoints (GET /health in the lab's shape,
// /__lab/stats and its reset): the lab's servers send it on every answer, naming their strategy
// (servers/lib/app.js). A service whose readiness answer lacks it is sent nothing but its mix.
export const LAB_HEADER = 'loadlab-strategy'

// A --url target: a service the lab did not start. Ready is the first answer to the mix's first request
// (or a GET of the URL as given); null (and a failure on the record) when that gets no answer. Only an
// answer that carries LAB_HEADER leads to one GET /health, whose answer in the lab's shape makes the lab
// use its endpoints and name the result by its strategy; any other service sees no request of the lab's
// own. The path is kept as given: no slash is added.
async function attachUrl (record, url, load, signal) {
  const u = new URL(url)
  const server = { url: u.origin, target: u.href, pid: null, work: record.entry.work ?? null, lab: false, byUrl: true }
  const { url: first, ...how } = firstRequest(server, load)
  const ready = await request(first, { ...how, timeoutMs: 5000, signal })
  if (!reached(ready)) {
    record.failure = failure(`--url: ${how.method} ${redactUrl(shown(first))} got no answer (${ready.error})`)
    return null
  }
  if (!ready.headers?.[LAB_HEADER]) {
    record.notes.push({ code: 'url-no-lab-header', header: LAB_HEADER })
    return server
  }
  const health = await getJson(`${u.origin}/health`, { timeoutMs: 5000, signal })
  if (labHealth(health.json)) {
    server.lab = true
    server.health = health.json
    record.entry.server = health.json.strategy
    record.notes.push({ code: 'url-lab-endpoints', strategy: health.json.strategy })
  } else {
    record.notes.push({ code: 'url-health-shape', header: LAB_HEADER })
  }
  return server
}

// Start the entry's server (under its runtime); null (and the boot failure on the record) when it fails.
async function boot (record, entry, load, { signal, progress, bootTimeoutMs }) {
  progress?.('starting')
  try {
    // The server pushes its samples over IPC at the timeline's interval (servers/lib/sampling.js).
    const env = { LOADLAB_SAMPLE_MS: String(timelineInterval(load)) }
    const { entry: file } = findServer(entry.server)
    const run = entry.runtime ? { execPath: entry.runtime.path, execArgs: entry.runtime.args ?? [] } : {}
    const server = await startServer({ entry: file, args: record.args, env, bootTimeoutMs, signal, ...run })
    return Object.assign(server, { target: `${server.url}/`, lab: true }) // the load goes to GET / (or the mix's paths)
  } catch (err) {
    if (!err.failure) throw err
    record.failure = err.failure
    record.interrupted = signal.aborted
    return null
  }
}

function runtimeFields (said) {
  return { name: said?.name ?? null, version: said?.version ?? null, engine: said?.engine ?? null }
}

// A note when the server reports another runtime than its binary said when probed (a wrapper that
// answers v99 and runs v20), else null. Node lines compare process.version, Bun and Deno their own.
function runtimeMismatch (asked, said) {
  const isNode = asked.name === 'node' || !asked.name
  const before = isNode ? asked.node : `${asked.name} ${asked.version}`
  const now = isNode ? said.node : `${said.runtime?.name} ${said.runtime?.version}`
  return before === now
    ? null
    : { code: 'runtime-mismatch', flag: asked.flag ?? '--node', label: asked.label, before, now }
}

// What the server says it runs (its ready message, or /health for --url): the work and the runtime are
// recorded, never assumed.
function describeServer (record, entry, server) {
  record.workReported = server.work ?? entry.work ?? null
  const said = server.ready?.node ? server.ready : server.health?.node ? server.health : null
  // name and version as the runtime gives them (Bun and Deno say Node 26.3.0 in process.version)
  record.runtime = said
    ? { ...runtimeFields(said.runtime), node: said.node, v8: said.v8 ?? null }
    : null
  record.instruments = server.ready?.instruments ?? null
  const mismatch = said && entry.runtime ? runtimeMismatch(entry.runtime, said) : null
  if (mismatch) record.notes.push(mismatch)
  if (entry.work && server.work && server.work !== entry.work) {
    record.notes.push({ code: 'work-mismatch', planned: entry.work, reported: server.work })
  }
}

// The body every answer must have: the task's or the work's expected body, else (null) the load engine
// compares each with the first 2xx body; a --url service that is not a lab server: none (false), as a
// mix class without `expect` (its answers may carry a counter or a clock); a mix: null (each class its own).
async function referenceFor (record, server, expectedBody, mix = null) {
  if (mix) {
    // a class compares its answers only by its own expect: say which compare no body
    const blind = mix.requests.filter((c) => !c.expect?.sha256 && !c.expect?.bodyIncludes).map((c) => c.name)
    if (server.byUrl && !server.lab && blind.length) record.notes.push({ code: 'url-classes-blind', classes: blind })
    return null
  }
  if (server.byUrl && !server.lab) {
    record.notes.push({ code: 'url-bodies-blind' })
    return false
  }
  const expected = expectedBody ?? (await expectedBodyOf(record.workReported))
  if (expected === null) record.notes.push({ code: 'bodies-first-2xx' })
  return expected
}

// The run's own abort: the lab's signal, or the server exiting before the lab stops it (`crashed`).
function guardRun (server, signal) {
  const run = new AbortController()
  const stopRun = () => run.abort()
  signal.addEventListener('abort', stopRun, { once: true })
  const state = { signal: run.signal, crashed: false, stopping: false }
  server.exited?.then(() => {
    if (state.stopping) return
    state.crashed = true
    run.abort()
  })
  state.release = () => {
    state.stopping = true
    signal.removeEventListener('abort', stopRun)
  }
  return state
}

// A rate sweep (the capacity experiment): each step is one open-loop round at the rate the sweep chooses
// from the steps so far, long enough for the sweep's minimum of requests. One sweep per lab round (--runs N:
// N sweeps, interleaved with the other servers'), appended to record.sweeps: its rule, the kinds and planned
// lengths of its steps, its first round, and the lab round's number, place and start (`at`).
async function sweepRounds (record, server, load, { entry, calibration, round, at }) {
  // a service by --url: its work and cores are unknown here (another machine, perhaps): probed once
  record.range ??= server.byUrl
    ? await probeRange(record, server, load, round)
    : { serviceMs: serviceTime(calibration?.[record.workReported]), cores: availableParallelism() }
  const range = record.range
  if (!range) return
  record.sweeps ??= []
  const k = record.sweeps.length
  const sweep = entry.sweep({ ...range, requestFactor: requestFactor(load.mix) })
  const first = record.rounds.length
  record.sweeps.push({ ...sweep.describe(), kinds: sweep.kinds, lengths: sweep.lengths, first, ...roundTag(at) })
  const nextRate = () => sweep.next(record.rounds.slice(first).map(sweepHistoryOf))
  const began = performance.now()
  for (let rate = nextRate(); rate !== null && !round.signal.aborted; rate = nextRate()) {
    const sweepName = load.runs > 1 ? `sweep ${k + 1}/${load.runs}, ` : ''
    round.progress?.(`${sweepName}step ${record.rounds.length - first + 1}: ${rate.toFixed(1)} req/s`)
    const connections = connectionsAt(load, rate)
    const durationSec = stepLength(sweep, rate, load.mix)
    const step = { ...load, rate, connections, durationSec, cutOverMs: cutAt(load, sweep) }
    record.rounds.push(await measuredRound(server, step, { ...round, onRound: null }))
    record.sweeps[k].sweepSec = (performance.now() - began) / 1000 // the sweep's cost so far, kept if it is cut
  }
}

// A lab round's place in the run (lab.js): its number, its place in that round's order (both from 1) and
// when it started; nothing for a run of one round.
function roundTag (at) {
  return at ? { round: at.round, place: at.place, startedAt: new Date().toISOString() } : {}
}

// The loosest target the step is offered for, where it may be cut short (result/rules.js CUT): not a mix's
// step (each class has its own targets), nor a shard's (every shard sends its whole slice of the plan), nor
// with several generator threads (the cut hears every answer on this thread), nor a sweep that names no such
// target (the brute force's grid: every step its length, scripts/capacity-brute-force.js).
function cutAt (load, sweep) {
  if (load.mix || load.shard || (load.generators ?? 1) > 1) return null
  return sweep.cutTargetMs?.() ?? null
}

// A step's length (s): the sweep's, and a mix's top-up (a repeat lasts for the requests its pool still
// needs, counted for the class that needs them: that many times more of the mix) within the longest step.
function stepLength (sweep, rate, mix) {
  const sec = sweep.durationFor(rate)
  if (!mix || sweep.kinds.at(-1) !== 'repeat') return sec
  return Math.min(sweep.describe().maxStepSec ?? sec, Math.ceil(sec * requestFactor(mix) * 10) / 10)
}

// A --url service's range, where the lab cannot calibrate its work: a short closed-loop round of the mix
// (PROBE_CONNECTIONS for PROBE_SEC, then its requests still out waited for, so each one sent is counted)
// whose throughput seeds the sweep as its ideal (a service time of 1000 / rps ms on one core); the sweep's
// own rules find the range from there. null (and a failure on the record) when the probe got no 2xx
// answer, or timed out more requests than it answered 2xx.
export const PROBE_CONNECTIONS = 8
export const PROBE_SEC = 2
async function probeRange (record, server, load, round) {
  round.progress?.(`probing the range: ${PROBE_CONNECTIONS} connections, ${PROBE_SEC} s closed loop, then its last ` +
    `requests waited for (at most ${load.timeoutSec} s)`)
  const raw = await fireLoad(server.target, { ...load, rate: null, connections: PROBE_CONNECTIONS }, {
    amount: null, durationSec: PROBE_SEC, drain: true, signal: round.signal
  })
  const rps = raw.durationMs > 0 ? (raw.ok / raw.durationMs) * 1000 : 0
  record.probe = { connections: PROBE_CONNECTIONS, durationSec: PROBE_SEC, rps: Math.round(rps * 10) / 10, ok: raw.ok }
  // a service that leaves more of the probe's requests unanswered than it answers gives no rate to seed
  // a sweep from (an answer to one request in ten: a sweep at 0.1 req/s that times out throughout)
  if (!(rps > 0) || raw.timeouts > raw.ok) {
    const codes = Object.entries(raw.statusCodes ?? {}).map(([c, n]) => `${n} × ${c}`).join(', ')
    const first = raw.errorSample ? `; the first error: ${String(raw.errorSample).split('\n')[0].slice(0, 200)}` : ''
    const counts = `${raw.completed} answers${codes ? ` (${codes})` : ''}, ${raw.errors} errors, ${raw.timeouts} ` +
      `timeouts${first}`
    const what = rps > 0
      ? `timed out more requests (${raw.timeouts}) than it answered 2xx ` +
      `(${raw.ok})`
      : 'got no 2xx answer'
    if (!round.signal.aborted) record.failure = failure(`--url: the range probe ${what} (${counts})`)
    return null
  }
  record.notes.push({ code: 'url-probe', ...record.probe })
  return { serviceMs: 1000 / rps, cores: 1 }
}

// The mixed experiment's round: its mix offered so that the heavy class arrives at the rate handed on with
// the entry (experiments/mixed.js handOffMixed: the rule book's utilisation of one thread by the work's
// calibrated service time), with the entry's arrivals; record.mixed: the rates, the lowest C of the run
// beside them (null where a sweep found none) and the round, or why not. Kept apart from record.rounds,
// the sweep's steps.
async function mixedRound (record, server, load, { entry, round }) {
  const { mix, utilisation, arrival = load.arrival, durationSec, heavy = null, capacity = null } = entry.mixed
  if (!(heavy?.rps > 0)) {
    record.mixed = { refused: heavy?.refused ?? 'no heavy rate handed on' }
    return
  }
  const share = sharesOf(mix.requests)[mix.requests.findIndex((k) => k.name === 'heavy')]
  const rate = heavy.rps / share
  round.progress?.(`mixed round: ${rate.toFixed(1)} req/s, heavy ${heavy.rps.toFixed(1)} ` +
    `(${utilisation * 100} % of one thread)`)
  const connections = defaultConnections(rate, load.timeoutSec)
  const step = { ...load, mix, rate, arrival, connections, durationSec, amount: null }
  const measured = await measuredRound(server, step, { ...round, onRound: null })
  record.mixed = {
    utilisation,
    serviceMs: heavy.serviceMs,
    arrival,
    capacityRps: capacity?.rps ?? null,
    capacityFrom: capacity?.from ?? null, // the strategy whose C is the lowest (shown beside the rate)
    heavyRate: heavy.rps,
    rate,
    round: measured
  }
}

// One measured round of the entry's load (the lab round `at`, lab.js), tagged with its place in the run.
async function oneRound (record, server, load, { round, at }) {
  round.progress?.(`measuring${at ? ` round ${at.round}/${load.runs}` : ''}`)
  const tag = roundTag(at)
  record.rounds.push({ ...(await measuredRound(server, load, round)), ...tag })
}

// A server that answered no request with a 2xx (a strategy its runtime cannot run: cluster-threads under
// Deno answers every request 500) fails as a result, with the error one more request gives: one line.
// A round in which no request got an answer fails too when its requests broke (errors) or the service
// is a --url's; a lab server's requests that only timed out are a slow strategy's (untrusted), not a
// broken one's. A redirect is named with where it points (the lab never follows one).
async function judgeAnswers (record, server, load, signal) {
  if (record.failure || !record.rounds.length) return // the range probe's failure says it already
  const answered = record.rounds.some((r) => r.fire.completed > 0)
  if (record.rounds.some((r) => r.fire.ok > 0)) return
  if (!answered && !server.byUrl && !record.rounds.some((r) => r.fire.errors > 0)) return
  const { url, ...how } = firstRequest(server, load)
  const again = await request(url, { ...how, timeoutMs: Math.min(10, load.timeoutSec) * 1000, signal })
  const codes = Object.entries(record.rounds.at(-1)?.fire.statusCodes ?? {}).map(([c, n]) => `${n} × ${c}`).join(', ')
  record.failure = failure(`no request answered 2xx (${codes || noAnswer(record.rounds)}): ${whyNot(again)}`)
}

// What the rounds' requests met when none was answered: their errors and timeouts.
function noAnswer (rounds) {
  const sum = (f) => rounds.reduce((a, r) => a + (r.fire[f] ?? 0), 0)
  return `no answer: ${sum('errors')} errors, ${sum('timeouts')} timeouts`
}

// One line of why a request got no 2xx: the error, a redirect and where it points, or the service's own
// message ({ message } in a JSON body), else the status.
function whyNot (r) {
  if (typeof r.status !== 'number') return String(r.error ?? r.status).split('\n')[0]
  if (isRedirect(r.status)) {
    const to = r.headers?.location
    return `status ${r.status}, a redirect${to ? ` to ${redactUrl(String(to)).slice(0, 200)}` : ''} (never followed)`
  }
  try {
    const message = JSON.parse(r.body).message
    if (typeof message === 'string') return message.split('\n')[0]
  } catch {}
  return `status ${r.status}`
}

// Why a stopped server's run failed, if it did: it crashed, would not stop, or left processes behind.
// A kill of a server still busy with abandoned work (interrupted, or no recovery answer) is the
// strategy's cost, noted, not a failure.
function judgeStop (record, stop, { crashed, busy, graceMs, stderrTail }) {
  const exit = { exitCode: stop.exit?.exitCode ?? null, signal: stop.exit?.signal ?? null, stderrTail }
  if (crashed) {
    record.failure = failure(`exited during the run (code ${exit.exitCode}, signal ${exit.signal})`, exit)
  } else if (stop.forced && busy) {
    record.notes.push({ code: 'killed-busy', graceSec: graceMs / 1000 })
  } else if (stop.forced) {
    record.failure ??= failure(`did not exit within ${graceMs / 1000} s of SIGTERM (killed)`, exit)
  } else if (exit.exitCode !== 0) {
    record.failure ??= failure(`exited with code ${exit.exitCode} (signal ${exit.signal}) after SIGTERM`, exit)
  }
  if (stop.leftovers.length) {
    const reason = `${stop.leftovers.length} process(es) of its tree left after it exited ` +
      `(killed: ${stop.leftovers.join(', ')})`
    record.failure ??= failure(reason, exit)
  }
}

// Stop the server (a shorter grace after Ctrl-C: the user is waiting), record how, and judge it.
async function stopAndJudge (record, server, { seen, signal, crashed, progress }) {
  progress?.('stopping')
  const graceMs = signal.aborted ? INTERRUPTED_GRACE_MS : STOP_GRACE_MS
  const stop = await stopServer(server, { seen, graceMs })
  const lastRecovery = record.rounds.at(-1)?.recovery
  const busy = signal.aborted || (lastRecovery && typeof lastRecovery.status !== 'number')
  record.stop = {
    exitCode: stop.exit?.exitCode ?? null,
    signal: stop.exit?.signal ?? null,
    forced: stop.forced,
    leftovers: stop.leftovers
  }
  judgeStop(record, stop, { crashed, busy, graceMs, stderrTail: server.stderrTail() })
}

// Run one round of a plan entry end to end: start (or reach) its server, warm it up, measure one round or
// sweep, stop it and judge the stop. Never throws for a server's fault (it is the record's failure).
// `expectedBody`: the body every answer must have when the work is not built in (a --task).
// `record`: the entry's record of its earlier rounds, continued (a new one without); `at`: the lab round
// ({ round, place, last }, lab.js runServers; null: a run of one round). An overload's or mixed block runs
// once, in the last round.
export async function runEntry (entry, load, opts = {}) {
  const { signal, progress, onRound = null, bootTimeoutMs = BOOT_TIMEOUT_MS, url = null, calibration = {} } = opts
  const at = opts.at ?? null
  const last = !at || at.last
  const record = opts.record ?? newRecord(entry, load)
  const server = url
    ? await attachUrl(record, url, load, signal)
    : await boot(record, entry, load, { signal, progress, bootTimeoutMs })
  if (!server) return record
  describeServer(record, entry, server)
  const expected = await referenceFor(record, server, opts.expectedBody ?? null, load.mix ?? null)
  const seen = new Map()
  const run = guardRun(server, signal)
  const { pid, child = null } = server
  // for the noise's work inflation: a strategy that starts a process or thread per request against its cold calibration
  const { serviceMs, against } = noiseServiceMs(calibration[record.workReported], findServer(entry.server)?.starts)
  const round = {
    expected, signal: run.signal, pid, child, seen, progress, onRound, notes: record.notes, serviceMs, against
  }
  try {
    if (load.warmup > 0) {
      progress?.('warm-up')
      await fireLoad(server.target, load, { amount: load.warmup, expected, signal: run.signal })
    }
    if (load.startAt) await waitForStart(load.startAt, { signal: run.signal, progress })
    if (entry.sweep) await sweepRounds(record, server, load, { entry, calibration, round, at })
    else if (!entry.overload && !entry.mixed) await oneRound(record, server, load, { round, at })
    // the C, target and service time the sweeps found, for the overload rounds that stand on it
    const swept = entry.sweep && last && !run.signal.aborted ? sweptCapacity(record) : null
    if (entry.mixed && last && !run.signal.aborted) await mixedRound(record, server, load, { entry, round })
    if (entry.overload && last && !run.signal.aborted) {
      const measure = (step) => measuredRound(server, step, { ...round, onRound: null })
      const serviceMs = serviceTime(calibration[entry.work]) // the work's here, against a capacity handed on
      await overloadRounds(record, { entry, load, swept, serviceMs, measure, signal: run.signal, progress })
    }
    if (!run.signal.aborted) await judgeAnswers(record, server, load, run.signal)
  } catch (err) {
    if (!run.crashed && !signal.aborted) record.failure = failure(`lab error: ${err.message}`)
  } finally {
    run.release()
    if (server.pid) await stopAndJudge(record, server, { seen, signal, crashed: run.crashed, progress })
    record.interrupted = signal.aborted
  }
  return record
}
