// The decision a capacity report supports: which strategy (and --tune setting) to run, at what plan rate,
// the runner-up and what separates them, the target at which the answer would change, or a refusal with
// its reason. Pure: a function of the report's results (docs/decision.md states the rules). It returns data
// only: every rule, reason and bracket as figures and names; text/decision.js words them.
import { isNum, roundTo } from './stats.js'
import { parseKey, runName, settingParts } from './key.js'
import { verdictOf } from './trust.js'
import { goodputShareAt } from './overload.js'
import { serverCommand } from './command.js'
import { boundFields } from './capacity.js'
import { PAST, TIE, sloFor } from './rules.js'

// A result's capacity at each target, loosest last: capacity.targets, or (a report with one target)
// its one capacity. Each { sloMs, rps (null: cannot meet), bracket: { pass, fail }, bound, undecided? }.
export function targetsOf (result) {
  const cap = result?.capacity
  if (!cap?.capacity) return []
  if (Array.isArray(cap.targets) && cap.targets.length) return cap.targets.slice().sort((a, b) => a.sloMs - b.sloMs)
  const c = cap.capacity
  return [{ sloMs: c.sloMs ?? cap.sloMs, rps: c.rps, bracket: c.bracket, ...boundFields(c) }]
}

// A capacity that holds some rate (null and 0 do not).
const holdsSome = (t) => isNum(t?.rps) && t.rps > 0

// The interval a capacity lies in: [the passing rate, the failing rate above it) (no failure: open above).
function interval (t) {
  return { lo: t.bracket?.pass ?? t.rps, hi: isNum(t.bracket?.fail) ? t.bracket.fail : Infinity }
}

// Whether two capacities' brackets overlap: neither is proven above the other.
export function overlaps (a, b) {
  const x = interval(a)
  const y = interval(b)
  return x.lo < y.hi && y.lo < x.hi
}

// The candidates at one target: every usable result's capacity there, highest first.
function candidatesAt (results, sloMs) {
  const out = []
  for (const r of results) {
    if (r.kind !== 'http' || r.status === 'failed') continue
    const t = targetsOf(r).find((x) => x.sloMs === sloMs)
    if (holdsSome(t)) out.push({ result: r, target: t })
  }
  return out.sort((a, b) => b.target.rps - a.target.rps)
}

// Goodput share past capacity (TIE.goodputMultiple × C) of a candidate as it would be deployed: its probe's
// (deployedOf), else the overload experiment's result.overload; null where neither measured it.
function goodputPast (c) {
  const x = deployedOf(c)
  const m = TIE.goodputMultiple
  const share = x.past ? x.past.goodputShare[String(m)] : goodputShareAt(c.result, m)
  return isNum(share) ? share : null
}

// A candidate's configuration as it would be deployed: as swept, or its shedding setting where as swept
// collapses past capacity and that does not ({ candidate, probe, past }; probe null: not probed).
function deployedOf (c) {
  const configs = configsOf(c)
  const swept = configs.find((x) => !x.probe.variant) ?? { candidate: c, probe: null, past: null }
  if (!swept.past?.collapses) return swept
  return configs.find((x) => x.probe.variant && x.past && !x.past.collapses) ?? swept
}

// A strategy's place in TIE.simplicity (a server not named: after them all).
const simplicity = (c) => {
  const i = TIE.simplicity.indexOf(c.result.server)
  return i < 0 ? TIE.simplicity.length : i
}

// The tie-break's criteria in order (rule book TIE): each a candidate's figure (null: not measured; a criterion
// with a figure missing is passed over), whether it is within the margin of the best, and the figures it names.
const CRITERIA = [
  {
    by: 'goodput',
    figure: goodputPast,
    best: (xs) => Math.max(...xs),
    within: (x, best) => best - x <= TIE.goodputMargin,
    figures: (w, a) => ({ multiple: TIE.goodputMultiple, shares: [w, a] })
  },
  {
    by: 'peak-rss',
    figure: (c) => (isNum(c.result.outside?.peakRssBytes) ? c.result.outside.peakRssBytes : null),
    best: (xs) => Math.min(...xs),
    within: (x, best) => (x - best) / x <= TIE.rssMargin,
    figures: (w, a) => ({ bytes: [w, a] })
  },
  {
    by: 'simpler',
    figure: (c) => simplicity(c),
    best: (xs) => Math.min(...xs),
    within: (x, best) => x === best,
    figures: (w, a, cw, ca) => ({ servers: [cw.result.server, ca.result.server] })
  },
  {
    by: 'capacity',
    figure: (c) => c.target.rps,
    best: (xs) => Math.max(...xs),
    within: (x, best) => x === best,
    figures: (w, a) => ({ rps: [w, a] })
  }
]

