// The open loop (`--rate`): request i is due at its scheduled time and is issued then, whether or not
// earlier requests have answered, so a stalled server cannot slow the arrivals down (no coordinated
// omission). Latency counts from the due time (what a user arriving then sees) and, separately, from
// the moment the request was written (service latency). Kept connections (http1.js), up to a cap: when
// every connection is busy a request waits for one, in order, its latency still counting from its due
// time; nothing is skipped or thinned while the wait stays under MAX_WAITING. Memory is bounded by design:
// a written request is an object, at most one a connection; a waiting one is two numbers in a ring of
// typed arrays (MAX_WAITING); past that bound a due request is counted as dropped and the round goes
// on; a waiter whose timeout passes is counted without a socket; a sweep pass does at most SWEEP_BUDGET.
// Requests leave when they are due from two places, as in wrk2: the timer (a wake-up at the next due
// time) and the response path (an answer that frees a connection issues what is already due, before the
// loop goes back to its timers). Connections open before time
// zero. The generator watches itself: scheduler lag (all of it, and after a warm-up), the issue rate in
// 1 s windows, the unsent backlog. Bodies are checked as they stream (body.js: against the reference's
// bytes), at most --max-body bytes of each kept. One round is a state object (`g`) and the named steps
// below: start, prepare, begin, send → issue → write | enqueue | drop → finish → release, sweep, stop,
// settle.
import { getPriority, setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { createHttp1Pool, requestBytes } from './http1.js'
import { classCheck, classCounts, classPicker, countClass } from './classes.js'
import { createSchedule } from './schedule.js'
import { timingMs } from './server-timing.js'
import { bodyReference, createVerifier } from './body.js'
import { DEFAULTS, WINDOW_MS, defaultConnections } from '../../settings.js'
import { FIT } from '../../result/rules.js'
import { createHistogram, recordMs } from '../../result/histogram.js'
import { roundCounts } from './fire.js'
import { createTrace, traceFileFor } from './generator-trace.js'
import { createPhaseTally, tallyAnswer } from '../../result/phases.js'
import { fromPerformance } from '../../../servers/lib/stamps.js'
import { wallOffsetMs } from '../epoch.js'

// How often outstanding requests are checked against their timeout (ms).
const SWEEP_MS = 10
// The most requests one sweep pass (or one freed connection) times out; the rest wait for the next pass.
const SWEEP_BUDGET = 4096
// The most requests that may wait for a free connection: the highest --rate (100,000 req/s) times the
// default timeout (10 s), so at that rate nothing that could still be answered in time is dropped. Each
// costs 16 bytes (its due time and the time it began to wait, in two Float64Arrays that double from
// 1024 slots up to this bound: 16 MiB at most). A request due while the ring is full is dropped: counted
// (`dropped`, with its due time in the windows), never written.
const MAX_WAITING = 1 << 20
// The share of its timeout a waiting request must have left to be written (release, below).
export const LAST_CHANCE = 0.1
// The warm-up left out of the judged lag and issue-rate windows (ms from due time 0): the first
// requests meet cold code on both sides (JIT, the server's first answers).
export const WARMUP_MS = 500
// The arrival bins a round keeps (an hour's at FIT.binMs): the fit reads the first hour of a longer one.
const MAX_FIT_BINS = 36000
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

// The raw round, in the closed loop's shape plus the open loop's own figures.
function newRaw ({ amount, rate, arrival, schedule, cap, warmupMs, durationMs }) {
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
    dropped: 0, // due while MAX_WAITING requests already waited: counted, never written
    droppedReason: null, // why (the bound), once any was dropped
    peakWaiting: 0, // the most requests waiting for a connection at once
    service: createHistogram(), // from the write
    lag: createHistogram(), // scheduler: issued − due
    lagJudged: createHistogram(), // the same, of the requests due after the warm-up
    // the latency of the requests due in the second half of a round of planned length (result/rules.js HALVES)
    latencyLate: createHistogram(),
    lateFromMs: durationMs === null ? null : durationMs / 2,
    wait: createHistogram(), // waiting for a free connection
    warmupMs,
    // requests due and issued in each WINDOW_MS window from the warm-up's end (threads add them up)
    windows: { startMs: warmupMs, ms: WINDOW_MS, due: [], issued: [] },
    // requests issued in each FIT.binMs bin from the warm-up's end, up to MAX_FIT_BINS (result/trust.js arrivalFit)
    arrivals: { startMs: warmupMs, ms: FIT.binMs, issued: [] },
    peakBacklog: 0, // the most requests already due and not yet issued at one wake-up after the warm-up
    sentByAnswer: 0, // of `sent`, issued from the response path (the rest by the timer)
    preopened: 0, // connections opened before time zero
    firstIssueMs: null,
    lastIssueMs: null,
    firstDueMs: null,
    lastDueMs: null,
    startedAtEpochMs: null, // the wall-clock time of due time 0 (shards and threads share it)
    phases: createPhaseTally(), // where the 2xx answers' time went (result/phases.js, the Lab-Stamps header)
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
  const {
    url, rate, arrival = DEFAULTS.arrival, seed = DEFAULTS.seed, amount = null, durationSec = null, slice = null,
    phases = null, until = null
  } = opts
  const target = new URL(url)
  const timeoutSec = opts.timeoutSec ?? DEFAULTS.timeout
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
    raw: newRaw({ amount, rate, arrival, schedule, cap, warmupMs, durationMs }),
    body: createVerifier({ expected: referenceOf(opts.expected), maxBody: opts.maxBody ?? DEFAULTS['max-body'] }),
    startAt: opts.startAt ?? null,
    startWhen: opts.startWhen ?? null,
    onPrepared: opts.onPrepared ?? null,
    signal: opts.signal,
    on: { response: opts.onResponse, sent: opts.onSent, record: opts.onRecord },
    // issued, waiting for a free connection, in due order: due times and wait starts in a ring of
    // `waitDue.length` slots (a power of two, doubled when full, up to MAX_WAITING)
    waitDue: new Float64Array(1024),
    waitAt: new Float64Array(1024),
    waitHead: 0,
    waitCount: 0,
    maxWaiting: opts.maxWaiting ?? MAX_WAITING,
    // written, not finished, in write order (which is due order): a list through Request.prev/next
    first: null,
    last: null,
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
    wallOffsetMs: 0, // Date.now() − performance.now() as the round began (epoch.js)
    mix: mixOf(opts, target, seed) // a request mix's classes (null: GET of the URL's path)
  }
}

