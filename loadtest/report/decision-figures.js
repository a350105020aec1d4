// The figures behind the decision, as rows every output draws from (the page's charts, decision-charts.js;
// the Markdown's past-capacity table): the capacity of each strategy at the decision's target with its
// bracket, and the goodput past capacity of each configuration the decision weighed. Pure: results in.
import { isNum } from '../result/stats.js'
import { runName } from '../result/key.js'
import { pastOf, targetsOf } from '../result/decision.js'
import { bracketText } from '../text/decision.js'
import { fmtRounded } from '../text/format.js'
import { boundText } from '../text/reasons.js'

const r1 = (x) => fmtRounded(x, 1)

// The multiples of C the goodput chart has a place for: C itself (the sweep's step), then the probe's.
export const MULTIPLES = [1, 1.5, 2]

// Whether a result is the decision's choice (a refusal chose none).
const isChosen = (r, d) => Boolean(d && !d.refused) && r.key === d.key

// A strategy's name on the charts: the server, with its --tune setting (`queued-threads[threads=2]`).
function strategyName (r) {
  const setting = /\[([^\]]*)\]/.exec(String(r.key ?? '').split('@')[0])?.[1]
  return setting ? `${runName(r)}[${setting}]` : runName(r)
}

// The capacity of each swept result at the decision's target (else its first): rows { name, rps (0 when it
// holds none), pass, fail (null: open above), status ('capacity' | 'at-least' | 'none'), chosen, label }
// in the order of capacity, highest first.
export function capacityBarRows (results, decision = null) {
  const rows = []
  for (const r of results) {
    const all = targetsOf(r)
    if (!all.length) continue
    const t = all.find((x) => x.sloMs === decision?.sloMs) ?? all[0]
    const holds = isNum(t.rps) && t.rps > 0
    const fail = isNum(t.bracket?.fail) ? t.bracket.fail : null
    const status = !holds ? 'none' : fail === null || t.bound === 'at-least' ? 'at-least' : 'capacity'
    const label = !holds
      ? (t.bound ? boundText(t) : 'no capacity')
      : `${status === 'at-least' ? '≥ ' : ''}${r1(t.rps)} (${bracketText(t)})`
    const pass = holds ? (t.bracket?.pass ?? t.rps) : null
    const chosen = isChosen(r, decision)
    rows.push({ name: strategyName(r), rps: holds ? t.rps : 0, pass, fail: holds ? fail : null, status, chosen, label })
  }
  return rows.sort((a, b) => b.rps - a.rps)
}

// The share of C a sweep's step at the capacity kept as goodput (2xx answered within the target from
// its due time, the probe's measure): the steps that ran at C pooled; null when none did.
export function sweepGoodputShare (r) {
  const c = r.capacity?.capacity
  if (!isNum(c?.rps) || !(c.rps > 0)) return null
  const atC = (s) => isNum(s.rate) && Math.abs(s.rate - c.rps) < 1e-6 * c.rps && s.requests
  const at = (r.capacity.steps ?? []).filter(atC)
  const sent = at.reduce((n, s) => n + (s.requests.sent ?? 0), 0)
  if (!(sent > 0)) return null
  const good = at.reduce((n, s) => n + Math.max(0, (s.requests.ok ?? 0) - (s.over ?? 0)), 0)
  return Math.min(1, good / sent)
}

// One probed configuration's rows and its line of the table: { name, config ('as swept' | 'shedding
// setting'), setting (its words), chosen, points [{ multiple, goodput (null: not measured), from }], past }.
function configRows (r, probe, decision) {
  const shedding = Boolean(probe.variant)
  const steps = probe.overload?.steps ?? []
  const points = MULTIPLES.map((m) => {
    if (m === 1) {
      return { multiple: m, goodput: shedding ? null : sweepGoodputShare(r), from: shedding ? null : 'sweep' }
    }
    const g = steps.find((s) => s.multiple === m)?.goodputShare
    return { multiple: m, goodput: isNum(g) ? g : null, from: isNum(g) ? 'probe' : null }
  })
  return {
    name: strategyName(r),
    config: shedding ? 'shedding setting' : 'as swept',
    setting: shedding ? probe.shedding : probe.label,
    chosen: isChosen(r, decision) && (decision.variant ?? null) === (probe.variant ?? null),
    points,
    past: pastOf(probe),
    failure: probe.failure ?? (probe.overload?.refused ? String(probe.overload.refused) : null)
  }
}

// The configurations the decision weighed past capacity (each result's `pastCapacity`, as swept first).
export function pastConfigs (results, decision = null) {
  const rps = (r) => (r.key === decision?.key ? Infinity : (r.capacity?.capacity?.rps ?? 0))
  return results.filter((r) => Array.isArray(r.pastCapacity) && r.pastCapacity.length)
    .sort((a, b) => rps(b) - rps(a))
    .flatMap((r) => r.pastCapacity.slice().sort((a, b) => Number(Boolean(a.variant)) - Number(Boolean(b.variant)))
      .map((p) => configRows(r, p, decision)))
}
