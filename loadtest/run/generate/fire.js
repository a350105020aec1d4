// One autocannon round: every response body verified, every request counted, the run timed by us.
import { lazyRequire } from '../../result/lazy.js'
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { request } from './http.js'
import { createVerifier } from './body.js'
import { parseServerTiming, serverTimingOf } from './server-timing.js'
import { DEFAULTS } from '../../settings.js'
import { holdToProtocol } from './autocannon-strict.js'
import { createHistogram, recordMs } from '../../result/histogram.js'
import { weightedCycle } from '../../result/mix.js'
import { classCheck, classCounts, countClass } from './classes.js'

const autocannon = lazyRequire('autocannon')

// autocannon ends an amount round only at its next sample tick: a tick every 100 ms, not its default 1 s,
// keeps a short round from idling up to a second (the lab's rounds, the bench's and the tests' helper).
export const SAMPLE_INT_MS = 100

// The counts and histograms every round starts with, whichever engine fires it (open-loop.js adds its
// own figures): requests by outcome, latency, Server-Timing work and queue, the first odd body or error.
export function roundCounts () {
  return {
    sent: 0,
    completed: 0,
    ok: 0,
    non2xx: 0,
    errors: 0, // requests that ended in an error: their connection's, or a protocol error
    protocolErrors: 0, // responses that broke HTTP/1.1 (the connection closed on each; a request's is in errors too)
    interim: 0, // interim answers (1xx but 101) skipped while waiting for the final one
    timeouts: 0,
    mismatches: 0,
    statusCodes: {},
    latency: createHistogram(), // HDR, microseconds: bounded memory however long the round
    workMs: createHistogram(),
    queueMs: createHistogram(),
    mismatchSample: null,
    errorSample: null,
    reference: null,
    bodies: null, // { maxBytes, overCap, largestBytes } (body.js): what was kept of the bodies
    startedAt: null,
    lastAt: null,
    durationMs: null,
    stopped: false
  }
}

// autocannon's client hooks for one round: count what is sent, answered, timed out and refused into
// `raw`, record latencies and Server-Timing, and feed the timeline. `state.status` is the status of the
// response autocannon is about to verify.
function clientHooks (raw, state, { timeoutSec, onSent, onRecord, onResponse }) {
  return (client) => {
    client.on('request', () => {
      raw.sent++
      onSent?.()
    })
    client.on('headers', (h) => {
      const t = parseServerTiming(serverTimingOf(h.headers))
      if (t.work !== null) recordMs(raw.workMs, t.work)
      if (t.queue !== null) recordMs(raw.queueMs, t.queue)
    })
    client.on('response', (status, bytes, ms) => {
      state.status = status
      state.latencyMs = ms
      raw.lastAt = performance.now()
      raw.completed++
      raw.statusCodes[status] = (raw.statusCodes[status] ?? 0) + 1
      if (status >= 200 && status < 300) raw.ok++
      else raw.non2xx++
      recordMs(raw.latency, ms)
      onRecord?.({ latencyMs: ms, status })
      onResponse?.({ status, latencyMs: ms, timeout: false, error: null })
    })
    // A timed-out request waited at least the timeout: it enters the latencies at that lower bound, so
    // a server that times out half its clients cannot show the latency of the half it answered.
    client.on('timeout', () => {
      state.onClassEnd?.(client, 'timeout', timeoutSec * 1000)
      raw.lastAt = performance.now()
      raw.timeouts++
      recordMs(raw.latency, timeoutSec * 1000)
      onRecord?.({ latencyMs: timeoutSec * 1000, timeout: true })
      onResponse?.({ status: null, latencyMs: timeoutSec * 1000, timeout: true, error: null })
    })
    client.on('connError', (err) => {
      state.onClassEnd?.(client, 'error', null)
      raw.lastAt = performance.now()
      raw.errors++
      raw.errorSample ??= err?.message ?? String(err)
      onRecord?.({ error: true })
      onResponse?.({ status: null, latencyMs: null, timeout: false, error: err?.message ?? String(err) })
    })
  }
}

