// The open loop (`--rate`): request i is due at its scheduled time and is issued then, whether or not
// earlier requests have answered, so a stalled server cannot slow the arrivals down (no coordinated
// omission). Latency counts from the due time (what a user arriving then sees) and, separately, from
// the moment the request was written (service latency). Kept connections (undici), up to a cap: when
// every connection is busy a request waits for one, in order, its latency still counting from its due
// time; nothing is skipped or thinned. The generator watches itself: scheduler lag and issue rate.
import { getPriority, setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { createSchedule } from './schedule.js'
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

function headerValue (rawHeaders, name) {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() === name) return String(rawHeaders[i + 1])
  }
  return null
}

// The default connection cap for a rate: enough for every request of one timeout window in flight.
export function defaultConnections (rate, timeoutSec) {
  return Math.max(1, Math.min(10000, Math.ceil(rate * timeoutSec)))
}

// Load url open-loop at `rate` requests/s (`arrival` constant or poisson with `seed`) for `amount`
// requests or `durationSec`; `connections` caps the kept connections. verify(body) → boolean checks each
// 2xx body (null: the first 2xx body is the reference). onResponse(event) hears every finished request;
// onSent() each issued one and onRecord({ latencyMs, status } | { latencyMs, timeout } | { error }) each
// end, as fireRound calls them, for the round's timeline.
// Resolves the raw round in the closed loop's shape plus the open loop's own figures.
export function fireOpenLoop ({
  url,
  rate,
  arrival = 'constant',
  seed = 1,
  amount = null,
  durationSec = null,
  connections,
  timeoutSec = 10,
  verify = null,
  signal,
  onResponse,
  onSent,
  onRecord
}) {
  const target = new URL(url)
  const path = target.pathname + target.search
  const timeoutMs = timeoutSec * 1000
  const cap = connections ?? defaultConnections(rate, timeoutSec)
  const schedule = createSchedule({
    rate,
    arrival,
    seed,
    amount,
    durationMs: durationSec === null ? null : durationSec * 1000
  })
  const raw = {
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
    lastDueMs: null,
    peakInFlight: 0,
    priorityRaised: false,
    autocannon: null
  }
  let check = verify
  const verifyBody = (body) => {
    if (check === null) {
      raw.reference = body
      check = (b) => b === raw.reference
      return true
    }
    return check(body)
  }

  return new Promise((resolve, reject) => {
    const pool = new Pool(target.origin, {
      connections: cap,
      pipelining: 1,
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: 60_000
    })
    const outstanding = new Set() // issued, not finished, in due order (the oldest first)
    const waiting = [] // issued, waiting for a free connection, in due order
    let inFlight = 0
    let scheduleDone = false
    let settled = false
    let timer = null
    const priority = favourScheduler()
    raw.priorityRaised = priority.raised
    const t0 = performance.now()
    raw.startedAt = t0
    const elapsed = () => performance.now() - t0

    const settle = (err) => {
      if (settled) return
      settled = true
      priority.restore()
      clearTimeout(timer)
      clearInterval(sweeper)
      signal?.removeEventListener('abort', onAbort)
      raw.durationMs = (raw.lastAt ?? performance.now()) - t0
      pool
        .destroy()
        .catch(() => {})
        .then(() => (err ? reject(err) : resolve(raw)))
    }
    const maybeDone = () => {
      if (scheduleDone && outstanding.size === 0) settle()
    }

    function finish (req, outcome, detail) {
      if (req.done) return
      req.done = true
      outstanding.delete(req)
      const now = elapsed()
      raw.lastAt = performance.now()
      if (req.sentAt !== null) {
        inFlight--
        // A timed-out request's connection is aborted below; either way the slot goes to the next waiter.
        while (!raw.stopped && waiting.length && inFlight < cap) {
          const next = waiting.shift()
          if (!next.done) write(next)
        }
      }
      const event = {
        dueMs: req.due,
        sentMs: req.sentAt,
        doneMs: now,
        status: null,
        latencyMs: now - req.due,
        timeout: false,
        error: null
      }
      if (outcome === 'response') {
        const { status, body, timing } = detail
        raw.completed++
        raw.statusCodes[status] = (raw.statusCodes[status] ?? 0) + 1
        if (status >= 200 && status < 300) {
          raw.ok++
          if (!verifyBody(body)) {
            raw.mismatches++
            raw.mismatchSample ??= body.slice(0, 200)
          }
        } else raw.non2xx++
        recordMs(raw.latency, now - req.due)
        recordMs(raw.service, now - req.sentAt)
        if (timing.work !== null) recordMs(raw.workMs, timing.work)
        if (timing.queue !== null) recordMs(raw.queueMs, timing.queue)
        event.status = status
        onRecord?.({ latencyMs: now - req.due, status })
      } else if (outcome === 'timeout') {
        // A user who gave up waited the whole timeout: in at that lower bound, as the closed loop does.
        raw.timeouts++
        recordMs(raw.latency, timeoutMs)
        event.timeout = true
        event.latencyMs = timeoutMs
        onRecord?.({ latencyMs: timeoutMs, timeout: true })
        req.abort?.()
      } else if (outcome === 'error') {
        raw.errors++
        raw.errorSample ??= detail?.message ?? String(detail)
        event.error = detail?.message ?? String(detail)
        onRecord?.({ error: true })
      }
      if (outcome === 'stopped') req.abort?.()
      else onResponse?.(event)
      maybeDone()
    }

    function write (req) {
      inFlight++
      raw.peakInFlight = Math.max(raw.peakInFlight, inFlight)
      raw.written++
      req.sentAt = elapsed()
      if (req.queuedAt !== null) recordMs(raw.wait, req.sentAt - req.queuedAt)
      const chunks = []
      let status = 0
      let timing = null
      pool.dispatch(
        { path, method: 'GET', headers: { 'user-agent': 'loadlab-open-loop' } },
        {
          onConnect (abort) {
            req.abort = () => abort(new Error('timed out'))
            if (req.done) req.abort()
          },
          onHeaders (statusCode, rawHeaders) {
            status = statusCode
            timing = parseServerTiming(headerValue(rawHeaders, 'server-timing'))
            return true
          },
          onData (chunk) {
            chunks.push(chunk)
            return true
          },
          onComplete () {
            finish(req, 'response', { status, body: Buffer.concat(chunks).toString('utf8'), timing })
          },
          onError (err) {
            finish(req, 'error', err)
          }
        }
      )
    }

    function issue (due, now) {
      const req = { due, sentAt: null, queuedAt: null, done: false, abort: null }
      raw.sent++
      raw.firstIssueMs ??= now
      raw.lastIssueMs = now
      raw.lastDueMs = due
      recordMs(raw.lag, now - due)
      onSent?.()
      outstanding.add(req)
      if (inFlight < cap && waiting.length === 0) write(req)
      else {
        raw.waited++
        req.queuedAt = now
        waiting.push(req)
      }
    }

    // Issue every request that is due, then sleep until the next one is.
    let nextDue = schedule.next()
    const tick = () => {
      timer = null
      if (settled) return
      const now = elapsed()
      while (nextDue !== null && nextDue <= now) {
        issue(nextDue, now)
        nextDue = schedule.next()
      }
      if (nextDue === null) {
        scheduleDone = true
        maybeDone()
        return
      }
      timer = setTimeout(tick, Math.max(0, nextDue - elapsed()))
    }

    // Time out the oldest outstanding requests (they are in due order, so the sweep stops at the first
    // that still has time).
    const sweeper = setInterval(() => {
      const now = elapsed()
      for (const req of outstanding) {
        if (req.due + timeoutMs > now) break
        finish(req, 'timeout')
      }
    }, SWEEP_MS)

    const onAbort = () => {
      raw.stopped = true
      scheduleDone = true
      for (const req of [...outstanding]) finish(req, 'stopped')
      settle()
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    pool.on('connectionError', (origin, targets, err) => {
      raw.errorSample ??= err?.message ?? String(err)
    })
    tick()
  })
}
