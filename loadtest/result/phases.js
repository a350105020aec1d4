// Where a request's time went: the lab's own moments of a request (due, written, last byte read) joined
// with the server's stamps (servers/lib/stamps.js, the `Lab-Stamps` header) into phases named the same
// for every strategy, and a round's tally of them. Pure: plain data in, plain data out, so that generator
// threads post their tallies and the round adds them up. docs/attribution.md says what each phase is.
//
// Bounds: a tally is a few arrays of counts in log buckets (BUCKETS_PER_OCTAVE a factor of two, up to
// MAX_MS), so its memory does not grow with the round: at most about 1,000 buckets for each phase, for
// the residue and for the latency (each latency bucket holds the sums of its requests' phases). A header
// is read only up to MAX_HEADER_CHARS; one that does not parse, repeats a phase, names them out of order,
// or stamps a moment more than PHASE_TRUST.stampSlackMs outside its request's own interval is ignored and counted.
import { roundTo } from './stats.js'
import { PHASE_TRUST } from './rules.js'

// Every phase, in the order a request meets them: the lab's (`sent`, `reply`) around the server's.
export const PHASES = Object.freeze(['sent', 'wait', 'queue', 'start', 'send', 'run', 'return', 'reply'])
// The phases a server stamps (the moment each ends), in that order.
const STAMPED = PHASES.slice(1, -1)
const INDEX = new Map(PHASES.map((p, i) => [p, i]))

// The longest header value read (seven stamps take about 170 characters).
export const MAX_HEADER_CHARS = 512
// The resolution of a stamp (the header's 3 decimals) and of the tally's buckets (a bucket is
// 2^(1/BUCKETS_PER_OCTAVE) wide: a percentile read from it is within about 1.1 % of the true value).
export const STAMP_RESOLUTION_MS = 0.001
const BUCKETS_PER_OCTAVE = 32
// Durations are recorded up to an hour (longer ones in the last bucket).
const MAX_MS = 3600 * 1000

// A stamp's number as the servers write it (servers/lib/stamps.js: decimal ms, toFixed(3)): digits and a
// fraction, no sign, exponent, hex (`0x…`), binary or octal, which Number() would read as well.
const DECIMAL = /^\s*\d{1,16}(?:\.\d{1,9})?\s*$/

// The stamps of a `Lab-Stamps` value: an array of [phase index, epoch ms] in the phases' order, or null
// when the value is not one the lab reads (too long, a name it does not know, a repeat, out of order, a
// number that is not plain decimal).
export function parseStamps (value) {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_HEADER_CHARS) return null
  const out = []
  let last = 0
  for (let from = 0; from < value.length + 1;) { // read in place: the open loop calls it for every answer
    const comma = value.indexOf(',', from)
    const end = comma < 0 ? value.length : comma
    const eq = value.indexOf('=', from)
    const at = eq > from && eq < end ? INDEX.get(value.slice(from, eq).trim()) : undefined
    if (at === undefined || at <= last || at > STAMPED.length) return null
    const text = value.slice(eq + 1, end)
    if (!DECIMAL.test(text)) return null
    const t = Number(text)
    out.push([at, t])
    last = at
    from = end + 1
  }
  return out
}

// One request's phases (ms, indexed as PHASES; NaN where its strategy has no such moment) from its due
// time, the moment it was written and the moment its last byte was read (epoch ms, one clock) and its
// parsed stamps, less `shiftMs` (how far the server's clock is ahead of the lab's: clockShift). A stamp
// is clamped into [written, done]; a phase is the time from the moment before it to its own end, never
// negative. { phases, residueMs, clamped: whether a stamp was moved }, or null when a stamp lies more than
// PHASE_TRUST.stampSlackMs outside. residueMs, what the clocks leave unexplained: |latency − the phases' sum|
// (stamps of two threads or processes out of order) plus how far the clamp moved stamps.
export function requestPhases ({ dueMs, writtenMs, doneMs, stamps, shiftMs = 0 }) {
  const phases = new Array(PHASES.length).fill(NaN)
  phases[0] = Math.max(0, writtenMs - dueMs)
  let prev = writtenMs
  let moved = 0
  let sum = phases[0]
  for (const [at, stamped] of stamps) {
    const raw = stamped - shiftMs
    if (raw < writtenMs - PHASE_TRUST.stampSlackMs || raw > doneMs + PHASE_TRUST.stampSlackMs) return null
    const t = Math.min(doneMs, Math.max(writtenMs, raw))
    moved += Math.abs(t - raw)
    phases[at] = Math.max(0, t - prev)
    sum += phases[at]
    prev = t
  }
  phases[PHASES.length - 1] = Math.max(0, doneMs - prev)
  sum += phases[PHASES.length - 1]
  return { phases, residueMs: Math.abs(doneMs - dueMs - sum) + moved, clamped: moved > 0 }
}

