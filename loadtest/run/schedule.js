// Arrival schedules for the open loop: when request i is due, in ms after the round's start.
// `constant`: i / rate, as wrk2 and k6's constant-arrival-rate. `poisson`: exponential gaps of mean
// 1 / rate from a seeded generator, so a schedule can be repeated exactly.

// The arrival processes --arrival accepts.
export const ARRIVALS = ['constant', 'poisson']

// A small seeded PRNG (mulberry32): uniform numbers in [0, 1), the same sequence for the same seed.
export function prng (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// A schedule: next() → the due time (ms from the start) of the next request, or null once the round's
// amount or duration is used up. Never skips or thins: every due time is handed out in order.
export function createSchedule ({ rate, arrival = 'constant', seed = 1, amount = null, durationMs = null }) {
  if (!(rate > 0)) throw new RangeError(`rate: expected a positive number of requests per second, got ${rate}`)
  if (!ARRIVALS.includes(arrival)) { throw new RangeError(`arrival: expected one of ${ARRIVALS.join(', ')}, got ${arrival}`) }
  const gapMs = 1000 / rate
  const random = prng(seed)
  let i = 0
  let due = 0
  return {
    rate,
    arrival,
    seed: arrival === 'poisson' ? seed : null,
    next () {
      if (amount !== null && i >= amount) return null
      if (arrival === 'constant') due = i * gapMs
      else if (i > 0) due += -Math.log(1 - random()) * gapMs
      if (durationMs !== null && due >= durationMs) return null
      i++
      return due
    },
    // How many due times were handed out so far.
    get issued () {
      return i
    }
  }
}
