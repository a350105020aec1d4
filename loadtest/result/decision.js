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
import { sloFor } from './rules.js'

// The plan rate: this share of the capacity (Netflix and common practice plan at 75–80 % of the knee).
export const HEADROOM = 0.8
// A tie between settings of one strategy is broken by goodput at this multiple of capacity (when the
// overload figures exist) when the shares differ by more than GOODPUT_MARGIN, else by peak RSS when one
// is smaller by more than RSS_MARGIN of the larger.
const TIE_MULTIPLE = 2
const GOODPUT_MARGIN = 0.1
const RSS_MARGIN = 0.1
// Past capacity (the probe after the sweeps, run/round/past-capacity.js, at 1.5 and 2 × C and a burst):
// a candidate is close to the winner when its bracket overlaps the winner's or its capacity is within
// CLOSE_SHARE of it; every close candidate is probed as swept and with its shedding setting. A
// configuration collapses when its goodput at COLLAPSE.multiple × C is below COLLAPSE.goodputShare of C,
// or its recovery after the burst takes longer than COLLAPSE.recoverySec (or is not seen); it keeps when
// it does not collapse and its goodput is at least KEEP_SHARE of C at every multiple probed. A collapsing
// winner loses to a configuration that keeps and whose capacity lies in the winner's bracket or within
// SURVIVOR_WITHIN of it (docs/decision.md "Past capacity").
export const CLOSE_SHARE = 0.15
export const COLLAPSE = { multiple: 1.5, goodputShare: 0.5, recoverySec: 10 }
export const KEEP_SHARE = 0.8
export const SURVIVOR_WITHIN = 0.1

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

// Goodput share at TIE_MULTIPLE × capacity (the overload experiment's result.overload), or null.
function goodputAt2x (r) {
  const share = goodputShareAt(r, TIE_MULTIPLE)
  return isNum(share) ? share : null
}

// Break a tie between candidates by goodput at 2 × capacity, then by peak RSS: { winner, by } or null,
// `by` the figures that broke it: { by: 'goodput', multiple, shares: [winner's, next] } or
// { by: 'peak-rss', bytes: [winner's, next] }.
function breakTie (tied) {
  const good = tied.map((c) => goodputAt2x(c.result))
  if (good.every(isNum)) {
    const order = tied.map((c, i) => [c, good[i]]).sort((a, b) => b[1] - a[1])
    if (order[0][1] - order[1][1] > GOODPUT_MARGIN) {
      return { winner: order[0][0], by: { by: 'goodput', multiple: TIE_MULTIPLE, shares: [order[0][1], order[1][1]] } }
    }
  }
  const rss = tied.map((c) => c.result.outside?.peakRssBytes ?? null)
  if (rss.every(isNum)) {
    const order = tied.map((c, i) => [c, rss[i]]).sort((a, b) => a[1] - b[1])
    if ((order[1][1] - order[0][1]) / order[1][1] > RSS_MARGIN) {
      return { winner: order[0][0], by: { by: 'peak-rss', bytes: [order[0][1], order[1][1]] } }
    }
  }
  return null
}

// The ranking at one target: the top candidate, the candidates tied with it, and the rule that ranked them:
// { rule: 'highest-capacity' | 'brackets-apart' | 'tie-broken' (tieBreak: breakTie's figures) |
// 'tie-not-broken' | 'tie' } (codes: text/decision.js ruleText says them). Settings of one strategy that
// tie are told apart by breakTie; strategies that tie are a refusal.
function rankAt (results, sloMs) {
  const all = candidatesAt(results, sloMs)
  if (!all.length) return { all, top: null, tied: [], rule: { rule: 'highest-capacity' } }
  const tied = all.filter((c) => c === all[0] || overlaps(c.target, all[0].target))
  if (tied.length === 1) return { all, top: all[0], tied, rule: { rule: 'brackets-apart' } }
  const oneServer = new Set(tied.map((c) => runName(c.result))).size === 1
  const broken = breakTie(tied)
  if (oneServer && broken) return { all, top: broken.winner, tied, rule: { rule: 'tie-broken', tieBreak: broken.by } }
  return { all, top: all[0], tied, rule: { rule: oneServer ? 'tie-not-broken' : 'tie' }, lean: broken }
}