// A --mix round's classes: each one's request bytes, its answers' check, the seeded class of request i
// (classes.js) and the class of each waiting request (a ring beside the waiting due times); the raw
// round gets their counts (`classes`).
function mixOf (opts, target, seed) {
  if (!opts.mix) return null
  const maxBody = opts.maxBody ?? DEFAULTS['max-body']
  const { requests } = opts.mix
  return {
    pick: classPicker(requests, seed),
    bytes: requests.map((c) => requestBytes(target.host, c)),
    checks: requests.map((c) => classCheck(c, maxBody)),
    counts: classCounts(requests),
    waiting: new Uint8Array(1024) // indexed as waitDue
  }
}

// The class of the request the schedule just handed out (-1 without a mix), counted as sent.
function classOfNext (g) {
  if (!g.mix) return -1
  const cls = g.mix.pick(g.schedule.index)
  g.mix.counts[cls].sent++
  return cls
}

// The class of the oldest waiting request (read before dequeue), -1 without a mix.
function waitingClass (g) {
  return g.mix ? g.mix.waiting[g.waitHead] : -1
}

// Load url open-loop at `rate` requests/s (`arrival` constant or poisson with `seed`) for `amount`
// requests or `durationSec`; `connections` caps the kept connections; `slice` ({ offset, stride },
// schedule.js sliceOf) sends only that part of the plan; `startAt` (epoch ms) is due time 0 (a
// shard's or thread's common start; later than START_LATE_MS past it, the round refuses), or
// `startWhen` a promise of it (a thread: onPrepared() once its connections are open, then the start).
// `maxWaiting` (MAX_WAITING) bounds the requests that wait for a connection; past it they are dropped.
// `warmupMs` (WARMUP_MS) is left out of the judged lag and windows. `expected`: the body every 2xx
// answer must have (a string, or body.js's reference; null: the first 2xx body's), checked as it
// streams, at most `maxBody` bytes of each kept. onResponse(event) hears every finished request;
// onSent() each issued one and onRecord({ latencyMs, status } | { latencyMs, timeout } | { error })
// each end, as fireRound calls them, for the round's timeline. `trace` (a file) writes the round's
// trace (generator-trace.js); `sendOnAnswer: false` leaves sending to the timer alone (for measuring).
// Resolves the raw round in the closed loop's shape plus the open loop's own.
export function fireOpenLoop (opts) {
  const g = createRound(opts)
  if (g.mix) {
    g.raw.classes = g.mix.counts
    g.raw.classPhases = g.mix.counts.map(createPhaseTally) // the same, per class
  }
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
  g.wallOffsetMs = wallOffsetMs() // the start's moment on this thread's clock
  const waitMs = g.startAt === null ? 0 : g.startAt - (performance.now() + g.wallOffsetMs)
  if (waitMs < -START_LATE_MS) {
    const at = new Date(g.startAt).toISOString()
    return settle(g, new Error(`start time ${at} passed ${(-waitMs / 1000).toFixed(1)} s before this ` +
      'generator was ready'))
  }
  g.timer = setTimeout(beginSchedule, Math.max(0, waitMs), g)
}