// Break a tie between candidates (highest capacity first) by the rule book's order (TIE): each criterion keeps
// the candidates within its margin of the best, and the first that leaves one names it. { winner, alternative,
// by }: the alternative is the best of those the deciding criterion dropped (it stayed with the winner
// longest); `by` names the criterion and the two's figures: { by: 'goodput', multiple, shares }, { by:
// 'peak-rss', bytes }, { by: 'simpler', servers } or { by: 'capacity', rps }. Candidates equal on every
// criterion: the first, by 'capacity'.
function breakTie (tied) {
  let pool = tied
  for (const k of CRITERIA) {
    const figs = pool.map(k.figure)
    if (!figs.every(isNum)) continue
    const best = k.best(figs)
    const kept = pool.filter((c, i) => k.within(figs[i], best))
    if (kept.length === 1) {
      const winner = kept[0]
      const dropped = pool.map((c, i) => [c, figs[i]]).filter(([c]) => c !== winner)
      const ahead = (x, y) => (x[1] === y[1] ? 0 : k.best([x[1], y[1]]) === x[1] ? -1 : 1)
      const [alternative, fig] = dropped.sort(ahead)[0]
      return { winner, alternative, by: { by: k.by, ...k.figures(k.figure(winner), fig, winner, alternative) } }
    }
    pool = kept
  }
  const [winner, alternative] = pool
  return { winner, alternative, by: { by: 'capacity', rps: [winner.target.rps, alternative.target.rps] } }
}

// Whether two capacities tie (rule book TIE): their brackets overlap, or the lower is within TIE.capacityMargin
// under the higher.
export function capacitiesTie (a, b) {
  return a.rps <= b.rps ? near(a, b, TIE.capacityMargin) : near(b, a, TIE.capacityMargin)
}

// The ranking at one target: the top candidate, the candidates tied with it (capacitiesTie) and
// the alternative breakTie names beside it, and the rule that ranked them: { rule: 'highest-capacity' |
// 'brackets-apart' | 'tie-broken' (tieBreak: breakTie's figures) } (codes: text/decision.js ruleText says them).
function rankAt (results, sloMs) {
  const all = candidatesAt(results, sloMs)
  if (!all.length) return { all, top: null, tied: [], alternative: null, rule: { rule: 'highest-capacity' } }
  const tied = all.filter((c) => c === all[0] || capacitiesTie(c.target, all[0].target))
  if (tied.length === 1) return { all, top: all[0], tied, alternative: null, rule: { rule: 'brackets-apart' } }
  const { winner, alternative, by } = breakTie(tied)
  return { all, top: winner, tied, alternative, rule: { rule: 'tie-broken', tieBreak: by } }
}

// A capacity's bracket as data: { pass, fail } (fail null: open above).
function bracketOf (t) {
  return { pass: t.bracket?.pass ?? t.rps, fail: isNum(t.bracket?.fail) ? t.bracket.fail : null }
}

// Where the top strategy at each target changes as the target loosens: [{ fromMs, toMs, from, to, atMs,
// tie, brackets }], atMs where the two capacity lines cross (linear in the log of the target, as the chart
// draws it). `tie`: at the looser target the two capacities tie (capacitiesTie; `overlap`: their brackets
// overlap; `brackets`: [from's, to's] there), so neither leads: the new leader is named only where they do not.
export function rankingChanges (results) {
  const slos = [...new Set(results.flatMap((r) => targetsOf(r).map((t) => t.sloMs)))].sort((a, b) => a - b)
  const tops = slos.map((s) => ({ sloMs: s, top: candidatesAt(results, s)[0] ?? null }))
  const out = []
  for (let i = 1; i < tops.length; i++) {
    const a = tops[i - 1]
    const b = tops[i]
    if (!a.top || !b.top || a.top.result.key === b.top.result.key) continue
    const before = targetsOf(a.top.result).find((t) => t.sloMs === b.sloMs)
    const tie = holdsSome(before) && capacitiesTie(before, b.top.target)
    out.push({
      fromMs: a.sloMs,
      toMs: b.sloMs,
      from: a.top.result.key,
      to: b.top.result.key,
      atMs: crossing(a.top.result, b.top.result, a.sloMs, b.sloMs),
      tie,
      overlap: holdsSome(before) && overlaps(before, b.top.target), // a tie within the margin only: false
      brackets: holdsSome(before) ? [bracketOf(before), bracketOf(b.top.target)] : null
    })
  }
  return out
}