// A capacity's bracket as data: { pass, fail } (fail null: open above).
function bracketOf (t) {
  return { pass: t.bracket?.pass ?? t.rps, fail: isNum(t.bracket?.fail) ? t.bracket.fail : null }
}

// Where the top strategy at each target changes as the target loosens: [{ fromMs, toMs, from, to, atMs,
// tie, brackets }], atMs where the two capacity lines cross (linear in the log of the target, as the chart
// draws it). `tie`: at the looser target the two brackets overlap (`brackets`: [from's, to's] there), so
// neither leads: the new leader is named only where the brackets are apart.
export function rankingChanges (results) {
  const slos = [...new Set(results.flatMap((r) => targetsOf(r).map((t) => t.sloMs)))].sort((a, b) => a - b)
  const tops = slos.map((s) => ({ sloMs: s, top: candidatesAt(results, s)[0] ?? null }))
  const out = []
  for (let i = 1; i < tops.length; i++) {
    const a = tops[i - 1]
    const b = tops[i]
    if (!a.top || !b.top || a.top.result.key === b.top.result.key) continue
    const before = targetsOf(a.top.result).find((t) => t.sloMs === b.sloMs)
    const tie = holdsSome(before) && overlaps(before, b.top.target)
    out.push({
      fromMs: a.sloMs,
      toMs: b.sloMs,
      from: a.top.result.key,
      to: b.top.result.key,
      atMs: crossing(a.top.result, b.top.result, a.sloMs, b.sloMs),
      tie,
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
// seen), watchedSec, collapses, keeps, why (what collapsed: [{ goodputShare, multiple } | { recoverySec }
// | { recoverySec: null, watchedSec }]) }; null when it measured nothing.
export function pastOf (probe) {
  const o = probe?.overload
  if (!o || o.refused || !o.steps?.length) return null
  const goodputShare = Object.fromEntries(o.steps.map((s) => [String(s.multiple), s.goodputShare ?? null]))
  const rec = o.recovery ?? null
  const recoverySec = rec && !rec.metastable && isNum(rec.ms) ? roundTo(rec.ms / 1000, 1) : null
  const watched = isNum(rec?.observedMs) && isNum(rec?.burstEndMs)
  const watchedSec = watched ? roundTo((rec.observedMs - rec.burstEndMs) / 1000, 1) : null
  const atCollapse = goodputShare[String(COLLAPSE.multiple)]
  const why = []
  const { multiple } = COLLAPSE
  if (isNum(atCollapse) && atCollapse < COLLAPSE.goodputShare) why.push({ goodputShare: atCollapse, multiple })
  if (rec && (recoverySec === null || recoverySec > COLLAPSE.recoverySec)) {
    why.push(recoverySec === null ? { recoverySec: null, watchedSec } : { recoverySec })
  }
  const collapses = why.length > 0
  const shares = Object.values(goodputShare)
  const keeps = !collapses && Boolean(rec) && shares.every((g) => isNum(g) && g >= KEEP_SHARE)
  return { goodputShare, shedShare: o.steps.at(-1).shedShare ?? null, recoverySec, watchedSec, collapses, keeps, why }
}

// The least goodput share a configuration kept over the multiples probed.
const keptShare = (x) => Math.min(...Object.values(x.past.goodputShare).map((g) => (isNum(g) ? g : 0)))

// The candidates close to the top one: its bracket overlaps theirs, or their capacity is within CLOSE_SHARE.
function closeTo (rank) {
  return rank.all.filter((c) => c === rank.top || near(c.target, rank.top.target, CLOSE_SHARE))
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

// Past capacity weighed between the close candidates (the rule above COLLAPSE): the configuration chosen,
// the rule's figures (`rule`, null: the winner was not probed) and whether it settled a tie between
// strategies. rule: { config, collapses, why, kept (least goodput share kept), outcome, ... } with outcome
// 'keeps' (lost: the tied strategies that collapse), 'survivor' (survivor: { config, same (the winner's own
// shedding setting), kept, rps }), 'all-collapse' (shed: { config, why } of the setting that would shed,
// or null) or 'none-keeps' (within: SURVIVOR_WITHIN, keepShare: KEEP_SHARE).
function weighPast (rank) {
  const top = rank.top
  const all = closeTo(rank).flatMap(configsOf)
  const unprobed = { candidate: top, probe: null, past: null }
  const asSwept = all.find((x) => x.candidate === top && !x.probe.variant) ?? unprobed
  if (!asSwept.past) return { chosen: asSwept, rule: null, tieBroken: false }
  const survivors = all
    .filter((x) => x.past?.keeps && near(x.candidate.target, top.target, SURVIVOR_WITHIN))
    .sort((a, b) => b.candidate.target.rps - a.candidate.target.rps || keptShare(b) - keptShare(a))
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
    rule: { ...head, outcome: 'none-keeps', within: SURVIVOR_WITHIN, keepShare: KEEP_SHARE },
    tieBroken: false
  }
}

// The recommended configuration's past capacity as the JSON carries it (null: not probed).
function pastCapacityOf (x) {
  if (!x.past) return null
  const { goodputShare, shedShare, recoverySec, collapses } = x.past
  return { goodputShare, shedShare, recoverySec, collapses }
}

// Why the decision refuses (null: it recommends): the winner's sweep not trusted (reasons: the verdict's),
// a tie between strategies (brackets: theirs; lean: { key, tieBreak } of the candidate breakTie would
// pick, not enough between strategies), or the winner's runs disagreeing ({ held, failed }).
function refusalOf (rank, { chosen, tieBroken }) {
  const top = chosen.candidate
  if (rank.tied.length > 1 && rank.rule.rule !== 'tie-broken' && !tieBroken) {
    const lean = rank.lean ? { key: rank.lean.winner.result.key, tieBreak: rank.lean.by } : null
    const keys = rank.tied.map((c) => c.result.key)
    return { reason: 'tie', keys, brackets: rank.tied.map((c) => bracketOf(c.target)), lean }
  }
  const verdict = verdictOf(top.result) // the one verdict every output shows
  if (!verdict.trusted) return { reason: 'disturbed', keys: [top.result.key], reasons: verdict.reasons }
  const dis = runsDisagree(top.result)
  if (dis) return { reason: 'runs-disagree', keys: [top.result.key], held: dis.held, failed: dis.failed }
  return null
}

// What separates the winner from the runner-up: { apart (their brackets apart), ratio (of capacities) };
// where they overlap, the rule that decided between them (the decision's decidedBy).
function separation (top, runnerUp) {
  if (!runnerUp) return null
  return { apart: !overlaps(top.target, runnerUp.target), ratio: roundTo(top.target.rps / runnerUp.target.rps, 2) }
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

// The decision of a capacity report (null when no result has a capacity). `sloMs`: the target it is
// made at (default: the first target of the first result with one); `headroom`: the plan rate's share;
// `form`/`cwd`: how its command is written (result/command.js serverCommand).
export function decide (report, { sloMs = null, headroom = HEADROOM, form = 'node', cwd = null } = {}) {
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
    headroom
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
  const byPast = weighed.tieBroken || top !== rank.top || Boolean(chosen.probe?.variant)
  const rule = byPast ? { rule: 'past-capacity' } : rank.rule
  const next = rank.all.find((c) => c !== top) ?? null
  const flags = [...(top.result.args ?? []), ...(chosen.probe?.flags ?? [])]
  return {
    ...context,
    ...win,
    variant: chosen.probe?.variant ?? null,
    flags,
    command: serverCommand({ server: top.result.server, flags, form, cwd }),
    planRps: roundTo(win.capacityRps * headroom, 1),
    decidedBy: rule,
    runnerUp: next ? { ...named(next), separation: separation(top, next) } : null,
    past: pastCapacity(top.result),
    pastCapacity: pastCapacityOf(chosen),
    pastRule: weighed.rule,
    refused: refusalOf(rank, weighed),
    confirm: null
  }
}