// Stream each response body through the verifier instead of autocannon's `req.body += chunk`, which keeps
// every body whole (100 MB bodies: a lab of about 1 GB). autocannon 9 has no hook for this: its pending
// request queue's addBody is replaced, and the request's `body` becomes the streamed body (body.js).
function streamBodies (client, verifier) {
  const queue = client.pipelinedRequests
  if (typeof queue?.addBody !== 'function' || typeof queue.peek !== 'function') {
    throw new Error('autocannon has no pipelinedRequests.addBody/peek to stream bodies through (version changed?)')
  }
  queue.addBody = (chunk) => {
    const pending = queue.peek()
    if (!pending) return
    if (typeof pending.body === 'string') pending.body = verifier.start(pending.req)
    pending.body?.update(chunk) // null: a mix class whose expect does not look at bodies
  }
}

// The closed loop's User-Agent, unless a mix class sets its own (autocannon writes none of its own).
const USER_AGENT = 'loadlab-closed-loop'
const withUserAgent = (headers = {}) => Object.keys(headers).some((h) => h.toLowerCase() === 'user-agent')
  ? headers
  : { 'user-agent': USER_AGENT, ...headers }

// A --mix round through autocannon's own `requests` option: the classes in a weighted cycle (autocannon
// cycles them in order, result/mix.js weightedCycle), each request tagged with its class; its answers
// checked by their class's expect and counted per class (classes.js). Returns the `requests` and a
// verifier in body.js's shape; `state.cls` is the class of the answer autocannon is about to verify.
function mixedRequests (mix, raw, state, maxBody) {
  const checks = mix.requests.map((c) => classCheck(c, maxBody))
  raw.classes = classCounts(mix.requests)
  const requests = weightedCycle(mix.requests).map((k) => {
    const { method, path, headers: own, body } = mix.requests[k]
    const onResponse = () => { state.cls = k }
    const headers = withUserAgent(own)
    return { method, path, headers, ...(body === null ? {} : { body }), loadlabClass: k, onResponse }
  })
  // a timed-out or failed request is the client's current one (one request at a time a connection)
  state.onClassEnd = (client, outcome, latencyMs) => {
    const k = client.requestIterator?.currentRequest?.loadlabClass
    if (k !== undefined) countClass(raw.classes[k], { outcome, latencyMs })
  }
  const verifier = {
    start: (req) => checks[req?.loadlabClass]?.start() ?? null,
    settle (body, status) {
      const { met, sample } = checks[state.cls].settle(body, status)
      countClass(raw.classes[state.cls], { outcome: 'response', status, met, sample, latencyMs: state.latencyMs })
      return { ok: met, sample }
    },
    figures: () => ({ maxBytes: maxBody, overCap: 0, largestBytes: 0 })
  }
  return { requests, verifier }
}

// Count each request a mixed round sends under its class (autocannon queues it as it writes it).
function countSentByClass (client, raw) {
  const queue = client.pipelinedRequests
  const insert = queue.insertRequest.bind(queue)
  queue.insertRequest = (req) => {
    if (req?.loadlabClass !== undefined) raw.classes[req.loadlabClass].sent++
    insert(req)
  }
}

// autocannon's body check: each 2xx body against the expected reference (or the first 2xx body's),
// by hash and length; a mismatch is counted with a sample of the body's head.
function bodyChecker (raw, state, verifier) {
  return (body) => {
    const { ok, sample } = verifier.settle(typeof body === 'string' ? null : body, state.status)
    if (!ok) {
      raw.mismatches++
      raw.mismatchSample ??= sample
    }
    return ok
  }
}

// The round's own timing and autocannon's view of it, once autocannon is done.
function finishRound (raw, result, verifier) {
  raw.bodies = verifier.figures()
  // --amount: first request to last answer. --duration: the whole round, up to autocannon's stop
  // (dividing by the time to the last answer would reward a server that stalls at the end).
  raw.durationMs = (raw.mode === 'amount' ? (raw.lastAt ?? performance.now()) : performance.now()) - raw.startedAt
  raw.autocannon = {
    duration: result.duration,
    requestsAverage: result.requests?.average ?? null,
    sent: result.requests?.sent ?? null,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    non2xx: result.non2xx
  }
  return raw
}