// The target between t1 and t2 at which x's and y's capacity lines cross (null: not measurable).
function crossing (x, y, t1, t2) {
  const at = (r, s) => targetsOf(r).find((t) => t.sloMs === s)?.rps ?? 0
  const d1 = at(x, t1) - at(y, t1)
  const d2 = at(x, t2) - at(y, t2)
  if (!(d1 > 0 && d2 < 0)) return null
  const f = d1 / (d1 - d2)
  return roundTo(Math.exp(Math.log(t1) + f * (Math.log(t2) - Math.log(t1))), 1)
}

// Whether a result's --runs sweeps disagree beyond their brackets: a rate one sweep held where another
// failed. { held, failed } of the widest disagreement, or null.
export function runsDisagree (r) {
  const runs = r.capacity?.runs
  if (!Array.isArray(runs) || runs.length < 2) return null
  let worst = null
  for (const a of runs) {
    for (const b of runs) {
      if (!isNum(a.rps) || !isNum(b.bracket?.fail) || a.rps < b.bracket.fail) continue
      if (!worst || a.rps / b.bracket.fail > worst.held / worst.failed) worst = { held: a.rps, failed: b.bracket.fail }
    }
  }
  return worst
}

// One candidate as the decision names it.
function named (c) {
  if (!c) return null
  const k = parseKey(c.result.key ?? '')
  return {
    key: c.result.key,
    server: runName(c.result),
    setting: settingParts(k.setting),
    capacityRps: c.target.rps,
    bracket: c.target.bracket,
    ...boundFields(c.target),
    spread: c.result.capacity?.spread ?? null
  }
}

// A probe's past capacity (run/round/past-capacity.js; `overload` is the overload experiment's block):
// { goodputShare: { '1.5': x, '2': y }, shedShare (at the highest multiple), recoverySec (null: not
// seen), watchedSec, collapsedAt (the multiple where the probe stopped, collapsed; null), collapses, keeps,
// why (what collapsed: [{ goodputShare, multiple } | { recoverySec }
// | { recoverySec: null, watchedSec }]) }; null when it measured nothing.
export function pastOf (probe) {
  const o = probe?.overload
  if (!o || o.refused || !o.steps?.length) return null
  const goodputShare = Object.fromEntries(o.steps.map((s) => [String(s.multiple), s.goodputShare ?? null]))
  const rec = o.recovery ?? null
  const recoverySec = rec && !rec.metastable && isNum(rec.ms) ? roundTo(rec.ms / 1000, 1) : null
  const watched = isNum(rec?.observedMs) && isNum(rec?.burstEndMs)
  const watchedSec = watched ? roundTo((rec.observedMs - rec.burstEndMs) / 1000, 1) : null
  const atCollapse = goodputShare[String(PAST.collapseMultiple)] ?? null
  const why = []
  const multiple = PAST.collapseMultiple
  if (goodputCollapses(multiple, atCollapse)) why.push({ goodputShare: atCollapse, multiple })
  if (rec && (recoverySec === null || recoverySec > PAST.recoverySec)) {
    why.push(recoverySec === null ? { recoverySec: null, watchedSec } : { recoverySec })
  }
  const collapses = why.length > 0
  const shares = Object.values(goodputShare)
  const keeps = !collapses && Boolean(rec) && shares.every((g) => isNum(g) && g >= PAST.keepShare)
  const collapsedAt = o.collapsedAt ?? null // the probe stopped there: no burst, no recovery watched
  return {
    goodputShare,
    shedShare: o.steps.at(-1).shedShare ?? null,
    recoverySec,
    watchedSec,
    collapsedAt,
    collapses,
    keeps,
    why
  }
}

