// The open loop (`--rate`): request i is due at its scheduled time and is issued then, whether or not
// earlier requests have answered, so a stalled server cannot slow the arrivals down (no coordinated
// omission). Latency counts from the due time (what a user arriving then sees) and, separately, from
// the moment the request was written (service latency). Kept connections (http1.js), up to a cap: when
// every connection is busy a request waits for one, in order, its latency still counting from its due
// time; nothing is skipped or thinned. Requests leave when they are due from two places, as in wrk2:
// the timer (a wake-up at the next due time) and the response path (an answer that frees a connection
// issues what is already due, before the loop goes back to its timers). Connections open before time
// zero. The generator watches itself: scheduler lag (all of it, and after a warm-up), the issue rate in
// 1 s windows, the unsent backlog. Bodies are checked as they stream (body.js: against the reference's
// bytes), at most --max-body bytes of each kept. One round is a state object (`g`) and the named steps
// below: start, prepare, begin, send → issue → write → finish, sweep, stop, settle.
import { getPriority, setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { createHttp1Pool, requestBytes } from './http1.js'
import { classCheck, classCounts, classPicker, countClass } from './classes.js'
import { DEFAULT_SEED, createSchedule } from './schedule.js'
import { DEFAULT_MAX_BODY, bodyReference, createVerifier } from './body.js'
import { createHistogram, recordMs } from '../../result/histogram.js'
import { roundCounts } from './fire.js'
import { createTrace, traceFileFor } from './generator-trace.js'

// How often outstanding requests are checked against their timeout (ms).
const SWEEP_MS = 10
// The warm-up left out of the judged lag and issue-rate windows (ms from due time 0): the first
// requests meet cold code on both sides (JIT, the server's first answers).
export const WARMUP_MS = 500
// The issue-rate windows (ms), counted from the end of the warm-up.
export const WINDOW_MS = 1000
// Connections opened before time zero: enough for this many ms of the schedule in flight at once
// (at least 2, at most the cap); more open on demand, as before.
const PREOPEN_MS = 50
// How much the scheduler's thread is favoured over the server during a round (nice steps).
const PRIORITY_BOOST = 5

// On a machine the server saturates, the generator's thread waits for a core and issues late. Raise the
// lab's main thread (on Linux a nice value is per thread, so the servers already started keep theirs)
// for the round; returns the undo, and whether it was allowed (it needs root or CAP_SYS_NICE).
function favourScheduler () {
  let before
  try {
    before = getPriority()
    setPriority(Math.max(-20, before - PRIORITY_BOOST))
  } catch {
    return { raised: false, restore () {} }
  }
  return {
    raised: true,
    restore () {
      try {
        setPriority(before)
      } catch {}
    }
  }
}

// How long before --start-at a round may find itself late and still start (ms): later, it refuses.
const START_LATE_MS = 250

// The most connections the open loop opens unless told (--connections). Past it a request waits for a
// free connection, its latency still counted from its due time. Profiled (docs/shards.md "An open loop that keeps
// up"): at thousands of requests/s a server's hiccup made the generator open a connection per waiting
// request (8,751 at 8000 req/s, against a cap of 10,000), and connecting, not requesting, took its time:
// scheduler lag p99 206 ms at 8000 req/s with that cap, 3.7–7 ms with 64–256.
export const DEFAULT_MAX_CONNECTIONS = 256

// The default connection cap for a rate: enough for every request of one timeout window in flight, up to
// DEFAULT_MAX_CONNECTIONS.
export function defaultConnections (rate, timeoutSec) {
  return Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, Math.ceil(rate * timeoutSec)))
}

