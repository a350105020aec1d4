// The open loop (`--rate`): request i is due at its scheduled time and is issued then, whether or not
// earlier requests have answered, so a stalled server cannot slow the arrivals down (no coordinated
// omission). Latency counts from the due time (what a user arriving then sees) and, separately, from
// the moment the request was written (service latency). Kept connections (http1.js), up to a cap: when
// every connection is busy a request waits for one, in order, its latency still counting from its due
// time; nothing is skipped or thinned. The generator watches itself: scheduler lag and issue rate.
// Bodies are checked as they stream (body.js: hash and length), at most --max-body bytes of each kept.
// One round is a state object (`g`) and the named steps below: start, tick → issue → write → finish,
// sweep, stop, settle.
import { getPriority, setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { createHttp1Pool } from './http1.js'
import { createSchedule } from './schedule.js'
import { DEFAULT_MAX_BODY, bodyReference, createVerifier } from './body.js'
import { createHistogram, recordMs } from '../result/histogram.js'
import { parseServerTiming, roundCounts } from './fire.js'

// How often outstanding requests are checked against their timeout (ms).
const SWEEP_MS = 10
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
export const START_LATE_MS = 250

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
function newRaw ({ amount, rate, arrival, schedule, cap }) {
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
    wait: createHistogram(), // waiting for a free connection
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

// The reference a body must match: given ({ sha256, bytes }), from the expected body (a string), or
// null (the first 2xx body's).
function referenceOf (expected) {
  if (expected === null || expected === undefined) return null
  return typeof expected === 'string' || Buffer.isBuffer(expected) ? bodyReference(expected) : expected
}

// One round's state: the options, the schedule, the raw figures, the queues.
function createRound (opts) {
  const { url, rate, arrival = 'constant', seed = 1, amount = null, durationSec = null, slice = null, phases = null, until = null } = opts
  const target = new URL(url)
  const timeoutSec = opts.timeoutSec ?? 10
  const cap = opts.connections ?? defaultConnections(rate, timeoutSec)
  const durationMs = durationSec === null ? null : durationSec * 1000
  const schedule = createSchedule({ rate, arrival, seed, amount, durationMs, slice, phases, until })
  return {
    origin: target.origin,
    path: target.pathname + target.search,
    timeoutMs: timeoutSec * 1000,
    cap,
    schedule,
    raw: newRaw({ amount, rate, arrival, schedule, cap }),
    body: createVerifier({ expected: referenceOf(opts.expected), maxBody: opts.maxBody ?? DEFAULT_MAX_BODY }),
    startAt: opts.startAt ?? null,
    signal: opts.signal,
    on: { response: opts.onResponse, sent: opts.onSent, record: opts.onRecord },
    outstanding: new Set(), // issued, not finished, in due order (the oldest first)
    waiting: [], // issued, waiting for a free connection, in due order (from waitHead on)
    waitHead: 0,
    inFlight: 0,
    nextDue: null,
    scheduleDone: false,
    settled: false,
    timer: null,
    sweeper: null,
    t0: 0
  }
}

// Load url open-loop at `rate` requests/s (`arrival` constant or poisson with `seed`) for `amount`
// requests or `durationSec`; `connections` caps the kept connections; `slice` ({ offset, stride },
// schedule.js sliceOf) sends only that part of the plan; `startAt` (epoch ms) is due time 0 (a
// shard's or thread's common start; later than START_LATE_MS past it, the round refuses). `expected`:
// the body every 2xx answer must have (a string, or body.js's reference; null: the first 2xx body's),
// checked by sha256 and length as it streams, at most `maxBody` bytes of each kept. onResponse(event)
// hears every finished request; onSent() each issued one and onRecord({ latencyMs, status } |
// { latencyMs, timeout } | { error }) each end, as fireRound calls them, for the round's timeline.
// Resolves the raw round in the closed loop's shape plus the open loop's own figures.
export function fireOpenLoop (opts) {
  const g = createRound(opts)
  return new Promise((resolve, reject) => {
    g.resolve = resolve
    g.reject = reject
    if (g.signal?.aborted) return stop(g)
    startRound(g)
  })
}

// Open the pool, raise the scheduler, listen for an abort, and start ticking at the round's start.
function startRound (g) {
  g.pool = createHttp1Pool(g.origin, g.path, {
    onConnectionError: (err) => { g.raw.errorSample ??= err?.message ?? String(err) },
    onProtocolError: () => { g.raw.protocolErrors++ },
    onInterim: () => { g.raw.interim++ }
  })
  g.onAbort = () => stop(g)
  g.signal?.addEventListener('abort', g.onAbort, { once: true })
  const waitMs = g.startAt === null ? 0 : g.startAt - (performance.timeOrigin + performance.now())
  if (waitMs < -START_LATE_MS) {
    const at = new Date(g.startAt).toISOString()
    return settle(g, new Error(`start time ${at} passed ${(-waitMs / 1000).toFixed(1)} s before this generator was ready`))
  }
  g.timer = setTimeout(() => beginSchedule(g), Math.max(0, waitMs))
}

// Due time 0 is now (or the common start): favour the scheduler, start the sweep, issue the first.
function beginSchedule (g) {
  g.priority = favourScheduler()
  g.raw.priorityRaised = g.priority.raised
  g.t0 = g.startAt === null ? performance.now() : g.startAt - performance.timeOrigin
  g.raw.startedAt = g.t0
  g.raw.startedAtEpochMs = performance.timeOrigin + g.t0
  g.sweeper = setInterval(() => sweep(g), SWEEP_MS)
  g.nextDue = g.schedule.next()
  tick(g)
}

// Issue every request that is due, then sleep until the next one is.
function tick (g) {
  g.timer = null
  if (g.settled) return
  const now = performance.now() - g.t0
  while (g.nextDue !== null && g.nextDue <= now) {
    issue(g, g.nextDue, now)
    g.nextDue = g.schedule.next()
  }
  if (g.nextDue === null) {
    g.scheduleDone = true
    maybeDone(g)
    return
  }
  g.timer = setTimeout(tick, Math.max(0, g.nextDue - (performance.now() - g.t0)), g)
}

// One request is due: count it, and write it or queue it for a free connection.
function issue (g, due, now) {
  const raw = g.raw
  const req = { due, sentAt: null, queuedAt: null, done: false, abort: null }
  raw.sent++
  raw.firstIssueMs ??= now
  raw.firstDueMs ??= due
  raw.lastIssueMs = now
  raw.lastDueMs = due
  recordMs(raw.lag, now - due)
  g.on.sent?.()
  g.outstanding.add(req)
  if (g.inFlight < g.cap && g.waitHead === g.waiting.length) write(g, req)
  else {
    raw.waited++
    req.queuedAt = now
    g.waiting.push(req)
  }
}

// Write a request to a connection; its exchange (below) finishes it.
function write (g, req) {
  g.inFlight++
  if (g.inFlight > g.raw.peakInFlight) g.raw.peakInFlight = g.inFlight
  g.raw.written++
  req.sentAt = performance.now() - g.t0
  if (req.queuedAt !== null) recordMs(g.raw.wait, req.sentAt - req.queuedAt)
  g.pool.dispatch(new Exchange(g, req))
}

// The client's handler for one request (http1.js): status, Server-Timing, the body checked as it streams.
class Exchange {
  constructor (g, req) {
    this.g = g
    this.req = req
    this.status = 0
    this.timing = null
    this.body = null
  }

  onConnect (abort) {
    this.req.abort = () => abort(new Error('timed out'))
    if (this.req.done) this.req.abort()
  }

  onHeaders (statusCode, serverTiming) {
    this.status = statusCode
    if (serverTiming !== null) this.timing = parseServerTiming(serverTiming)
    if (statusCode >= 200 && statusCode < 300) this.body = this.g.body.start()
    return true
  }

  onData (chunk) {
    this.body?.update(chunk)
    return true
  }

  onComplete () {
    finish(this.g, this.req, 'response', this)
  }

  onError (err) {
    finish(this.g, this.req, 'error', err)
  }
}

// A request ended (answered, timed out, failed, or stopped): free its slot, count it, tell the listeners.
function finish (g, req, outcome, detail) {
  if (req.done) return
  req.done = true
  g.outstanding.delete(req)
  const now = performance.now() - g.t0
  g.raw.lastAt = g.t0 + now
  if (req.sentAt !== null) release(g)
  if (outcome === 'response') countResponse(g, req, now, detail)
  else if (outcome === 'timeout') countTimeout(g, req)
  else if (outcome === 'error') countError(g, detail)
  if (outcome === 'stopped') req.abort?.()
  else if (g.on.response) g.on.response(eventOf(g, req, now, outcome, detail))
  maybeDone(g)
}

// A connection slot is free: the next waiter (in due order) takes it. (A timed-out request's connection
// is aborted; either way the slot goes on.)
function release (g) {
  g.inFlight--
  while (!g.raw.stopped && g.waitHead < g.waiting.length && g.inFlight < g.cap) {
    const next = g.waiting[g.waitHead]
    g.waiting[g.waitHead++] = undefined
    if (!next.done) write(g, next)
  }
  if (g.waitHead > 1024 && g.waitHead * 2 > g.waiting.length) {
    g.waiting = g.waiting.slice(g.waitHead)
    g.waitHead = 0
  }
}

function countResponse (g, req, now, ex) {
  const raw = g.raw
  const status = ex.status
  raw.completed++
  raw.statusCodes[status] = (raw.statusCodes[status] ?? 0) + 1
  if (status >= 200 && status < 300) {
    raw.ok++
    const { ok, sample } = g.body.settle(ex.body, status)
    ex.verified = ok
    if (!ok) {
      raw.mismatches++
      raw.mismatchSample ??= sample
    }
  } else raw.non2xx++
  recordMs(raw.latency, now - req.due)
  recordMs(raw.service, now - req.sentAt)
  if (typeof ex.timing?.work === 'number') recordMs(raw.workMs, ex.timing.work)
  if (typeof ex.timing?.queue === 'number') recordMs(raw.queueMs, ex.timing.queue)
  g.on.record?.({ latencyMs: now - req.due, status })
}

// A user who gave up waited the whole timeout: in at that lower bound, as the closed loop does.
function countTimeout (g, req) {
  g.raw.timeouts++
  recordMs(g.raw.latency, g.timeoutMs)
  g.on.record?.({ latencyMs: g.timeoutMs, timeout: true })
  req.abort?.()
}

function countError (g, err) {
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
    workMs: outcome === 'response' ? (detail.timing?.work ?? null) : null
  }
}

// Time out the oldest outstanding requests (they are in due order, so the sweep stops at the first
// that still has time).
function sweep (g) {
  const now = performance.now() - g.t0
  for (const req of g.outstanding) {
    if (req.due + g.timeoutMs > now) break
    finish(g, req, 'timeout')
  }
}

function maybeDone (g) {
  if (g.scheduleDone && g.outstanding.size === 0) settle(g)
}

// The round is stopped (abort): nothing more is issued, what is outstanding is dropped uncounted.
function stop (g) {
  g.raw.stopped = true
  g.scheduleDone = true
  for (const req of [...g.outstanding]) finish(g, req, 'stopped')
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
  const closing = g.pool ? g.pool.destroy().catch(() => {}) : Promise.resolve()
  closing.then(() => (err ? g.reject(err) : g.resolve(g.raw)))
}