// Does a goodput share of C at `multiple` × C show a collapse (the rule book's PAST)? The decision's rule, and where a
// past-capacity probe stops (run/round/overload.js).
export function goodputCollapses (multiple, share) {
  return multiple === PAST.collapseMultiple && isNum(share) && share < PAST.collapseShare
}

// The least goodput share a configuration kept over the multiples probed.
const keptShare = (x) => Math.min(...Object.values(x.past.goodputShare).map((g) => (isNum(g) ? g : 0)))

// The candidates close to the top one: its bracket overlaps theirs, or their capacity is within PAST.closeShare.
function closeTo (rank) {
  return rank.all.filter((c) => c === rank.top || near(c.target, rank.top.target, PAST.closeShare))
}

// Whether capacity t is near capacity top: their brackets overlap, or t is within `share` below top.
function near (t, top, share) {
  return overlaps(t, top) || t.rps >= (1 - share) * top.rps
}

// The results the past-capacity probe runs for, at the decision's target (decisionTarget): the winner and
// the candidates close to it, highest capacity first; [] when none holds the target.
export function closeCandidates (report) {
  const results = capacityResults(report)
  const rank = rankAt(results, decisionTarget(results))
  return rank.top ? closeTo(rank).map((c) => c.result) : []
}

// A candidate's probed configurations: [{ candidate, probe, past }], as swept first.
function configsOf (c) {
  return (c.result.pastCapacity ?? []).map((probe) => ({ candidate: c, probe, past: pastOf(probe) }))
    .sort((a, b) => Number(Boolean(a.probe.variant)) - Number(Boolean(b.probe.variant)))
}

// A configuration as the decision names it: { server, setting, shedding (its shedding variant's flags,
// null: as swept), label (the probe's label as swept, null: not probed) } (text/decision.js configName).
function configOf (x) {
  const k = parseKey(x.candidate.result.key ?? '')
  return {
    server: runName(x.candidate.result),
    setting: settingParts(k.setting),
    shedding: x.probe?.variant ? x.probe.shedding : null,
    label: x.probe && !x.probe.variant ? x.probe.label : null
  }
}

// Past capacity weighed between the close candidates (the collapse rule above): the configuration chosen,
// the rule's figures (`rule`, null: the winner was not probed) and whether it settled a tie between
// strategies. rule: { config, collapses, why, kept (least goodput share kept), outcome, ... } with outcome
// 'keeps' (lost: the tied strategies that collapse), 'survivor' (survivor: { config, same (the winner's own
// shedding setting), kept, rps }), 'all-collapse' (shed: { config, why } of the setting that would shed,
// or null) or 'none-keeps' (within: PAST.survivorWithin, keepShare: PAST.keepShare).
function weighPast (rank) {
  const top = rank.top
  const all = closeTo(rank).flatMap(configsOf)
  const unprobed = { candidate: top, probe: null, past: null }
  const asSwept = all.find((x) => x.candidate === top && !x.probe.variant) ?? unprobed
  if (!asSwept.past) return { chosen: asSwept, rule: null, tieBroken: false }
  const own = (x) => Number(x.candidate === top) // the winner's own shedding setting first
  const survivors = all
    .filter((x) => x.past?.keeps && near(x.candidate.target, top.target, PAST.survivorWithin))
    .sort((a, b) => own(b) - own(a) || b.candidate.target.rps - a.candidate.target.rps || keptShare(b) - keptShare(a))
  // strategies tied on capacity are told apart when the configurations that keep are all of one of them
  const strategies = new Set(rank.tied.map((c) => runName(c.result)))
  const tiedKeepers = survivors.filter((x) => rank.tied.includes(x.candidate))
  const keepers = new Set(tiedKeepers.map((x) => runName(x.candidate.result)))
  const tieBroken = strategies.size > 1 && keepers.size === 1
  const { collapses, why } = asSwept.past
  const head = { config: configOf(asSwept), collapses, why, kept: keptShare(asSwept) }
  if (!asSwept.past.collapses && (!tieBroken || keepers.has(runName(top.result)))) {
    const lost = tieBroken ? [...strategies].filter((n) => !keepers.has(n)) : []
    return { chosen: asSwept, rule: { ...head, outcome: 'keeps', lost }, tieBroken }
  }
  const s = survivors[0]
  if (s) {
    const survivor = { config: configOf(s), same: s.candidate === top, kept: keptShare(s), rps: s.candidate.target.rps }
    return { chosen: s, rule: { ...head, outcome: 'survivor', survivor }, tieBroken }
  }
  const measured = all.filter((x) => x.past)
  if (measured.every((x) => x.past.collapses)) {
    const shed = measured.find((x) => x.candidate === top && x.probe.variant) ?? measured.find((x) => x.probe.variant)
    const would = shed ? { config: configOf(shed), why: shed.past.why } : null
    return { chosen: asSwept, rule: { ...head, outcome: 'all-collapse', shed: would }, tieBroken: false }
  }
  return {
    chosen: asSwept,
    rule: { ...head, outcome: 'none-keeps', within: PAST.survivorWithin, keepShare: PAST.keepShare },
    tieBroken: false
  }
}