// The server's clock against the lab's, from the requests read so far: a process's clock can stand off
// from another's by more than a request's reply (its wall and monotonic clocks read apart when it
// started), so the first stamp (the handler, on the main thread) must come after the request was written
// and the last (the main thread again) before its last byte was read. Each request bounds the shift
// (`bounds` [lo, hi], updated here); the shift taken is 0 where the bounds allow it, else the nearest
// bound (their middle if they cross: several processes standing off differently), at most PHASE_TRUST.stampSlackMs.
export function clockShift (bounds, { writtenMs, doneMs, stamps }) {
  bounds[0] = Math.max(bounds[0], stamps[stamps.length - 1][1] - doneMs)
  bounds[1] = Math.min(bounds[1], stamps[0][1] - writtenMs)
  const [lo, hi] = bounds
  const shift = lo > hi ? (lo + hi) / 2 : Math.min(hi, Math.max(lo, 0))
  return Math.max(-PHASE_TRUST.stampSlackMs, Math.min(PHASE_TRUST.stampSlackMs, shift))
}

// A new, empty tally of a round's phases.
export function createPhaseTally () {
  return {
    count: 0, // requests whose stamps were read
    missing: 0, // 2xx answers without a Lab-Stamps header
    ignored: 0, // answers whose header was not read (parseStamps, PHASE_TRUST.stampSlackMs)
    clamped: 0, // read, with a stamp moved into its request's interval
    shift: [-PHASE_TRUST.stampSlackMs, PHASE_TRUST.stampSlackMs], // the bounds on the server's clock shift (clockShift)
    shiftMs: 0, // the shift taken for the last request read
    present: new Array(PHASES.length).fill(0), // requests that had each phase
    sums: new Array(PHASES.length).fill(0), // each phase's total (ms), for its mean
    buckets: PHASES.map(() => []), // each phase's counts by bucket
    residue: [], // |latency − sum of the phases| by bucket
    latency: [], // the latency (from the due time) by bucket
    byLatency: [] // for each latency bucket, its requests' phase totals (ms): [b] = array of PHASES.length
  }
}

// The bucket of a duration (ms): 0 for nothing, then BUCKETS_PER_OCTAVE a factor of two from 1 µs.
function bucketOf (ms) {
  if (!(ms > 0)) return 0
  return Math.floor(Math.log2(1 + Math.min(ms, MAX_MS) * 1000) * BUCKETS_PER_OCTAVE)
}

// A bucket's lower edge (ms), its upper one, and its representative duration: the middle of the two.
const edge = (k) => (2 ** (k / BUCKETS_PER_OCTAVE) - 1) / 1000
const upperEdge = (b) => (b <= 0 ? 0 : edge(b + 1))
const valueOf = (b) => (b <= 0 ? 0 : (edge(b) + edge(b + 1)) / 2)

function bump (counts, b, n = 1) {
  while (counts.length <= b) counts.push(0)
  counts[b] += n
}

// Count one answer into the tally: `stamps` its Lab-Stamps value (null or undefined: none sent), the
// other moments as requestPhases takes them.
export function tallyAnswer (tally, { stamps, dueMs, writtenMs, doneMs }) {
  if (stamps === null || stamps === undefined) {
    tally.missing++
    return
  }
  const parsed = parseStamps(stamps)
  const trusted = parsed && requestPhases({ dueMs, writtenMs, doneMs, stamps: parsed })
  if (!trusted) {
    tally.ignored++
    return
  }
  const shiftMs = clockShift(tally.shift, { writtenMs, doneMs, stamps: parsed })
  tally.shiftMs = shiftMs
  const shifted = shiftMs ? requestPhases({ dueMs, writtenMs, doneMs, stamps: parsed, shiftMs }) : null
  addPhases(tally, doneMs - dueMs, shifted ?? trusted)
}

// Add one request's phases (requestPhases' answer) and its latency (ms) to the tally.
export function addPhases (tally, latencyMs, { phases, residueMs, clamped }) {
  tally.count++
  if (clamped) tally.clamped++
  const lb = bucketOf(latencyMs)
  bump(tally.latency, lb)
  while (tally.byLatency.length <= lb) tally.byLatency.push(null)
  const row = (tally.byLatency[lb] ??= new Array(PHASES.length).fill(0))
  for (let i = 0; i < PHASES.length; i++) {
    const ms = phases[i]
    if (Number.isNaN(ms)) continue
    tally.present[i]++
    tally.sums[i] += ms
    bump(tally.buckets[i], bucketOf(ms))
    row[i] += ms
  }
  bump(tally.residue, bucketOf(residueMs))
}