// Load url with autocannon at fixed connections and amount (or durationSec). `expected` ({ sha256, bytes },
// body.js) is what each 2xx body must be (null: the first 2xx body's); bodies are checked as they stream
// and at most `maxBody` bytes of each are kept. Resolves the raw counts and samples.
// onSent() and onRecord({ latencyMs, status, timeout, error }) see every request as it goes and ends
// (the engine-independent timeline is fed from them). `drain` (a duration round): at its end no request
// is written any more and those still out are waited for, answered, failed or timed out (within one more
// timeout), so that every request sent is counted; else autocannon drops them uncounted.
export function fireRound ({
  url, connections, amount = null, durationSec = null, timeoutSec = DEFAULTS.timeout, expected = null,
  maxBody = DEFAULTS['max-body'], mix = null, drain = false, signal, ...on
}) {
  return new Promise((resolve, reject) => {
    const raw = {
      ...roundCounts(),
      loop: 'closed',
      mode: amount !== null ? 'amount' : 'duration',
      connections,
      autocannon: null
    }
    const state = { status: null, cls: null, latencyMs: null, onClassEnd: null }
    const mixed = mix ? mixedRequests(mix, raw, state, maxBody) : null
    const verifier = mixed?.verifier ?? createVerifier({ expected, maxBody })
    const hooks = clientHooks(raw, state, { timeoutSec, ...on })
    const draining = drain && amount === null
    const clients = []
    // SAMPLE_INT_MS: the server's telemetry and our /proc window stay close to the real round (autocannon's
    // own rates are not used).
    const opts = {
      url,
      connections,
      timeout: timeoutSec,
      setupClient: (client) => {
        holdToProtocol(client, { onInterim: () => raw.interim++, onProtocolError: () => raw.protocolErrors++ })
        streamBodies(client, verifier)
        if (mixed) countSentByClass(client, raw)
        hooks(client)
        if (draining) clients.push(client)
      },
      ...(mixed ? { requests: mixed.requests } : { headers: withUserAgent() }),
      verifyBody: bodyChecker(raw, state, verifier),
      excludeErrorStats: false,
      sampleInt: SAMPLE_INT_MS,
      // a draining round ends when its last client is done; its duration is only the bound
      ...(amount !== null ? { amount } : { duration: draining ? durationSec + timeoutSec + 1 : durationSec })
    }
    raw.startedAt = performance.now()
    let instance
    // a client whose requests reach responseMax writes no more and is done once its last one ends
    const drainAll = () => { for (const c of clients) c.responseMax = c.reqsMade }
    const drainTimer = draining ? setTimeout(drainAll, durationSec * 1000) : null
    const onAbort = () => {
      raw.stopped = true
      clearTimeout(drainTimer)
      instance?.stop()
    }
    try {
      instance = autocannon()(opts, (err, result) => {
        clearTimeout(drainTimer)
        signal?.removeEventListener('abort', onAbort)
        if (err) return reject(err)
        resolve(finishRound(raw, result, verifier))
      })
    } catch (err) {
      return reject(err)
    }
    raw.stop = onAbort
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
}

// Probe GET url every intervalMs (sequentially) until stop(); stop() resolves the probe samples.
export function startProbe (url, { intervalMs = 100, timeoutMs = 5000 } = {}) {
  const controller = new AbortController()
  const latencies = []
  let failed = 0
  let timedOut = 0
  let abandoned = 0
  const loop = (async () => {
    while (!controller.signal.aborted) {
      const started = performance.now()
      const r = await request(url, { timeoutMs, signal: controller.signal })
      // A probe still waiting when the round ends waited at least that long: it counts at that lower
      // bound, or a freeze as long as the round would show only the probes answered before it.
      if (r.status === 'aborted') {
        abandoned++
        latencies.push(r.ms)
        break
      }
      if (r.status === 200) latencies.push(r.ms)
      else failed++
      // A probe that timed out waited at least its timeout: it counts at that lower bound, or a server
      // too busy to answer /health at all would show the latency of its one lucky probe.
      if (r.status === 'timeout') {
        timedOut++
        latencies.push(Math.max(r.ms, timeoutMs))
      } // a timer may fire a hair early
      const wait = intervalMs - (performance.now() - started)
      if (wait > 0) await delay(wait, undefined, { signal: controller.signal }).catch(() => {})
    }
  })()
  return {
    async stop () {
      controller.abort()
      await loop
      return { latencies, failed, timedOut, abandoned }
    }
  }
}
