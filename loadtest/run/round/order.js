// The order of a lab run's rounds (--runs N): round k runs every entry once, in a fresh random
// order drawn from --seed, so that a drift of the machine falls on every server alike (RMIT, Abedi
// & Brecht). A run of one round keeps the plan's order. An entry that stands on another's result in
// this run (a shedding variant at its base's capacity, the mixed round at the lowest one) runs
// once, in the last round, after the others, in the plan's order.
import { prng } from '../../result/stats.js'

// Whether a plan entry stands on another entry's result in the same run.
export function standsOnOthers (entry) {
  return Boolean(entry.overload?.base || entry.mixed?.lowestOf)
}

// Each round's order of plan indexes: [[i, …] per round], the same for the same plan, runs and
// seed.
export function roundOrders (plan, runs, seed) {
  const random = prng(seed)
  const indexes = plan.map((_, i) => i)
  const own = indexes.filter((i) => !standsOnOthers(plan[i]))
  const after = indexes.filter((i) => standsOnOthers(plan[i]))
  return Array.from({ length: runs }, (_, k) => {
    const order = runs > 1 ? shuffled(own, random) : own
    return k === runs - 1 ? [...order, ...after] : order
  })
}

// A copy of `list` in a random order (Fisher–Yates, `random` uniform in [0, 1)).
function shuffled (list, random) {
  const out = list.slice()
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}