// The raw round, in the closed loop's shape plus the open loop's own figures.
function newRaw ({ amount, rate, arrival, schedule, cap, warmupMs }) {
  return {
    loop: 'open',
    mode: amount !== null ? 'amount' : 'duration',
    rate,
    arrival,
    seed: schedule.seed,
    connections: cap,
    ...roundCounts(), // sent: issued on schedule (every user who arrived); latency: from the due time
    written: 0, // of those, written to a connection
    waited: 0, // found every connection busy and waited for one
    service: createHistogram(), // from the write
    lag: createHistogram(), // scheduler: issued − due
    lagJudged: createHistogram(), // the same, of the requests due after the warm-up
    wait: createHistogram(), // waiting for a free connection
    warmupMs,
    // requests due and issued in each WINDOW_MS window from the warm-up's end (threads add them up)
    windows: { startMs: warmupMs, ms: WINDOW_MS, due: [], issued: [] },
    peakBacklog: 0, // the most requests already due and not yet issued at one wake-up after the warm-up
    sentByAnswer: 0, // of `sent`, issued from the response path (the rest by the timer)
    preopened: 0, // connections opened before time zero
    firstIssueMs: null,
    lastIssueMs: null,
    firstDueMs: null,
    lastDueMs: null,
    startedAtEpochMs: null, // the wall-clock time of due time 0 (shards and threads share it)
    peakInFlight: 0,
    priorityRaised: false,
    autocannon: null
  }
}

// The reference a body must match: given ({ sha256, bytes, body }), from the expected body (a string),
// or null (the first 2xx body's).
function referenceOf (expected) {
  if (expected === null || expected === undefined) return null
  return typeof expected === 'string' || Buffer.isBuffer(expected) ? bodyReference(expected) : expected
}

// One round's state: the options, the schedule, the raw figures, the queues.
function createRound (opts) {
  const { url, rate, arrival = 'constant', seed = DEFAULT_SEED, amount = null, durationSec = null, slice = null, phases = null, until = null } = opts
  const target = new URL(url)
  const timeoutSec = opts.timeoutSec ?? 10
  const cap = opts.connections ?? defaultConnections(rate, timeoutSec)
  const durationMs = durationSec === null ? null : durationSec * 1000
  const schedule = createSchedule({ rate, arrival, seed, amount, durationMs, slice, phases, until })
  const warmupMs = opts.warmupMs ?? WARMUP_MS
  const share = slice ? rate / slice.stride : rate // this generator's own rate
  return {
    origin: target.origin,
    path: target.pathname + target.search,
    timeoutMs: timeoutSec * 1000,
    cap,
    preopen: Math.min(cap, opts.preopen ?? Math.max(2, Math.ceil((share * PREOPEN_MS) / 1000))),
    schedule,
    raw: newRaw({ amount, rate, arrival, schedule, cap, warmupMs }),
    body: createVerifier({ expected: referenceOf(opts.expected), maxBody: opts.maxBody ?? DEFAULT_MAX_BODY }),
    startAt: opts.startAt ?? null,
    startWhen: opts.startWhen ?? null,
    onPrepared: opts.onPrepared ?? null,
    signal: opts.signal,
    on: { response: opts.onResponse, sent: opts.onSent, record: opts.onRecord },
    // issued, not finished, in due order (the oldest first): a ring of `ringMask + 1` slots
    ring: new Array(1024),
    ringMask: 1023,
    ringHead: 0,
    ringTail: 0,
    outstanding: 0,
    waiting: [], // issued, waiting for a free connection, in due order (from waitHead on)
    waitHead: 0,
    inFlight: 0,
    nextDue: null,
    sending: false, // the re-entry guard of send()
    sendOnAnswer: opts.sendOnAnswer ?? true, // false: the timer alone sends (to measure what the response path adds)
    scheduleDone: false,
    began: false,
    settled: false,
    timer: null,
    sweeper: null,
    trace: null,
    traceFile: traceFileFor(opts, opts.threadIndex ?? null),
    t0: 0,
    mix: mixOf(opts, target, seed) // a request mix's classes (null: GET of the URL's path)
  }
}

// A --mix round's classes: each one's request bytes, its answers' check and the seeded class of
// request i (classes.js); the raw round gets their counts (`classes`).
function mixOf (opts, target, seed) {
  if (!opts.mix) return null
  const maxBody = opts.maxBody ?? DEFAULT_MAX_BODY
  const { requests } = opts.mix
  return {
    pick: classPicker(requests, seed),
    bytes: requests.map((c) => requestBytes(target.host, c)),
    checks: requests.map((c) => classCheck(c, maxBody)),
    counts: classCounts(requests)
  }
}

