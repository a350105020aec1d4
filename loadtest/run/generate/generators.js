// One open-loop round from several generator threads (`--generators N`): request i of the plan goes to
// thread i mod N (schedule.js sliceOf, within this shard's slice), each thread with its own connections
// (the cap split between them), all started at one wall-clock moment. Their raw rounds merge exactly —
// counts add, HDR histograms add, timelines add bucket by bucket — and each thread's own lag and issue
// rate stay in the merged round (`generators`), so the trust rules can judge every thread. N = 1 is the
// open loop on the lab's own thread, as before.
import { Worker } from 'node:worker_threads'
import { setTimeout as delay } from 'node:timers/promises'
import { fireOpenLoop } from './open-loop.js'
import { DEFAULTS, defaultConnections } from '../../settings.js'
import { sliceOf } from './schedule.js'
import { roundCounts } from './fire.js'
import { createHistogram, decodeHistogram, encodeHistogram } from '../../result/histogram.js'
import { maxOf, minOf } from '../../result/stats.js'
import { addClasses, plainClasses } from './classes.js'
import { mergeTallies } from '../../result/phases.js'
import { epochNow, wallOffsetMs } from '../epoch.js'

const THREAD = new URL('./generator-thread.js', import.meta.url)
// How far ahead of the first due time threads that are all ready are told to start (ms).
const START_MARGIN_MS = 30
// How often a thread reports the requests it ended, for the live progress (ms).
export const PROGRESS_MS = 250
// The histograms of a raw round, by name (encoded to cross threads, added when merged).
const RAW_HISTOGRAMS = ['latency', 'latencyLate', 'service', 'lag', 'lagJudged', 'wait', 'workMs', 'queueMs']
const SUMMED = [
  'sent', 'completed', 'ok', 'non2xx', 'errors', 'protocolErrors', 'interim', 'timeouts', 'mismatches', 'written',
  'waited', 'dropped', 'sentByAnswer', 'preopened'
]

// Fire one open-loop round with `generators` threads (1: on this thread). `shard` ({ index, count }) is
// this process's slice of the plan; `clock` ({ originEpochMs, intervalMs }) and `absorb(dump)` feed the
// round's timeline from the threads (watch.js), `onEnded({ completed, timeouts })` hears their progress
// every PROGRESS_MS; the other options are fireOpenLoop's.
export function fireGenerators ({
  generators = 1, shard = null, clock = null, absorb = null, onEnded = null, ...opts
}) {
  if (generators === 1) return fireOpenLoop({ ...opts, slice: sliceOf({ shard }) })
  return fireThreads({ generators, shard, clock, absorb, onEnded, opts })
}

// How long before a common start the measured round begins its own preparations (ms): the stats
// reset, the watch, the probe and the connections; the round itself then waits for the exact moment
// (open-loop.js). On a 2-core machine beside four busy loops and a ruler's threads, the wait woke up to
// 0.35 s late and the preparations took up to 0.65 s more: at 0.5 s, two shards of the api example in a
// busy suite found their start gone.
const START_LEAD_MS = 2000

// Wait until START_LEAD_MS before `startAtEpochMs` (a shard's --start-at), or the abort.
export async function waitForStart (startAtEpochMs, { signal, progress } = {}) {
  const ms = startAtEpochMs - START_LEAD_MS - epochNow()
  if (ms <= 0) return
  progress?.(`waiting for the common start, ${new Date(startAtEpochMs).toISOString()}`)
  await delay(ms, undefined, { signal }).catch(() => {})
}

// How the report's method names an open loop's threads and shard: generators (threads per process),
// shard ({ index, count } of --shard) and startAt (the common start, ISO), null where not used.
export function scaleOutMethod (load) {
  return {
    generators: load.rate ? (load.generators ?? 1) : null,
    shard: load.shard ?? null,
    startAt: load.startAt ? new Date(load.startAt).toISOString() : null
  }
}

// What a report's notes say of an open loop's threads and shard (none for one thread and no shard).
export function scaleOutNotes (load) {
  const notes = []
  if (load.rate && load.generators > 1) {
    notes.push(`${load.generators} generator threads: request i of the plan sent by thread i ` +
      `mod ${load.generators}, each with its own connections; figures merged exactly`)
  }
  if (load.shard) {
    const { index, count } = load.shard
    notes.push(`shard ${index}/${count} of a plan split by request index (requests i with i mod ${count} ` +
      `= ${index - 1}), ` +
      `from the common start ${new Date(load.startAt).toISOString()}; npm run merge adds the ${count} shards' ` +
      'reports into the plan\'s')
  }
  return notes
}

// A raw round as plain data a thread can post: its histograms encoded.
export function plainRaw (raw) {
  const out = { ...raw }
  for (const k of RAW_HISTOGRAMS) out[k] = encodeHistogram(raw[k])
  out.classes = plainClasses(raw.classes) // a mix's per-class counts (classes.js)
  return out
}

// Start the threads, wait until every one is ready, give them one start, gather their rounds.
async function fireThreads ({ generators, shard, clock, absorb, onEnded, opts }) {
  const { signal, onSent, onRecord, onResponse, verify, ...plain } = opts
  const cap = opts.connections ?? defaultConnections(opts.rate, opts.timeoutSec ?? DEFAULTS.timeout)
  const threads = Array.from({ length: generators }, (_, index) =>
    startThread({
      ...plain,
      connections: Math.max(1, Math.ceil(cap / generators)),
      slice: sliceOf({ shard, generator: { index, count: generators } }),
      threadIndex: index,
      trace: plain.trace ? `${plain.trace}.g${index}` : undefined
    }, clock, onEnded))
  const stopAll = () => threads.forEach((t) => t.worker.postMessage({ type: 'stop' }))
  signal?.addEventListener('abort', stopAll, { once: true })
  try {
    await Promise.all(threads.map((t) => t.ready))
    const startAt = opts.startAt ?? epochNow() + START_MARGIN_MS
    for (const t of threads) t.worker.postMessage({ type: 'start', startAt, stopped: Boolean(signal?.aborted) })
    const done = await Promise.all(threads.map((t) => t.done))
    if (absorb) for (const d of done) if (d.timeline) absorb(d.timeline)
    return mergeRaws(done.map((d) => d.raw), startAt)
  } finally {
    signal?.removeEventListener('abort', stopAll)
    await Promise.all(threads.map((t) => t.worker.terminate()))
  }
}