// The recommended configuration's past capacity as the JSON carries it (null: not probed).
function pastCapacityOf (x) {
  if (!x.past) return null
  const { goodputShare, shedShare, recoverySec, collapses } = x.past
  return { goodputShare, shedShare, recoverySec, collapses }
}

// Why the decision refuses (null: it recommends): the evidence under the chosen candidate is disturbed (its
// sweep not trusted; reasons: the verdict's) or its --runs sweeps disagree ({ held, failed }). A tie on capacity
// is no refusal: rankAt and weighPast name one.
function refusalOf (top) {
  const verdict = verdictOf(top.result) // the one verdict every output shows
  if (!verdict.trusted) return { reason: 'disturbed', keys: [top.result.key], reasons: verdict.reasons }
  const dis = runsDisagree(top.result)
  if (dis) return { reason: 'runs-disagree', keys: [top.result.key], held: dis.held, failed: dis.failed }
  return null
}

// What separates the winner from the runner-up: { apart (they do not tie: capacitiesTie), overlap (their
// brackets overlap), ratio (of capacities) }; where they tie, the rule that decided between them (decidedBy).
function separation (top, runnerUp) {
  if (!runnerUp) return null
  const [a, b] = [top.target, runnerUp.target]
  return { apart: !capacitiesTie(a, b), overlap: overlaps(a, b), ratio: roundTo(a.rps / b.rps, 2) }
}

// What happens past the winner's capacity: goodput at each multiple of it (issue 27's overload figures,
// when the report has them) and the sweep's own step at 1.2 × capacity. null: nothing measured.
function pastCapacity (r) {
  const steps = (r.overload?.steps ?? []).filter((s) => isNum(s.multiple))
  const over = r.capacity?.capacity?.over ?? null
  if (!steps.length && !over) return null
  return {
    goodput: steps.map((s) => ({ multiple: s.multiple, goodputShare: s.goodputShare ?? null })),
    over: over && {
      rate: roundTo(over.rate, 1),
      p99: over.p99 ?? null,
      timeouts: over.requests?.timeouts ?? null,
      holds: Boolean(over.pass)
    }
  }
}

// The machine a decision holds for: host, CPU and cores.
function machineOf (m) {
  if (!m) return null
  const cores = m.availableParallelism ?? m.cores ?? null
  return { hostname: m.hostname ?? null, cpuModel: m.cpuModel ?? null, cores }
}

// The results a decision weighs: HTTP results with a capacity.
function capacityResults (report) {
  return (report?.results ?? []).filter((r) => r?.kind === 'http' && r.capacity?.capacity)
}

// The target a decision is made at by default: the first target of the first result with one.
function decisionTarget (results) {
  return targetsOf(results[0])[0]?.sloMs ?? null
}

// Whose target the decision stands on: the user's (--slo), or the lab's default from this machine's
// service time (the sweep's sloRule); { sloMs, own, rule, serviceMs }.
function targetOf (results, sloMs) {
  const c = results[0]?.capacity ?? {}
  // the sweep says whose (sloOwn); a report from before it: a target other than the default its service time gives
  const other = isNum(c.serviceMs) && isNum(c.sloMs) && c.sloMs !== sloFor(c.serviceMs).sloMs
  const own = (c.sloOwn ?? other) || (isNum(c.sloMs) && c.sloMs !== sloMs)
  return { sloMs, own, rule: c.sloRule ?? null, serviceMs: c.serviceMs ?? null, percentile: c.percentile ?? null }
}