// Load url open-loop at `rate` requests/s (`arrival` constant or poisson with `seed`) for `amount`
// requests or `durationSec`; `connections` caps the kept connections; `slice` ({ offset, stride },
// schedule.js sliceOf) sends only that part of the plan; `startAt` (epoch ms) is due time 0 (a
// shard's or thread's common start; later than START_LATE_MS past it, the round refuses), or
// `startWhen` a promise of it (a thread: onPrepared() once its connections are open, then the start).
// `warmupMs` (WARMUP_MS) is left out of the judged lag and windows. `expected`: the body every 2xx
// answer must have (a string, or body.js's reference; null: the first 2xx body's), checked as it
// streams, at most `maxBody` bytes of each kept. onResponse(event) hears every finished request;
// onSent() each issued one and onRecord({ latencyMs, status } | { latencyMs, timeout } | { error })
// each end, as fireRound calls them, for the round's timeline. `trace` (a file) writes the round's
// trace (generator-trace.js); `sendOnAnswer: false` leaves sending to the timer alone (for measuring).
// Resolves the raw round in the closed loop's shape plus the open loop's own.
export function fireOpenLoop (opts) {
  const g = createRound(opts)
  if (g.mix) g.raw.classes = g.mix.counts
  return new Promise((resolve, reject) => {
    g.resolve = resolve
    g.reject = reject
    if (g.signal?.aborted) return stop(g)
    startRound(g).catch((err) => settle(g, err))
  })
}

// Open the pool and its first connections, listen for an abort, and begin at the round's start.
async function startRound (g) {
  if (g.traceFile) g.trace = createTrace(g.traceFile)
  g.pool = createHttp1Pool(g.origin, g.path, {
    onConnectionError: (err) => { g.raw.errorSample ??= err?.message ?? String(err) },
    onProtocolError: () => { g.raw.protocolErrors++ },
    onInterim: () => { g.raw.interim++ },
    onOpen: g.trace ? () => g.trace.opened() : undefined
  })
  g.onAbort = () => stop(g)
  g.signal?.addEventListener('abort', g.onAbort, { once: true })
  const connected = await g.pool.preopen(g.preopen)
  g.connectedAt = connected
  g.raw.preopened = connected.filter((at) => at !== null).length
  if (g.settled) return
  if (g.startWhen) {
    g.onPrepared?.()
    g.startAt = await g.startWhen
    if (g.settled) return
  }
  const waitMs = g.startAt === null ? 0 : g.startAt - (performance.timeOrigin + performance.now())
  if (waitMs < -START_LATE_MS) {
    const at = new Date(g.startAt).toISOString()
    return settle(g, new Error(`start time ${at} passed ${(-waitMs / 1000).toFixed(1)} s before this generator was ready`))
  }
  g.timer = setTimeout(beginSchedule, Math.max(0, waitMs), g)
}

// Due time 0 is now (or the common start): favour the scheduler, start the sweep, issue the first.
function beginSchedule (g) {
  g.timer = null
  if (g.settled) return
  g.priority = favourScheduler()
  g.raw.priorityRaised = g.priority.raised
  g.t0 = g.startAt === null ? performance.now() : g.startAt - performance.timeOrigin
  g.raw.startedAt = g.t0
  g.raw.startedAtEpochMs = performance.timeOrigin + g.t0
  g.trace?.start(g.t0, g.connectedAt)
  g.sweeper = setInterval(sweep, SWEEP_MS, g)
  g.nextDue = g.schedule.next()
  g.began = true
  tick(g)
}

// The timer woke up: issue what is due, then sleep until the next due time.
function tick (g) {
  g.timer = null
  if (g.settled) return
  send(g, false)
  if (g.nextDue === null) {
    g.scheduleDone = true
    maybeDone(g)
    return
  }
  g.timer = setTimeout(tick, Math.max(0, g.nextDue - (performance.now() - g.t0)), g)
}