// Two tallies (a thread's, a shard's) added into the first; returns it. Either may be null.
export function mergeTallies (into, from) {
  if (!from) return into
  if (!into) return mergeTallies(createPhaseTally(), from)
  for (const k of ['count', 'missing', 'ignored', 'clamped']) into[k] += from[k]
  into.shift = [Math.max(into.shift[0], from.shift[0]), Math.min(into.shift[1], from.shift[1])]
  if (Math.abs(from.shiftMs) > Math.abs(into.shiftMs)) into.shiftMs = from.shiftMs
  for (let i = 0; i < PHASES.length; i++) {
    into.present[i] += from.present[i]
    into.sums[i] += from.sums[i]
    from.buckets[i].forEach((n, b) => n && bump(into.buckets[i], b, n))
  }
  from.residue.forEach((n, b) => n && bump(into.residue, b, n))
  from.latency.forEach((n, b) => n && bump(into.latency, b, n))
  from.byLatency.forEach((row, b) => {
    if (!row) return
    while (into.byLatency.length <= b) into.byLatency.push(null)
    const to = (into.byLatency[b] ??= new Array(PHASES.length).fill(0))
    for (let i = 0; i < PHASES.length; i++) to[i] += row[i]
  })
  return into
}

// The bucket holding percentile p (0..100) of counts summing to n.
function bucketAt (counts, n, p) {
  const rank = Math.max(1, Math.ceil((p / 100) * n))
  let seen = 0
  for (let b = 0; b < counts.length; b++) {
    seen += counts[b] ?? 0
    if (seen >= rank) return b
  }
  return counts.length - 1
}

const ms = (v) => roundTo(v, 3)

// The request at latency percentile p: its latency, each phase's time (the mean over the requests in its
// latency bucket, which are within the bucket's width of it) and share of their sum.
function requestAt (tally, p) {
  const b = bucketAt(tally.latency, tally.count, p)
  const n = tally.latency[b]
  const row = tally.byLatency[b]
  const total = row.reduce((a, v) => a + v, 0)
  const phases = {}
  const share = {}
  PHASES.forEach((name, i) => {
    if (!tally.present[i]) return
    phases[name] = ms(row[i] / n)
    share[name] = total > 0 ? roundTo(row[i] / total, 4) : null
  })
  return { latencyMs: ms(valueOf(b)), requests: n, phases, share }
}

// A round's phase figures (the report's `phases`; null when no answer was stamped): per phase that
// applies, p50, p99 and mean (ms); the requests at the latency's p50 and p99 with each phase's share;
// how much is left unexplained (the median and p99 over requests of |latency − sum of phases|); counts.
export function phaseFigures (tally) {
  if (!tally || tally.count === 0) {
    if (!tally || !(tally.missing || tally.ignored)) return null
    const { missing, ignored } = tally
    return { count: 0, missing, ignored, clamped: 0, phases: {}, at: null, unexplained: null }
  }
  const phases = {}
  PHASES.forEach((name, i) => {
    const n = tally.present[i]
    if (!n) return
    phases[name] = {
      count: n,
      p50: ms(valueOf(bucketAt(tally.buckets[i], n, 50))),
      p99: ms(valueOf(bucketAt(tally.buckets[i], n, 99))),
      mean: ms(tally.sums[i] / n)
    }
  })
  return {
    count: tally.count,
    missing: tally.missing,
    ignored: tally.ignored,
    clamped: tally.clamped,
    clockShiftMs: ms(tally.shiftMs), // the server's clock taken as ahead of the lab's by this much (clockShift)
    phases,
    at: { p50: requestAt(tally, 50), p99: requestAt(tally, 99) },
    unexplained: {
      medianMs: ms(valueOf(bucketAt(tally.residue, tally.count, 50))),
      p99Ms: ms(valueOf(bucketAt(tally.residue, tally.count, 99))),
      maxMs: ms(upperEdge(tally.residue.length - 1)) // the top of the highest bucket any request fell in
    },
    resolutionMs: STAMP_RESOLUTION_MS
  }
}

// Whether the shares at percentile `at` ('p50', 'p99') of phaseFigures `f` are in doubt (result/rules.js
// PHASE_TRUST): null when they stand, else { code, … }: 'unexplained' when the median unexplained time
// exceeds its share of that request's latency (stamps that do not fit the request: its shares sum only
// what the clocks placed), 'clamped' when most stamps were moved into their requests.
export function phaseDoubt (f, at) {
  const req = f?.at?.[at]
  if (!req || !(f.count > 0)) return null
  const unexplainedMs = f.unexplained?.medianMs
  if (unexplainedMs > PHASE_TRUST.unexplainedShare * req.latencyMs) {
    return { code: 'unexplained', unexplainedMs, latencyMs: req.latencyMs }
  }
  if (f.clamped > PHASE_TRUST.clampedShare * f.count) return { code: 'clamped', clamped: f.clamped, count: f.count }
  return null
}
