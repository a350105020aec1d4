// How far this host's clock is from the target's: the target's `Date` header counts whole seconds, so
// the moment its second turns is found by asking until it does. A coarse pass (a request every
// COARSE_MS) finds the turn within that; a fine pass, just before the next turn, asks back to back, so
// the turn lies between the send of the last answer of the old second and the arrival of the first of
// the new one. offset = this clock − the target's, ± half that window. The server's own lateness in
// turning its cached Date (Node refreshes it on a timer) is not in the ± and biases every host alike.
// Run on each host by `loadlab fanout` (node loadtest/fanout/clock.js URL): one JSON line on stdout.
import http from 'node:http'
import https from 'node:https'
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { roundTo } from '../result/stats.js'
import { isMain } from '../errors.js'
import { wallOffsetMs } from '../run/epoch.js'

const COARSE_MS = 20
// How long before the expected turn the fine pass starts, and how long after it it gives up (ms).
const FINE_LEAD_MS = 3 * COARSE_MS
const FINE_AFTER_MS = 3 * COARSE_MS
// The whole measurement's limit (ms): a turn must come within it (two turns and the waits).
const LIMIT_MS = 3500
const REQUEST_TIMEOUT_MS = 1000

// This host's wall clock, as a shard waits on it (run/epoch.js), read once for the pass.
let wall = null
const now = () => performance.now() + (wall ??= wallOffsetMs())

// One HEAD request on the kept connection: { sent, came, second } (local ms; the Date's second in ms,
// NaN without a Date header).
function ask (url, agent) {
  const lib = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const sent = now()
    const req = lib.request(url, { method: 'HEAD', agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const came = now()
      res.resume()
      res.on('end', () => resolve({ sent, came, second: Date.parse(res.headers.date ?? '') }))
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)))
    req.on('error', reject)
    req.end()
  })
}

// Ask every `gapMs` (0: back to back) until the Date's second turns or `untilMs` (local) passes: the
// turn as { lo, hi, second } (local ms between which the target's `second` began), or null.
async function findTurn (url, agent, gapMs, untilMs) {
  let last = await ask(url, agent)
  if (Number.isNaN(last.second)) throw new Error('its answers carry no Date header')
  while (now() < untilMs) {
    if (gapMs > 0) await delay(gapMs)
    const next = await ask(url, agent)
    if (next.second > last.second) {
      return next.second - last.second === 1000 ? { lo: last.sent, hi: next.came, second: next.second } : null
    }
    last = next
  }
  return null
}

// The offset of this clock against the target's Date: { offsetMs, uncertaintyMs, measureMs } or
// { offsetMs: null, why }.
export async function measureOffset (target) {
  const url = new URL('/health', target)
  const agent = new (url.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 1 })
  const start = now()
  try {
    const coarse = await findTurn(url, agent, COARSE_MS, start + LIMIT_MS)
    if (!coarse) {
      return {
        offsetMs: null,
        why: 'the target\'s Date did not turn one second',
        measureMs: roundTo(now() - start, 1)
      }
    }
    const turnAt = (t) => ({ offsetMs: (t.lo + t.hi) / 2 - t.second, uncertaintyMs: (t.hi - t.lo) / 2 })
    let best = turnAt(coarse)
    const expected = coarse.second + 1000 + best.offsetMs
    await delay(Math.max(0, expected - FINE_LEAD_MS - now()))
    const fine = await findTurn(url, agent, 0, expected + FINE_AFTER_MS).catch(() => null)
    if (fine) best = turnAt(fine)
    const measureMs = roundTo(now() - start, 1)
    return { offsetMs: roundTo(best.offsetMs, 3), uncertaintyMs: roundTo(best.uncertaintyMs, 3), measureMs }
  } catch (err) {
    return { offsetMs: null, why: `the target did not answer (${err.message})`, measureMs: roundTo(now() - start, 1) }
  } finally {
    agent.destroy()
  }
}

if (isMain(import.meta.url)) {
  const target = process.argv[2]
  // bootMs holds what loading the lab costs on this host now: the pass runs with the lab preloaded (fanout.js)
  const result = await measureOffset(target)
  const bootMs = roundTo(performance.now() - result.measureMs, 1)
  process.stdout.write(`${JSON.stringify({ clock: result, bootMs })}\n`)
}