// Issue every request already due (by the timer, or by an answer that freed a connection), reading the
// clock for each, so a batch's later requests carry their own lag. Re-entry is refused: a send inside a
// send (an answer finishing while this one writes) leaves the rest to the outer loop.
function send (g, byAnswer) {
  if (g.sending || !g.began || g.settled || g.nextDue === null || g.raw.stopped) return
  let now = performance.now() - g.t0
  if (g.nextDue > now) return
  g.sending = true
  const woke = now
  let n = 0
  let backlog = 0
  while (g.nextDue !== null && g.nextDue <= now) {
    if (g.nextDue <= woke) backlog++
    issue(g, g.nextDue, now)
    g.nextDue = g.schedule.next()
    n++
    now = performance.now() - g.t0
  }
  g.sending = false
  if (backlog > g.raw.peakBacklog && woke >= g.raw.warmupMs) g.raw.peakBacklog = backlog
  if (byAnswer) g.raw.sentByAnswer += n
  if (g.trace) g.trace.batch(woke, n, byAnswer ? 'answer' : 'timer')
  if (g.nextDue === null && !g.scheduleDone) {
    g.scheduleDone = true
    clearTimeout(g.timer)
    g.timer = null
  }
}

// The window (from the warm-up's end) a time falls in, or -1 in the warm-up.
function windowOf (g, ms) {
  const w = g.raw.windows
  return ms < w.startMs ? -1 : Math.floor((ms - w.startMs) / w.ms)
}

function countIn (list, k) {
  if (k < 0) return
  while (list.length <= k) list.push(0)
  list[k]++
}

// One request is due: count it, and write it or queue it for a free connection.
function issue (g, due, now) {
  const raw = g.raw
  const req = new Request(g, due)
  if (g.mix) {
    req.cls = g.mix.pick(g.schedule.index)
    g.mix.counts[req.cls].sent++
  }
  const lag = now - due
  raw.sent++
  raw.firstIssueMs ??= now
  raw.firstDueMs ??= due
  raw.lastIssueMs = now
  raw.lastDueMs = due
  recordMs(raw.lag, lag)
  if (due >= raw.warmupMs) recordMs(raw.lagJudged, lag)
  countIn(raw.windows.due, windowOf(g, due))
  countIn(raw.windows.issued, windowOf(g, now))
  if (g.trace) g.trace.issued(due, lag)
  g.on.sent?.()
  track(g, req)
  if (g.inFlight < g.cap && g.waitHead === g.waiting.length) write(g, req, now)
  else {
    raw.waited++
    req.queuedAt = now
    g.waiting.push(req)
  }
}

// Add an issued request to the ring of outstanding ones (doubled when full; it also holds requests
// finished out of order behind an older one, until the head passes them).
function track (g, req) {
  const held = (g.ringTail - g.ringHead) & g.ringMask
  if (held === g.ringMask) {
    const old = g.ring
    const ring = new Array(old.length * 2)
    for (let i = 0; i < held; i++) ring[i] = old[(g.ringHead + i) & g.ringMask]
    g.ring = ring
    g.ringMask = ring.length - 1
    g.ringHead = 0
    g.ringTail = held
  }
  g.ring[g.ringTail] = req
  g.ringTail = (g.ringTail + 1) & g.ringMask
  g.outstanding++
}

// Drop finished requests from the ring's head (they finish in about due order).
function untrack (g) {
  g.outstanding--
  while (g.ringHead !== g.ringTail && g.ring[g.ringHead].done) {
    g.ring[g.ringHead] = undefined
    g.ringHead = (g.ringHead + 1) & g.ringMask
  }
}

// Write a request to a connection; the request is its own handler (below).
function write (g, req, now) {
  g.inFlight++
  if (g.inFlight > g.raw.peakInFlight) g.raw.peakInFlight = g.inFlight
  g.raw.written++
  req.sentAt = now
  if (req.queuedAt !== null) recordMs(g.raw.wait, now - req.queuedAt)
  g.pool.send(req, g.mix?.bytes[req.cls])
}