// The candidate tied on capacity with the chosen one that the block offers beside it: the tie-break's
// alternative, or its winner where past capacity chose another of the tied; null where the chosen ties with none.
function alternativeOf (rank, top) {
  if (rank.tied.length < 2 || !rank.tied.includes(top)) return null
  return top === rank.top ? rank.alternative : rank.top
}

// A configuration as the decision offers it to deploy: its name (configOf), key, variant, flags and command
// (result/command.js serverCommand, as the winner's).
function deployable (x, { form, cwd }) {
  const r = x.candidate.result
  const flags = [...(r.args ?? []), ...(x.probe?.flags ?? [])]
  const variant = x.probe?.variant ?? null
  return { ...configOf(x), key: r.key, variant, flags, command: serverCommand({ server: r.server, flags, form, cwd }) }
}

// What the search for the decision cost: its sweeps, their requests and seconds (result/build.js costOf;
// sec null where a sweep was not timed: a report of an older lab).
function searchOf (results) {
  const costs = results.map((r) => r.capacity?.cost ?? null)
  return {
    sweeps: results.length,
    requests: costs.every(Boolean) ? costs.reduce((a, c) => a + c.requests, 0) : null,
    sec: costs.every((c) => isNum(c?.sec)) ? roundTo(costs.reduce((a, c) => a + c.sec, 0), 1) : null
  }
}

// The decision of a capacity report (null when no result has a capacity). `sloMs`: the target it is
// made at (default: the first target of the first result with one); `headroom`: the plan rate's share;
// `form`/`cwd`: how its command is written (result/command.js serverCommand).
export function decide (report, { sloMs = null, headroom = PAST.headroom, form = 'node', cwd = null } = {}) {
  const results = capacityResults(report)
  if (!results.length) return null
  const target = sloMs ?? decisionTarget(results)
  const rank = rankAt(results, target)
  const context = {
    sloMs: target,
    target: targetOf(results, target),
    machine: machineOf(report.machine),
    runtime: report.machine?.node ?? null,
    changes: rankingChanges(results),
    // the results with no capacity at the target: { key, bound, undecided? } ('cannot-meet': the floor is above it;
    // 'no-target': the result was not judged at this target)
    unmet: results.flatMap((r) => {
      const t = targetsOf(r).find((x) => x.sloMs === target)
      return holdsSome(t) ? [] : [{ key: r.key, ...(t ? boundFields(t) : { bound: 'no-target' }) }]
    }),
    headroom,
    search: searchOf(results)
  }
  if (!rank.top) {
    const none = { key: null, server: null, setting: null, capacityRps: null, bracket: null, planRps: null }
    return {
      ...context,
      ...none,
      variant: null,
      flags: null,
      command: null,
      runnerUp: null,
      decidedBy: null,
      past: null,
      pastCapacity: null,
      pastRule: null,
      confirm: null,
      refused: { reason: 'none-meets', keys: [], sloMs: target }
    }
  }
  const weighed = weighPast(rank)
  const { chosen } = weighed
  const top = chosen.candidate
  const win = named(top)
  // past capacity decided when it changed the candidate, or chose a shedding setting where no tie was broken
  const shed = Boolean(chosen.probe?.variant) && rank.rule.rule !== 'tie-broken'
  const byPast = weighed.tieBroken || top !== rank.top || shed
  const rule = byPast ? { rule: 'past-capacity' } : rank.rule
  const other = alternativeOf(rank, top)
  const next = other ?? rank.all.find((c) => c !== top) ?? null
  const { variant, flags, command } = deployable(chosen, { form, cwd })
  return {
    ...context,
    ...win,
    variant,
    flags,
    command,
    planRps: roundTo(win.capacityRps * headroom, 1),
    decidedBy: rule,
    alternative: other ? deployable(deployedOf(other), { form, cwd }) : null,
    runnerUp: next ? { ...named(next), separation: separation(top, next) } : null,
    past: pastCapacity(top.result),
    pastCapacity: pastCapacityOf(chosen),
    pastRule: weighed.rule,
    refused: refusalOf(top),
    confirm: null
  }
}
