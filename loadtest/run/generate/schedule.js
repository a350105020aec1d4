// Arrival schedules for the open loop: when request i is due, in ms after the round's start.
// `constant`: i / rate, as wrk2 and k6's constant-arrival-rate. `poisson`: exponential gaps of mean
// 1 / rate from a seeded generator, so a schedule can be repeated exactly.

import { ARRIVALS, DEFAULTS } from '../../settings.js'
import { prng } from '../../result/stats.js'

export { prng } // the schedule's generator: result/stats.js, where the paired ratios draw from it too

// A slice of a plan: the requests i with i ≡ offset (mod stride). The whole plan is { offset 0, stride 1 };
// generator g of G in shard I of N takes offset (I − 1) + N·g, stride N·G, so the slices of every shard's
// threads partition the plan exactly (`--shard`, `--generators`).
export function sliceOf ({ shard = null, generator = null } = {}) {
  const s = shard ?? { index: 1, count: 1 }
  const g = generator ?? { index: 0, count: 1 }
  return { offset: s.index - 1 + s.count * g.index, stride: s.count * g.count }
}

// The due time of request i after `due` (the time of i − 1): i / rate, or an exponential gap.
function dueAfter (i, due, gapMs, random, arrival) {
  if (arrival === 'constant') return i * gapMs
  return i === 0 ? 0 : due + -Math.log(1 - random()) * gapMs
}

// A schedule: next() → the due time (ms from the start) of the next request, or null once the round's
// amount or duration is used up. Never skips or thins: every due time of the plan's `slice` is handed out
// in order (a Poisson slice draws every gap of the plan, so its due times are the plan's own).
// `phases` ([{ rate, durationMs }], constant arrivals) is a rate profile instead of one rate (a burst);
// `until(due)` ends the schedule early when it returns true (a burst's recovery seen, a sweep's step decided).
export function createSchedule ({
  rate, arrival = DEFAULTS.arrival, seed = DEFAULTS.seed, amount = null, durationMs = null, slice = null,
  phases = null, until = null
}) {
  if (phases) return profileSchedule({ phases, slice, until })
  if (!(rate > 0)) throw new RangeError(`rate: expected a positive number of requests per second, got ${rate}`)
  if (!ARRIVALS.includes(arrival)) {
    throw new RangeError(`arrival: expected one of ${ARRIVALS.join(', ')}, ` +
    `got ${arrival}`)
  }
  const { offset, stride } = slice ?? { offset: 0, stride: 1 }
  const gapMs = 1000 / rate
  const random = prng(seed)
  let i = 0 // the plan's next request index
  let due = 0
  let issued = 0
  return {
    rate,
    arrival,
    seed: arrival === 'poisson' ? seed : null,
    next () {
      for (;;) {
        if (amount !== null && i >= amount) return null
        const next = dueAfter(i, due, gapMs, random, arrival)
        if ((durationMs !== null && next >= durationMs) || until?.(next)) return null
        due = next
        i++
        if ((i - 1) % stride === offset) break
      }
      issued++
      return due
    },
    // How many due times were handed out so far.
    get issued () {
      return issued
    },
    // The plan's index of the last due time handed out (a mix's class is chosen by it: classes.js).
    get index () {
      return i - 1
    }
  }
}

// A constant-arrival schedule through a rate profile: phase k's requests are due at its own rate from
// the end of the phase before; `until(due)` may end it early.
function profileSchedule ({ phases, slice, until }) {
  for (const p of phases) {
    if (!(p.rate > 0) || !(p.durationMs > 0)) {
      throw new RangeError('phases: expected positive rates and ' +
      `durations, got ${JSON.stringify(p)}`)
    }
  }
  const { offset, stride } = slice ?? { offset: 0, stride: 1 }
  let k = 0 // the phase
  let start = 0 // its start (ms)
  let j = 0 // the next request within it
  let i = 0 // the plan's next request index
  let issued = 0
  const due = () => {
    while (k < phases.length && j * (1000 / phases[k].rate) >= phases[k].durationMs) {
      start += phases[k].durationMs
      k++
      j = 0
    }
    return k < phases.length ? start + j * (1000 / phases[k].rate) : null
  }
  return {
    rate: phases[0].rate,
    arrival: 'constant',
    seed: null,
    phases,
    next () {
      for (;;) {
        const t = due()
        if (t === null || until?.(t)) return null
        j++
        i++
        if ((i - 1) % stride === offset) {
          issued++
          return t
        }
      }
    },
    get issued () {
      return issued
    },
    get index () {
      return i - 1
    }
  }
}