// One request, and the client's handler for it (http1.js): status, Server-Timing, the body checked as it
// streams. One object a request, no closures.
class Request {
  constructor (g, due) {
    this.g = g
    this.due = due
    this.sentAt = null
    this.queuedAt = null
    this.done = false
    this.abortConn = null
    this.status = 0
    this.timing = null
    this.body = null
    this.verified = null // a 2xx whose body matched the reference (null: not a 2xx)
    this.cls = -1 // its mix class (classes.js), -1 without a mix
    this.met = null // a mixed answer's { ok, sample }: whether it met its class's expect
  }

  abort () {
    this.abortConn?.(new Error('timed out'))
  }

  onConnect (abort) {
    this.abortConn = abort
    if (this.done) this.abort()
  }

  onHeaders (statusCode, serverTiming) {
    this.status = statusCode
    this.timing = serverTiming
    if (statusCode >= 200 && statusCode < 300) {
      this.body = this.cls < 0 ? this.g.body.start() : this.g.mix.checks[this.cls].start() // null: not looked at
    }
    return true
  }

  onData (chunk) {
    if (this.body !== null) this.body.update(chunk)
    return true
  }

  onComplete () {
    finish(this.g, this, 'response', this)
  }

  onError (err) {
    finish(this.g, this, 'error', err)
  }
}

// A request ended (answered, timed out, failed, or stopped): free its slot, count it, tell the listeners,
// and (an answer having freed a connection) issue what is already due.
function finish (g, req, outcome, detail) {
  if (req.done) return
  req.done = true
  untrack(g)
  const now = performance.now() - g.t0
  g.raw.lastAt = g.t0 + now
  if (req.sentAt !== null) release(g, now)
  if (outcome === 'response') countResponse(g, req, now)
  else if (outcome === 'timeout') countTimeout(g, req)
  else if (outcome === 'error') countError(g, detail, req)
  if (outcome === 'stopped') req.abort()
  else if (g.on.response) g.on.response(eventOf(g, req, now, outcome, detail))
  if (outcome !== 'stopped' && g.sendOnAnswer) send(g, true)
  maybeDone(g)
}

// A connection slot is free: the next waiter (in due order) takes it. (A timed-out request's connection
// is aborted; either way the slot goes on.)
function release (g, now) {
  g.inFlight--
  while (!g.raw.stopped && g.waitHead < g.waiting.length && g.inFlight < g.cap) {
    const next = g.waiting[g.waitHead]
    g.waiting[g.waitHead++] = undefined
    if (!next.done) write(g, next, now)
  }
  if (g.waitHead > 1024 && g.waitHead * 2 > g.waiting.length) {
    g.waiting = g.waiting.slice(g.waitHead)
    g.waitHead = 0
  }
}

function countResponse (g, req, now) {
  const raw = g.raw
  const status = req.status
  raw.completed++
  raw.statusCodes[status] = (raw.statusCodes[status] ?? 0) + 1
  if (req.cls >= 0) countMixed(g, req, now)
  if (status >= 200 && status < 300) {
    raw.ok++
    const { ok, sample } = req.cls < 0 ? g.body.settle(req.body, status) : req.met
    req.verified = ok
    if (!ok) {
      raw.mismatches++
      raw.mismatchSample ??= sample
    }
  } else raw.non2xx++
  recordMs(raw.latency, now - req.due)
  recordMs(raw.service, now - req.sentAt)
  if (req.timing !== null) {
    const work = timingMs(req.timing, 'work')
    if (work !== null) recordMs(raw.workMs, work)
    const queue = timingMs(req.timing, 'queue')
    if (queue !== null) recordMs(raw.queueMs, queue)
  }
  g.on.record?.({ latencyMs: now - req.due, status })
}

// A mixed request's answer, into its class's counts (its class's expect judged once: req.met).
function countMixed (g, req, now) {
  const { met, sample } = g.mix.checks[req.cls].settle(req.body, req.status)
  req.met = { ok: met, sample }
  countClass(g.mix.counts[req.cls], { outcome: 'response', status: req.status, met, sample, latencyMs: now - req.due })
}