// One thread: resolves `ready` once it listens, `done` with its { raw, timeline }; rejects on its error.
function startThread (opts, clock, onEnded) {
  const worker = new Worker(THREAD, { workerData: { opts, clock } })
  let ready
  let done
  const readyP = new Promise((resolve, reject) => { ready = { resolve, reject } })
  const doneP = new Promise((resolve, reject) => { done = { resolve, reject } })
  const fail = (err) => {
    ready.reject(err)
    done.reject(err)
  }
  worker.on('message', (m) => {
    if (m.type === 'ready') ready.resolve()
    else if (m.type === 'done') done.resolve(m)
    else if (m.type === 'progress') onEnded?.(m)
    else if (m.type === 'error') fail(new Error(`generator thread: ${m.message}`))
  })
  worker.on('error', fail)
  worker.on('exit', (code) => fail(new Error(`generator thread exited (code ${code}) before its round ended`)))
  doneP.catch(() => {}) // a thread that fails before the start is reported through `ready`
  return { worker, ready: readyP, done: doneP }
}

// The threads' raw rounds as one: counts and histograms added, the span from the earliest to the latest,
// and each thread's own schedule figures kept (`generators`) for the trust rules.
function mergeRaws (raws, startAtEpochMs) {
  const first = raws[0]
  const out = { ...first, ...roundCounts(), statusCodes: {}, bodies: null }
  for (const k of SUMMED) out[k] = 0
  out.windows = { ...first.windows, due: [], issued: [] }
  if (first.arrivals) out.arrivals = { ...first.arrivals, issued: [] }
  for (const k of RAW_HISTOGRAMS) out[k] = createHistogram()
  for (const r of raws) addRaw(out, r)
  out.connections = raws.reduce((a, r) => a + r.connections, 0)
  out.peakInFlight = raws.reduce((a, r) => a + r.peakInFlight, 0) // each thread's peak: a bound
  out.peakBacklog = raws.reduce((a, r) => a + (r.peakBacklog ?? 0), 0) // likewise
  out.peakWaiting = raws.reduce((a, r) => a + (r.peakWaiting ?? 0), 0) // likewise
  out.droppedReason = raws.find((r) => r.droppedReason)?.droppedReason ?? null
  out.priorityRaised = raws.every((r) => r.priorityRaised)
  out.stopped = raws.some((r) => r.stopped)
  out.startedAtEpochMs = startAtEpochMs
  out.startedAt = startAtEpochMs - wallOffsetMs()
  out.durationMs = Math.max(...raws.map((r) => r.durationMs))
  out.lastAt = out.startedAt + out.durationMs
  out.generators = raws.map(threadOf)
  out.classes = raws.reduce((acc, r) => addClasses(acc, r.classes), null)
  out.phases = raws.reduce((acc, r) => mergeTallies(acc, r.phases), null)
  out.classPhases = first.classPhases?.map((_, i) => raws.reduce((acc, r) => mergeTallies(acc, r.classPhases[i]), null))
  return out
}

// Add one thread's raw round into the merged one.
function addRaw (out, r) {
  for (const k of SUMMED) out[k] += r[k] ?? 0
  if (r.windows) for (const k of ['due', 'issued']) addInto(out.windows[k], r.windows[k])
  if (r.arrivals) addInto(out.arrivals.issued, r.arrivals.issued)
  for (const [code, n] of Object.entries(r.statusCodes)) out.statusCodes[code] = (out.statusCodes[code] ?? 0) + n
  for (const k of RAW_HISTOGRAMS) out[k].add(typeof r[k] === 'string' ? decodeHistogram(r[k]) : r[k])
  out.firstIssueMs = minOf(out.firstIssueMs, r.firstIssueMs)
  out.firstDueMs = minOf(out.firstDueMs, r.firstDueMs)
  out.lastIssueMs = maxOf(out.lastIssueMs, r.lastIssueMs)
  out.lastDueMs = maxOf(out.lastDueMs, r.lastDueMs)
  out.mismatchSample ??= r.mismatchSample
  out.errorSample ??= r.errorSample
  if (r.bodies) {
    const b = (out.bodies ??= { maxBytes: r.bodies.maxBytes, overCap: 0, largestBytes: 0 })
    b.overCap += r.bodies.overCap
    b.largestBytes = Math.max(b.largestBytes, r.bodies.largestBytes)
  }
}

// What the trust rules need of one thread: its own issue span, due span and lag histogram (and its latency
// histogram, encoded, so a check can add the threads up).
function threadOf (r) {
  const { sent, firstIssueMs, lastIssueMs, firstDueMs, lastDueMs, connections, peakInFlight, lag, latency } = r
  const { lagJudged, windows, peakBacklog, warmupMs, rate } = r
  const own = { sent, firstIssueMs, lastIssueMs, firstDueMs, lastDueMs, connections, peakInFlight, lag, latency }
  return Object.assign(own, { lagJudged, windows, peakBacklog, warmupMs, rate })
}

// Add a list of counts into another, element by element.
function addInto (into, from) {
  for (let i = 0; i < from.length; i++) into[i] = (into[i] ?? 0) + from[i]
}
