// The ruler's cost (loadtest/run/ruler/): the readings a run pays for (two: before its first server and
// after its last), each measured as the lab makes it, its child's start included, one after another.
import { COST_BUDGET_SEC, readRuler } from '../loadtest/run/ruler/index.js'
import { summary } from './stats.js'

// `readings` readings: { readings, perReadingSec (summary), perRunSec (two readings: the mean and the most),
// budgetSec, withinBudget, effectiveCores (the last reading's) }.
export async function runRuler ({ readings }, { signal, progress }) {
  const sec = []
  let last = null
  for (let i = 0; i < readings; i++) {
    progress(`ruler: reading ${i + 1}/${readings}`)
    last = await readRuler({ signal })
    sec.push(last.durationMs / 1000)
  }
  const perReadingSec = summary(sec)
  const perRunSec = { mean: 2 * perReadingSec.mean, max: 2 * perReadingSec.max }
  return {
    readings,
    perReadingSec,
    perRunSec,
    budgetSec: COST_BUDGET_SEC,
    withinBudget: perRunSec.mean <= COST_BUDGET_SEC,
    effectiveCores: last.cores.effective.value
  }
}