// Due time 0 is now (or the common start): favour the scheduler, start the sweep, issue the first.
function beginSchedule (g) {
  g.timer = null
  if (g.settled) return
  g.priority = favourScheduler()
  g.raw.priorityRaised = g.priority.raised
  g.t0 = g.startAt === null ? performance.now() : g.startAt - g.wallOffsetMs
  g.raw.startedAt = g.t0
  g.raw.startedAtEpochMs = g.t0 + g.wallOffsetMs
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
  const bin = now < raw.arrivals.startMs ? -1 : Math.floor((now - raw.arrivals.startMs) / raw.arrivals.ms)
  if (bin < MAX_FIT_BINS) countIn(raw.arrivals.issued, bin)
  if (g.trace) g.trace.issued(due, lag)
  g.on.sent?.()
  const cls = classOfNext(g)
  if (g.inFlight < g.cap && g.waitCount === 0) write(g, new Request(g, due, cls), now)
  else if (g.waitCount < g.maxWaiting) enqueue(g, due, now, cls)
  else drop(g, due, now, cls)
}

// A request finds every connection busy: its due time and now go to the tail of the waiting ring
// (doubled when full, up to MAX_WAITING).
function enqueue (g, due, now, cls) {
  if (g.waitCount === g.waitDue.length) growWaiting(g)
  const mask = g.waitDue.length - 1
  const at = (g.waitHead + g.waitCount) & mask
  g.waitDue[at] = due
  g.waitAt[at] = now
  if (g.mix) g.mix.waiting[at] = cls
  g.waitCount++
  g.raw.waited++
  if (g.waitCount > g.raw.peakWaiting) g.raw.peakWaiting = g.waitCount
}

function growWaiting (g) {
  const n = g.waitDue.length
  const due = new Float64Array(n * 2)
  const at = new Float64Array(n * 2)
  const cls = g.mix ? new Uint8Array(n * 2) : null
  for (let i = 0; i < g.waitCount; i++) {
    due[i] = g.waitDue[(g.waitHead + i) & (n - 1)]
    at[i] = g.waitAt[(g.waitHead + i) & (n - 1)]
    if (cls) cls[i] = g.mix.waiting[(g.waitHead + i) & (n - 1)]
  }
  if (cls) g.mix.waiting = cls
  g.waitDue = due
  g.waitAt = at
  g.waitHead = 0
}

// The waiting ring's oldest request leaves it: its due time (the slot is reused).
function dequeue (g) {
  const due = g.waitDue[g.waitHead]
  g.waitHead = (g.waitHead + 1) & (g.waitDue.length - 1)
  g.waitCount--
  return due
}

// A request due while MAX_WAITING already wait: counted as dropped, never written (k6's dropped_iterations).
function drop (g, due, now, cls) {
  if (cls >= 0) countClass(g.mix.counts[cls], { outcome: 'error' }) // dropped: never written
  g.raw.dropped++
  g.raw.droppedReason ??= `${g.maxWaiting} requests already waited for one of ${g.cap} connections`
  g.raw.lastAt = g.t0 + now
  g.on.record?.({ error: true, dropped: true })
  g.on.response?.(endEvent(g, due, null, now, { error: 'dropped', dropped: true }))
}

// Write a request to a connection (the request is its own handler, below); it joins the in-flight list.
function write (g, req, now) {
  g.inFlight++
  if (g.inFlight > g.raw.peakInFlight) g.raw.peakInFlight = g.inFlight
  g.raw.written++
  req.sentAt = now
  req.prev = g.last
  if (g.last) g.last.next = req
  else g.first = req
  g.last = req
  g.pool.send(req, g.mix?.bytes[req.cls])
}

