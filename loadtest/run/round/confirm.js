// --confirm: run the decision's configuration at its plan rate for the rule book's CONFIRM round and say
// whether it held the target with no backlog growth (Nighthawk's "testing stage" after its search).
import { connectionsAt } from './load.js'
import { CONFIRM, SAMPLE } from '../../result/rules.js'
import { runEntry } from './runner.js'
import { growingFor, judgeStep } from '../../result/capacity.js'
import { backlogText, reasonText } from '../../text/reasons.js'
import { roundFigures } from '../../result/figures.js'
import { roundTo } from '../../result/stats.js'
import { errorsOf } from '../../result/requests.js'

// Whether a confirming round held (the rule a sweep's step is judged by, result/capacity.js judgeStep) and
// why not: its p99 shown above the target, failed requests, a growing backlog, or too few requests to show
// p99 within it (undecided: a longer run, or a higher plan rate, gathers more).
export function confirmVerdict (fig, sloMs) {
  const j = judgeStep(fig, sloMs)
  const why = []
  const q = fig.requests
  const failed = errorsOf(q) + q.unanswered
  if (failed > 0) why.push(`${failed} of ${q.sent} requests failed or unanswered`)
  const growing = growingFor(fig, sloMs)
  if (growing) why.push(backlogText(fig.backlog, fig.open?.rate))
  if (j.call === 'fail' && failed === 0 && !growing) {
    why.push(`p99 ${fig.latency.p99} ms over p99 ≤ ${sloMs} ms ` +
    `(${j.over} of ${j.n} over)`)
  }
  if (j.call === 'undecided') {
    why.push(`undecided: ${j.over} of ${j.n} requests over the target, too few to show ` +
    'p99 within it')
  }
  return { held: j.call === 'pass', why }
}

// Run the confirming round for `decision` (its highest capacity: the winner, or with a refusal the one it
// does not recommend) (the winner's plan entry and load found by its key among
// `plan`/`loads`/`results`, in plan order). Never throws for the server's fault: a failure is said.
export async function confirmWinner (decision, { plan, loads, results, quick, signal, progress, calibration }) {
  // long enough for the requests p99 needs (SAMPLE.minRequests), never past the full length
  const need = decision.planRps > 0 ? Math.ceil(SAMPLE.minRequests / decision.planRps) : 0
  const durationSec = Math.min(CONFIRM.sec, Math.max(quick ? CONFIRM.quickSec : CONFIRM.sec, need))
  const { key, command = null, planRps: rate, sloMs } = decision
  const base = { key, command, rate, sloMs, durationSec }
  // A refusal still has a highest capacity: it is confirmed all the same (the block says it is no advice).
  if (!decision.key || !(decision.planRps > 0)) {
    return { ...base, skipped: `no capacity at p99 ≤ ${decision.sloMs} ms` }
  }
  const i = results.findIndex((r) => r.key === decision.key)
  if (i < 0 || !plan[i]) return { ...base, skipped: 'the winner\'s plan entry was not found' }
  // the exact configuration the decision's command starts: its flags (the setting, the shedding variant's)
  const { sweep, argsFor, ...swept } = plan[i]
  const entry = { ...swept, variant: decision.variant ?? null, args: decision.flags ?? swept.args }
  const load = {
    ...loads[i],
    rate,
    connections: connectionsAt(loads[i], rate),
    durationSec,
    amount: null
  }
  progress?.(`confirming ${command ?? key} at ${rate} req/s for ${durationSec} s`)
  const record = await runEntry({ ...entry, rate, durationSec }, load, { signal, progress, calibration })
  const round = record.rounds[0]
  if (record.failure || !round) return { ...base, skipped: record.failure?.reason ?? 'interrupted before the round' }
  const fig = roundFigures(round)
  const verdict = confirmVerdict(fig, decision.sloMs)
  return {
    ...base,
    ...verdict,
    p99: fig.latency.p99,
    rps: roundTo(fig.rps, 1),
    requests: fig.requests,
    // the verdict's own backlog rule (a slow growth against the target too, result/capacity.js growingFor)
    backlogGrowing: growingFor(fig, decision.sloMs),
    backlog: fig.backlog,
    disturbed: Boolean(fig.disturbed),
    disturbedBy: (fig.disturbedBy ?? []).map(reasonText)
  }
}