// One metric's duration (ms) from a Server-Timing value (`work;dur=1.2, queue;dur=0`), or null: the
// same reading as fire.js parseServerTiming, without splitting the value into arrays a request.
function timingMs (value, name) {
  let at = 0
  while (at < value.length) {
    while (value.charCodeAt(at) === 32) at++
    const end = value.indexOf(',', at)
    const stop = end < 0 ? value.length : end
    const after = value.charCodeAt(at + name.length) // ';' or ' ' after the name
    if ((after === 59 || after === 32) && value.startsWith(name, at)) {
      const dur = value.indexOf('dur=', at + name.length)
      if (dur >= 0 && dur < stop) {
        const n = Number(value.slice(dur + 4, stop).split(';')[0].trim())
        return Number.isFinite(n) ? n : null
      }
    }
    at = stop + 1
  }
  return null
}

// A user who gave up waited the whole timeout: in at that lower bound, as the closed loop does.
function countTimeout (g, req) {
  if (req.cls >= 0) countClass(g.mix.counts[req.cls], { outcome: 'timeout', latencyMs: g.timeoutMs })
  g.raw.timeouts++
  recordMs(g.raw.latency, g.timeoutMs)
  g.on.record?.({ latencyMs: g.timeoutMs, timeout: true })
  req.abort()
}

function countError (g, err, req) {
  if (req.cls >= 0) countClass(g.mix.counts[req.cls], { outcome: 'error' })
  g.raw.errors++
  g.raw.errorSample ??= err?.message ?? String(err)
  g.on.record?.({ error: true })
}

// What onResponse hears (built only when someone listens).
function eventOf (g, req, now, outcome, detail) {
  return {
    dueMs: req.due,
    sentMs: req.sentAt,
    doneMs: now,
    status: outcome === 'response' ? detail.status : null,
    latencyMs: outcome === 'timeout' ? g.timeoutMs : now - req.due,
    timeout: outcome === 'timeout',
    error: outcome === 'error' ? (detail?.message ?? String(detail)) : null,
    // a 2xx whose body matched (null: not a 2xx), and the Server-Timing work time (goodput, wasted CPU)
    verified: outcome === 'response' ? (detail.verified ?? null) : null,
    workMs: outcome === 'response' && detail.timing !== null ? timingMs(detail.timing, 'work') : null,
    cls: req.cls // its mix class's index (-1: no mix)
  }
}

// Time out the oldest outstanding requests (the ring is in due order, so the sweep stops at the first
// that still has time).
function sweep (g) {
  const now = performance.now() - g.t0
  // the head is never done: untrack() pops every done request at the head as it ends, so finishing the
  // head moves it on to the next outstanding one
  while (g.ringHead !== g.ringTail) {
    const req = g.ring[g.ringHead]
    if (req.due + g.timeoutMs > now) break
    finish(g, req, 'timeout')
  }
}

function maybeDone (g) {
  if (g.scheduleDone && g.outstanding === 0) settle(g)
}

// The round is stopped (abort): nothing more is issued, what is outstanding is dropped uncounted.
function stop (g) {
  g.raw.stopped = true
  g.scheduleDone = true
  const left = []
  for (let i = g.ringHead; i !== g.ringTail; i = (i + 1) & g.ringMask) if (!g.ring[i].done) left.push(g.ring[i])
  for (const req of left) finish(g, req, 'stopped')
  settle(g)
}

// The round is over: restore the priority, stop the timers, close the pool, resolve the raw round.
function settle (g, err) {
  if (g.settled) return
  g.settled = true
  g.priority?.restore()
  clearTimeout(g.timer)
  clearInterval(g.sweeper)
  g.signal?.removeEventListener('abort', g.onAbort)
  g.raw.durationMs = (g.raw.lastAt ?? performance.now()) - g.t0
  g.raw.bodies = g.body.figures()
  if (g.trace) g.raw.trace = { file: g.traceFile, ...g.trace.stop({ rate: g.raw.rate, sent: g.raw.sent }) }
  const closing = g.pool ? g.pool.destroy().catch(() => {}) : Promise.resolve()
  closing.then(() => (err ? g.reject(err) : g.resolve(g.raw)))
}