// A written request leaves the in-flight list.
function unlink (g, req) {
  if (req.prev) req.prev.next = req.next
  else g.first = req.next
  if (req.next) req.next.prev = req.prev
  else g.last = req.prev
  req.prev = req.next = null
}

// One request, and the client's handler for it (http1.js): status, Server-Timing, the body checked as it
// streams. One object a request, no closures.
class Request {
  constructor (g, due, cls = -1) {
    this.g = g
    this.due = due
    this.cls = cls // its mix class (classes.js), -1 without a mix
    this.met = null // a mixed answer's { ok, sample }: whether it met its class's expect
    this.sentAt = null
    this.prev = null // the in-flight list
    this.next = null
    this.done = false
    this.abortConn = null
    this.status = 0
    this.timing = null
    this.stamps = null // the Lab-Stamps header's value
    this.body = null
    this.verified = null // a 2xx whose body matched the reference (null: not a 2xx)
  }

  abort () {
    this.abortConn?.(this)
  }

  onConnect (abort) {
    this.abortConn = abort
    if (this.done) this.abort()
  }

  onHeaders (statusCode, serverTiming, stamps = null) {
    this.status = statusCode
    this.timing = serverTiming
    this.stamps = stamps
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

// A written request ended (answered, timed out, failed, or stopped): leave the in-flight list, abort its
// connection if it has not ended, count it, tell the listeners, then free its slot (the next waiter with
// time left takes it) and (an answer having freed a connection) issue what is already due.
function finish (g, req, outcome, detail) {
  if (req.done) return
  req.done = true
  unlink(g, req)
  const now = performance.now() - g.t0
  g.raw.lastAt = g.t0 + now
  if (outcome === 'timeout' || outcome === 'stopped') req.abort() // before the slot is freed
  if (outcome === 'response') countResponse(g, req, now)
  else if (outcome === 'timeout') countTimeout(g, req.cls, req.due)
  else if (outcome === 'error') countError(g, detail, req.cls)
  if (outcome !== 'stopped' && g.on.response) g.on.response(eventOf(g, req, now, outcome, detail))
  g.inFlight--
  if (outcome === 'stopped') return
  release(g, now)
  if (g.sendOnAnswer) send(g, true)
  maybeDone(g)
}

// A connection slot is free: the waiters (in due order) take the free slots. One with less than
// LAST_CHANCE of its timeout left is counted as timed out, never written (at most SWEEP_BUDGET of those
// here; the sweep takes the rest): against a server that never answers, writing it would cost a new
// connection for each slot every sweep, for a request that times out before an answer could come.
function release (g, now) {
  let budget = SWEEP_BUDGET
  const lastChanceMs = g.timeoutMs * LAST_CHANCE
  while (!g.raw.stopped && g.waitCount > 0 && g.inFlight < g.cap) {
    if (g.waitDue[g.waitHead] + g.timeoutMs - lastChanceMs <= now) {
      if (budget-- === 0) return
      expireWaiter(g, now)
      continue
    }
    const waitedMs = now - g.waitAt[g.waitHead]
    const cls = waitingClass(g)
    write(g, new Request(g, dequeue(g), cls), now)
    recordMs(g.raw.wait, waitedMs)
  }
}

// The oldest waiter's timeout passed before a connection was free: a timeout, without a socket.
function expireWaiter (g, now) {
  const cls = waitingClass(g)
  const due = dequeue(g)
  countTimeout(g, cls, due)
  g.on.response?.(endEvent(g, due, null, now, { timeout: true }))
}

function countResponse (g, req, now) {
  const raw = g.raw
  const status = req.status
  raw.completed++
  raw.statusCodes[status] = (raw.statusCodes[status] ?? 0) + 1
  if (req.cls >= 0) countMixed(g, req, now)
  if (status >= 200 && status < 300) {
    raw.ok++
    tallyPhases(g, req, now)
    const { ok, sample } = req.cls < 0 ? g.body.settle(req.body, status) : req.met
    req.verified = ok
    if (!ok) {
      raw.mismatches++
      raw.mismatchSample ??= sample
    }
  } else raw.non2xx++
  recordLatency(raw, req.due, now - req.due)
  recordMs(raw.service, now - req.sentAt)
  if (req.timing !== null) {
    const work = timingMs(req.timing, 'work')
    if (work !== null) recordMs(raw.workMs, work)
    const queue = timingMs(req.timing, 'queue')
    if (queue !== null) recordMs(raw.queueMs, queue)
  }
  g.on.record?.({ latencyMs: now - req.due, status })
}

// A 2xx answer's phases (result/phases.js): the lab's moments on the clock the servers stamp with.
function tallyPhases (g, req, now) {
  const base = fromPerformance(g.t0)
  const moments = { stamps: req.stamps, dueMs: base + req.due, writtenMs: base + req.sentAt, doneMs: base + now }
  tallyAnswer(g.raw.phases, moments)
  if (req.cls >= 0) tallyAnswer(g.raw.classPhases[req.cls], moments)
}

// A mixed request's answer, into its class's counts (its class's expect judged once: req.met).
function countMixed (g, req, now) {
  const { met, sample } = g.mix.checks[req.cls].settle(req.body, req.status)
  req.met = { ok: met, sample }
  countClass(g.mix.counts[req.cls], { outcome: 'response', status: req.status, met, sample, latencyMs: now - req.due })
}

// A request's latency from its due time, into the round's histogram and, due in its second half, the late one.
function recordLatency (raw, due, ms) {
  recordMs(raw.latency, ms)
  if (raw.lateFromMs !== null && due >= raw.lateFromMs) recordMs(raw.latencyLate, ms)
}

// A user who gave up waited the whole timeout: in at that lower bound, as the closed loop does.
function countTimeout (g, cls, due) {
  if (cls >= 0) countClass(g.mix.counts[cls], { outcome: 'timeout', latencyMs: g.timeoutMs })
  g.raw.timeouts++
  recordLatency(g.raw, due, g.timeoutMs)
  g.on.record?.({ latencyMs: g.timeoutMs, timeout: true })
}

function countError (g, err, cls = -1) {
  if (cls >= 0) countClass(g.mix.counts[cls], { outcome: 'error' })
  g.raw.errors++
  g.raw.errorSample ??= err?.message ?? String(err)
  g.on.record?.({ error: true })
}

// What onResponse hears (built only when someone listens).
function eventOf (g, req, now, outcome, detail) {
  return endEvent(g, req.due, req.sentAt, now, {
    status: outcome === 'response' ? detail.status : null,
    timeout: outcome === 'timeout',
    error: outcome === 'error' ? (detail?.message ?? String(detail)) : null,
    verified: outcome === 'response' ? (detail.verified ?? null) : null,
    workMs: outcome === 'response' && detail.timing !== null ? timingMs(detail.timing, 'work') : null
  })
}

// One ended request's event: due, written (null: never written) and end times, and how it ended.
function endEvent (g, due, sentMs, now, opts) {
  const { status = null, timeout = false, error = null, dropped = false, verified = null, workMs = null } = opts
  return {
    dueMs: due,
    sentMs,
    doneMs: now,
    status,
    latencyMs: timeout ? g.timeoutMs : now - due,
    timeout,
    error,
    dropped,
    // a 2xx whose body matched (null: not a 2xx), and the Server-Timing work time (goodput, wasted CPU)
    verified,
    workMs
  }
}

// Time out the oldest outstanding requests, at most SWEEP_BUDGET a pass: the waiters first (they need no
// socket), then the written ones (their connections aborted). Both lists are in due order, so each stops
// at the first request that still has time.
function sweep (g) {
  const now = performance.now() - g.t0
  let budget = SWEEP_BUDGET
  while (budget > 0 && g.waitCount > 0 && g.waitDue[g.waitHead] + g.timeoutMs <= now) {
    expireWaiter(g, now)
    budget--
  }
  while (budget > 0 && g.first !== null && g.first.due + g.timeoutMs <= now) {
    finish(g, g.first, 'timeout')
    budget--
  }
  maybeDone(g)
}

function maybeDone (g) {
  if (g.scheduleDone && g.inFlight === 0 && g.waitCount === 0) settle(g)
}

// The round is stopped (abort): nothing more is issued, what is outstanding is left uncounted.
function stop (g) {
  g.raw.stopped = true
  g.scheduleDone = true
  while (g.first !== null) finish(g, g.first, 'stopped')
  g.waitCount = 0
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
  g.waitDue = g.waitAt = null // the round's memory goes back before the next round
  g.waitCount = 0
  if (g.trace) g.raw.trace = { file: g.traceFile, ...g.trace.stop({ rate: g.raw.rate, sent: g.raw.sent }) }
  const closing = g.pool ? g.pool.destroy().catch(() => {}) : Promise.resolve()
  closing.then(() => (err ? g.reject(err) : g.resolve(g.raw)))
}
