// A request mix in a round (result/mix.js holds the mix itself): which class request i of the plan is,
// from a seeded stream, so that the same seed gives the same sequence and any slice of the plan (a
// thread's, a shard's) takes exactly its own requests' classes; the counts and HDR latency histogram of
// each class, which add up across threads and shards like the round's own; and each class's check of its
// answers, which looks at a body only when the class's `expect` asks for one.
import { startBody } from './body.js'
import { sharesOf } from '../../result/mix.js'
import { createHistogram, decodeHistogram, encodeHistogram, recordMs } from '../../result/histogram.js'

// A uniform number in [0, 1) for (seed, i): a stateless mix of the two (splitmix32's finaliser), so the
// class of request i needs no state carried from request i − 1.
function uniform (seed, i) {
  let x = (Math.imul(i >>> 0, 0x9e3779b9) ^ Math.imul(seed >>> 0, 0x85ebca6b)) >>> 0
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad)
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97)
  return ((x ^ (x >>> 15)) >>> 0) / 4294967296
}

// The class picker of a mix's classes: pick(i) → the index of request i's class, by weight.
// The shares are taken over the largest weight first (result/mix.js sharesOf): two of 1e308 are half each.
export function classPicker (requests, seed) {
  let acc = 0
  const bounds = sharesOf(requests).map((share) => (acc += share))
  bounds[bounds.length - 1] = 1
  return (i) => {
    const u = uniform(seed, i)
    let k = 0
    while (u >= bounds[k]) k++
    return k
  }
}

// The counts every class starts a round with (the round's own, result/figures.js, per class).
export function classCounts (requests) {
  return requests.map((c) => ({
    name: c.name,
    sloMs: c.sloMs ?? null, // its own target (null: the run's)
    sent: 0,
    completed: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    mismatches: 0,
    mismatchSample: null,
    latency: createHistogram()
  }))
}

const SUMMED = ['sent', 'completed', 'ok', 'non2xx', 'errors', 'timeouts', 'mismatches']

// One class's finished request, into its counts: `outcome` 'response' (with `status` and whether it met
// the class's expect), 'timeout' or 'error'; `latencyMs` as the round records it.
export function countClass (counts, { outcome, status = null, met = true, sample = null, latencyMs = null }) {
  if (outcome === 'response') {
    counts.completed++
    if (status >= 200 && status < 300) counts.ok++
    else counts.non2xx++
    if (!met) {
      counts.mismatches++
      counts.mismatchSample ??= sample
    }
  } else if (outcome === 'timeout') counts.timeouts++
  else counts.errors++
  if (latencyMs !== null) recordMs(counts.latency, latencyMs)
}

// Per-class counts as plain data a thread can post (histograms encoded).
export function plainClasses (classes) {
  return classes?.map((c) => ({ ...c, latency: encodeHistogram(c.latency) })) ?? null
}

// Add one thread's or shard's per-class counts into another's (same mix: same classes, same order).
export function addClasses (into, from) {
  if (!from) return into
  if (!into) return from.map((c) => ({ ...c, latency: asHistogram(c.latency) }))
  for (const [k, c] of from.entries()) {
    for (const f of SUMMED) into[k][f] += c[f]
    into[k].mismatchSample ??= c.mismatchSample
    into[k].latency.add(asHistogram(c.latency))
  }
  return into
}

function asHistogram (h) {
  if (typeof h !== 'string') return h
  const out = createHistogram()
  out.add(decodeHistogram(h))
  return out
}

// A class's check of one answer: start() → a streamed body (body.js) when the class's expect looks at
// bodies, else null (nothing of the body is hashed or kept); settle(body, status) → { met, sample }.
// A non-2xx answer is counted by its status, never as a mismatch.
export function classCheck (cls, maxBody) {
  const { status = null, sha256 = null, bodyIncludes = null } = cls.expect ?? {}
  const looks = sha256 !== null || bodyIncludes !== null
  return {
    start: () => (looks ? startBody(maxBody) : null),
    settle (body, got) {
      if (!(got >= 200 && got < 300)) return { met: true, sample: null }
      if (status !== null && got !== status) return { met: false, sample: `status ${got}, expected ${status}` }
      if (!looks) return { met: true, sample: null }
      const ended = (body ?? startBody(maxBody)).end()
      if (sha256 !== null && ended.sha256 !== sha256) {
        return { met: false, sample: `sha256 ${ended.sha256}: ${ended.head.slice(0, 120)}` }
      }
      if (bodyIncludes !== null && !ended.head.includes(bodyIncludes)) {
        return { met: false, sample: `no ${JSON.stringify(bodyIncludes)}: ${ended.head.slice(0, 120)}` }
      }
      return { met: true, sample: null }
    }
  }
}
