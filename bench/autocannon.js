// The bench's one autocannon round (closed loop): the telemetry, sampling and generator sections load a
// server through it, timed by the bench itself.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import { SAMPLE_INT_MS } from '../loadtest/run/generate/fire.js'
import { errorsOf } from '../loadtest/result/requests.js'

// How long an autocannon round runs: `amount` requests, else `durationSec`. autocannon ends an amount
// round only at its next sample tick (1 s by default: an idle second after a 0.1 s round), so those
// tick every 100 ms (the bench times its rounds itself; duration rounds keep autocannon's default).
function roundLength ({ amount, durationSec }) {
  return amount ? { amount, sampleInt: SAMPLE_INT_MS } : { duration: durationSec }
}

// One autocannon round against `url`: own-timed 2xx answers per second, first request sent to last
// response (autocannon rounds its duration to whole ticks), and the failed requests (result/requests.js
// errorsOf: connection errors, timeouts, non-2xx, body mismatches with `expectBody`). `result`: autocannon's.
export async function closedRound (url, { connections, durationSec, amount, expectBody }, signal) {
  const instance = autocannon({ url, connections, expectBody, ...roundLength({ amount, durationSec }) })
  let first = Infinity
  let last = -Infinity
  instance.on('response', (client, statusCode, resBytes, responseTime) => {
    const now = performance.now()
    first = Math.min(first, now - responseTime)
    last = now
  })
  const onAbort = () => instance.stop()
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const result = await instance
    signal?.throwIfAborted()
    const seconds = (last - first) / 1000
    return { rps: result['2xx'] / seconds, requests: result['2xx'], seconds, failed: errorsOf(result), result }
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

// The load a bench part put on servers/simple, as the head of its result: the work and the rounds' size.
export function loadOf ({ work, connections, durationSec, amount }) {
  return { server: 'simple', work, connections, durationSec, amount }
}
