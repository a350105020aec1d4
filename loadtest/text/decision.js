// The decision (result/decision.js) in words: every rule, reason, bracket and line of the decision block,
// from the decision's data. The terminal, the Markdown and the page (report/decision.js) write these
// lines; a report written before the decision carried data has its words already (a string passes as it
// is). Pure: decision in, text out.
import { isNum } from '../result/stats.js'
import { MISSING, fmtRounded, mbSpaced, numGrouped, pctSpaced } from './format.js'
import { classTargetsText, machineLine } from './sentences.js'
import { boundText } from './reasons.js'
import { SLO, TIE } from '../result/rules.js'

const r1 = (x) => fmtRounded(x, 1)

// A decision's winner (or tied candidate) as words: `queued-threads with threads=2`.
const who = (c) => (c ? configName(c) : MISSING)

// The recommended configuration's past capacity in figures: goodput at each multiple, shed, recovery.
function figuresText (p) {
  const good = Object.entries(p.goodputShare)
    .sort((a, b) => a[0] - b[0])
    .map(([m, g]) => `${isNum(g) ? Math.round(g * 100) : MISSING} % at ${m} ×`)
  const shed = isNum(p.shedShare) ? `, ${Math.round(p.shedShare * 100)} % shed at the last` : ''
  const rec = isNum(p.recoverySec) ? `recovery ${r1(p.recoverySec)} s` : recoveryUnseen(p)
  return `goodput ${good.join(', ')} C${shed}; ${rec}`
}

// A recovery not seen: not watched where the probe stopped at a collapse, else none seen.
function recoveryUnseen (p) {
  return isNum(p.collapsedAt) ? `not watched (collapsed at ${p.collapsedAt} ×)` : 'no recovery seen'
}

// The Past capacity line: the rule's line with the chosen configuration's figures, or (not probed) the
// figures of the sweep past capacity. Where past capacity decided, the Decided by line has said the rule:
// this line gives the chosen configuration's figures alone.
function pastLine (d) {
  const rule = d.pastRule ?? d.pastText
  if (!rule) return pastText(d.past)
  const figures = d.pastCapacity ? figuresText(d.pastCapacity) : null
  const chosen = typeof rule === 'object' && (rule.outcome === 'survivor' ? rule.survivor?.config : rule.config)
  if (d.decidedBy?.rule === 'past-capacity' && figures && chosen && !d.refused) {
    return `${configName(chosen)}: ${figures}`
  }
  return pastRuleText(rule) + (figures ? ` (${figures})` : '')
}

// Whose target: the user's --slo, or the lab's default from this machine's service time.
function targetText (d) {
  const t = d.target
  const at = `p${t.percentile} ≤ ${r1(d.sloMs)} ms` // the percentile judged (p95 in older --quick reports)
  // an older lab's decision does not say whose target (own absent): said as the user's
  if (t.own !== false) return `${at}, your own (--slo)`
  const service = isNum(t.serviceMs) ? ` (${r1(t.serviceMs)} ms)` : ''
  return `${at}: ${SLO.serviceMultiple} × the service time measured on this machine${service}, not a target of ` +
    'yours; give yours with --slo MS'
}

// The capacity of a candidate with its bracket and, over --runs, its spread.
function capacityText (c) {
  const spread = isNum(c.spread?.min) && isNum(c.spread?.max) && c.spread.min !== c.spread.max
    ? `, ${r1(c.spread.min)}–${r1(c.spread.max)} over runs`
    : ''
  return `${r1(c.capacityRps)} req/s (bracket ${bracketText({ rps: c.capacityRps, bracket: c.bracket })}${spread})`
}

// What past capacity looks like: goodput at each multiple (when measured), the 1.2 × step of the sweep.
function pastText (past) {
  if (!past) return 'not measured'
  const out = []
  const good = past.goodput.filter((g) => isNum(g.goodputShare))
  if (good.length) {
    out.push(`goodput ${good.map((g) => `${Math.round(g.goodputShare * 100)} % ` +
    `at ${g.multiple} ×`).join(', ')} capacity`)
  }
  if (past.over) {
    const t = isNum(past.over.timeouts) && past.over.timeouts > 0 ? `, ${past.over.timeouts} timeouts` : ''
    out.push(`at ${r1(past.over.rate)} req/s (1.2 ×) p99 ${r1(past.over.p99)} ` +
      `ms${t}${past.over.holds ? ' (still held)' : ''}`)
  }
  return out.join('; ') || 'not measured'
}

// Where the answer would change with the target (the capacity-against-target lines crossing).
// A new leader is named only where the brackets are apart at the looser target; else the two tie from there.
function changesText (d) {
  if (!d.changes?.length) {
    return d.refused?.reason === 'tie' || (d.alternative && !d.refused)
      ? 'the same tie at every target measured'
      : 'the same leader at every target measured'
  }
  return d.changes.map((c) => {
    if (c.tie) {
      const [x, y] = (c.brackets ?? []).map((b) => (typeof b === 'string' ? b : bracketText(b)))
      const b = c.brackets ? ` (brackets ${x} and ${y} req/s ${c.overlap === false ? withinText() : 'overlap'})` : ''
      return `${c.from} and ${c.to} tie from ${r1(c.toMs)} ms on${b}; ${c.from} leads at ${r1(c.fromMs)} ms`
    }
    const at = isNum(c.atMs) ? `near p99 ${r1(c.atMs)} ms` : `between ${r1(c.fromMs)} and ${r1(c.toMs)} ms`
    return `${c.to} leads from ${r1(c.toMs)} ms (lines cross ${at}; ${c.from} leads at ${r1(c.fromMs)} ms)`
  }).join('; ')
}

// The --confirm run's verdict in words.
function confirmText (c) {
  if (!c) return 'not run (--confirm runs the winner at its plan rate)'
  if (c.skipped) return `not run: ${c.skipped}`
  const verdict = c.held ? 'held' : 'did NOT hold'
  const why = c.held ? '' : ` (${c.why.join('; ')})`
  return `${verdict} p99 ≤ ${r1(c.sloMs)} ms at ${r1(c.rate)} req/s for ${r1(c.durationSec)} s: ` +
    `p99 ${r1(c.p99)} ms, backlog ${c.backlogGrowing ? 'growing' : 'steady'}${why}`
}

// What the search cost: `7 sweeps in 9 min 40 s, 17,786 requests` (the time left out where not measured).
function searchText (x) {
  const sweeps = `${x.sweeps} sweep${x.sweeps === 1 ? '' : 's'}`
  const sec = isNum(x.sec) ? ` in ${minSec(x.sec)}` : ''
  const requests = isNum(x.requests) ? `, ${numGrouped(x.requests)} requests` : ''
  return `${sweeps}${sec}${requests}`
}

// Seconds as `9 min 40 s`, or `42 s` under a minute.
function minSec (sec) {
  const s = Math.round(sec)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

// The configuration tied on capacity with the recommended one, and its command.
function alternativeText (a) {
  return `tied on capacity: ${a.command ?? who(a)}`
}

// What to run: the command alone, as a user pastes it (`command: true`: each output prints it bare, with no
// label); a decision kept before it carried a command names the configuration instead.
function runLine (d) {
  return d.command ? { label: 'Run', text: d.command, command: true } : { label: 'Run', text: who(d) }
}

// The results with no capacity at the target, those with the same reason named together:
// `simple@…, child-process@… (ruled out: …)`.
function unmetText (unmet) {
  const byReason = new Map()
  for (const u of unmet) {
    const why = boundText(u)
    byReason.set(why, [...(byReason.get(why) ?? []), u.key])
  }
  return [...byReason].map(([why, keys]) => `${keys.join(', ')} (${why})`).join('; ')
}
// The block as labelled lines [{ label, text, command? }], plain text (each output escapes its own). A
// recommendation's first line is the command (`command: true`), the plan rate the next. `results`: the
// report's, where a --url run's mix decided by each class's own target (the Capacity line names them).
export function decisionLines (d, results = null) {
  if (!d) return []
  const lines = []
  const target = `p${d.target.percentile} ≤ ${r1(d.sloMs)} ms` // the percentile judged (p95 in older --quick reports)
  if (d.recommends === 'rate') return rateLines(d, rateTarget(d, target, results))
  if (d.refused) {
    const why = `${refusalText(d.refused, d.target.percentile)} (${reasonName(d.refused)})`
    lines.push({ label: 'No recommendation', text: why })
    if (d.key) lines.push({ label: 'Highest capacity', text: `${who(d)}: ${capacityText(d)} at ${target}` })
  } else {
    lines.push(runLine(d))
    lines.push({
      label: 'Plan rate',
      text: `${r1(d.planRps)} req/s, ${Math.round(d.headroom * 100)} % of capacity ` +
      `(${Math.round((1 - d.headroom) * 100)} % headroom)`
    })
    lines.push({ label: 'Capacity', text: `${who(d)}: ${capacityText(d)} at ${target}` })
  }
  if (d.runnerUp) {
    lines.push({ label: 'Runner-up', text: `${who(d.runnerUp)}: ${capacityText(d.runnerUp)}; ${separationText(d)}` })
  }
  if (d.decidedBy && !d.refused) lines.push({ label: 'Decided by', text: ruleText(d) })
  if (d.alternative && !d.refused) lines.push({ label: 'Alternative', text: alternativeText(d.alternative) })
  if (d.key) lines.push({ label: 'Past capacity', text: pastLine(d) })
  lines.push({ label: 'Target', text: targetText(d) })
  lines.push({ label: 'Would change', text: changesText(d) })
  if (d.unmet?.length) {
    lines.push({ label: `No capacity at ${target}`, text: unmetText(d.unmet) })
  }
  if (d.key) lines.push({ label: d.refused ? 'Confirm run' : 'Confirmed', text: confirmText(d.confirm) })
  if (d.search) lines.push({ label: 'Search', text: searchText(d.search) })
  const m = d.machine
  const on = m ? machineLine({ machine: m }) : MISSING
  lines.push({ label: 'Holds for', text: `${on}; Node ${d.runtime ?? MISSING}; this work and target only` })
  return lines
}

// The target a --url service's capacity stands on: each class's own where a mix's classes decided, else
// the run's (`results` not given: a mix's classes are said to be at their own, unnamed).
function rateTarget (d, target, results) {
  if (!results) return `${target} (each class at its own target)`
  const own = classTargetsText(results.find((r) => r.key === d.key))
  return own ? `each class's own target (${own})` : target
}

// A --url service's decision: the rate to plan for, its capacity, the class that limits it, past it.
function rateLines (d, target) {
  const lines = []
  const l = d.limitedBy
  const culprit = l?.name ? `class ${l.name}` : 'the mix as a whole'
  const limit = l
    ? `${culprit}: failed first, at ${r1(l.rate)} req/s ` +
    `(${l.why ?? (l.backlogGrew ? 'backlog grew' : 'its target')})`
    : 'no step failed above the capacity'
  if (d.refused) {
    lines.push({ label: 'No rate', text: `${refusalText(d.refused, d.target.percentile)} (${reasonName(d.refused)})` })
    if (d.key) lines.push({ label: 'Highest capacity', text: `${capacityText(d)} at ${target}` })
  } else {
    lines.push({
      label: 'Plan rate',
      text: `${r1(d.planRps)} req/s to ${d.key}, ${Math.round(d.headroom * 100)} % ` +
      'of its capacity'
    })
    lines.push({ label: 'Capacity', text: `${capacityText(d)} at ${target}` })
    lines.push({ label: 'Past capacity', text: pastText(d.past) })
  }
  lines.push({ label: 'Limited by', text: limit })
  lines.push({
    label: 'Holds for',
    text: 'this service as it ran, from this generator machine; this mix and these ' +
    'targets only'
  })
  return lines
}

// A bracket as text: `41.2–45.0` (open above: `≥ 41.2`); `t` a capacity { rps, bracket } or a bracket
// { pass, fail } as the decision keeps it.
export function bracketText (t) {
  const lo = t.bracket?.pass ?? t.pass ?? t.rps
  const hi = t.bracket ? t.bracket.fail : t.fail
  return isNum(hi) ? `${r1(lo)}–${r1(hi)}` : `≥ ${r1(lo)}`
}

// What broke a tie (result/decision.js breakTie): `goodput at 2 × capacity (70 % against 30 %)`, `peak RSS
// (90 MB against 120 MB)`, `the simpler strategy (simple before cluster)`, `the higher capacity measured (82
// against 80 req/s)`.
function tieBreakText (b) {
  if (b.by === 'goodput') {
    return `goodput at ${b.multiple} × capacity (${pctSpaced(b.shares[0])} ` +
    `against ${pctSpaced(b.shares[1])})`
  }
  if (b.by === 'simpler') return `the simpler strategy (${b.servers[0]} before ${b.servers[1]})`
  if (b.by === 'capacity') return `the higher capacity measured (${r1(b.rps[0])} against ${r1(b.rps[1])} req/s)`
  return `peak RSS (${mbSpaced(b.bytes[0])} against ${mbSpaced(b.bytes[1])})`
}

// The words of each rule that decides (result/decision.js rankAt and decide: decidedBy.rule; 'tie-not-broken'
// and 'tie': an older report's, whose ties between strategies were refused).
const RULE_WORDS = {
  'past-capacity': (r, d) => `past capacity: ${pastRuleText(d.pastRule ?? d.pastText)}`,
  'brackets-apart': () => 'highest capacity, brackets apart',
  'tie-broken': (r) => `tie on capacity, broken by ${tieBreakText(r.tieBreak)}`,
  'tie-not-broken': () => 'tie on capacity, not broken',
  tie: () => 'tie on capacity',
  'highest-capacity': () => 'highest capacity'
}

// The rule that decided (the decision's decidedBy, with its pastRule when past capacity decided).
export function ruleText (d) {
  const r = d.decidedBy
  if (typeof r === 'string' || !r) return r ?? null
  return RULE_WORDS[r.rule]?.(r, d) ?? String(r.rule)
}

// What collapsed, one item: `goodput 0 % at 1.5 ×`, `recovery 44 s`, `no recovery within 15 s`.
export function whyText (w) {
  if (typeof w === 'string') return w
  if (isNum(w.goodputShare)) return `goodput ${pctSpaced(w.goodputShare)} at ${w.multiple} ×`
  return isNum(w.recoverySec) ? `recovery ${w.recoverySec} s` : `no recovery within ${w.watchedSec ?? '?'} s`
}

// A configuration in words: `queued-threads (unbounded queue)`, `queued-threads with --deadline auto`,
// `queued-threads with threads=2`.
export function configName (c) {
  const base = c.setting ? `${c.server} with ${c.setting.name}=${c.setting.value}` : c.server
  if (c.shedding) return `${base} with ${c.shedding}`
  return c.label ? `${base} (${c.label})` : base
}

// The past-capacity rule's line (result/decision.js weighPast): what the winner as swept did past
// capacity, and what was chosen instead.
export function pastRuleText (p) {
  if (typeof p === 'string' || !p) return p ?? null
  const name = configName(p.config)
  const why = (list) => list.map(whyText).join(', ')
  if (p.outcome === 'keeps') {
    const lost = p.lost.length ? `; ${p.lost.join(' and ')} collapse past capacity` : ''
    return `${name} keeps ${pctSpaced(p.kept)} of capacity past it${lost}`
  }
  const head = p.collapses
    ? `${name} collapses past capacity: ${why(p.why)}`
    : `${name} keeps ` +
    `only ${pctSpaced(p.kept)} past capacity`
  if (p.outcome === 'survivor') {
    const s = p.survivor
    const how = s.same
      ? `with ${s.config.shedding} it keeps ${pctSpaced(s.kept)}`
      : `${configName(s.config)} keeps ${pctSpaced(s.kept)} at ${r1(s.rps)} req/s`
    return p.collapses ? `${head}; ${how}` : `${how}; the others collapse`
  }
  if (p.outcome === 'all-collapse') {
    const would = p.shed
      ? `the setting that would shed: ${p.shed.config.shedding} (${configName(p.shed.config)}: ${why(p.shed.why)})`
      : 'no shedding setting was probed'
    return `${head}; every close candidate collapses too; ${would}`
  }
  return `${head}; no configuration within ${Math.round(p.within * 100)} % of its capacity ` +
    `keeps ${Math.round(p.keepShare * 100)} %`
}

// A refusal's reason in a word or two (result/decision.js refusalOf's codes; 'tie': an older report's).
const REFUSAL_WORDS = {
  tie: 'tie', disturbed: 'disturbed', 'runs-disagree': 'runs disagree', 'none-meets': 'none meets the target'
}
const reasonName = (r) => REFUSAL_WORDS[r.reason] ?? String(r.reason)

// Why the decision refuses, in one line (result/decision.js refusalOf; a tie: an older report's refusal), at
// the percentile its target judged.
export function refusalText (r, percentile = 99) {
  if (typeof r.text === 'string') return r.text
  const key = r.keys[0]
  if (r.reason === 'tie') {
    const lean = r.lean
      ? `; ${r.lean.key} leads on ${tieBreakText(r.lean.tieBreak)}, not enough to choose ` +
      'between strategies'
      : ''
    return `${r.keys.join(' and ')} tie: their brackets overlap (${r.brackets.map(bracketText).join(' and ')})${lean}`
  }
  if (r.reason === 'disturbed') {
    const more = r.reasons.length > 2 ? `; and ${r.reasons.length - 2} more (the report's trust section)` : ''
    return `${key}'s sweep is not to be taken at face value: ${r.reasons.slice(0, 2).join('; ')}${more}`
  }
  if (r.reason === 'runs-disagree') {
    return `${key}'s sweeps disagree beyond their brackets: one held ${r1(r.held)} req/s, another failed ` +
      `at ${r1(r.failed)}`
  }
  return `no strategy held p${percentile} ≤ ${r.sloMs} ms at any rate tried`
}

// Two capacities that tie without their brackets overlapping: within the rule book's margin (TIE.capacityMargin).
const withinText = () => `within ${pctSpaced(TIE.capacityMargin)}`

// What separates the winner from the runner-up: their brackets apart (with the ratio of capacities, and
// the rule when the winner has the lower capacity), or the rule that decided where they tie.
export function separationText (d) {
  const s = d.runnerUp?.separation
  if (typeof s === 'string' || !s) return s ?? null
  const mine = bracketText({ rps: d.capacityRps, bracket: d.bracket })
  const theirs = bracketText({ rps: d.runnerUp.capacityRps, bracket: d.runnerUp.bracket })
  const how = s.overlap === false ? withinText() : 'overlap'
  // a tie the tie-break decided: **Decided by** says how, once
  const why = d.decidedBy?.rule === 'tie-broken' ? 'tied on capacity' : ruleText(d)
  if (!s.apart) return `${why} (brackets ${mine} and ${theirs} req/s ${how})`
  const apart = `brackets apart: ${mine} against ${theirs} req/s (${s.ratio} ×)`
  return d.capacityRps < d.runnerUp.capacityRps ? `${apart}; ${ruleText(d)}` : apart
}

// The configurations weighed past capacity (report/decision-figures.js pastConfigs) as a table of words:
// { head, rows }, a row per configuration: its strategy (✓ the decision's), its setting, goodput at each
// multiple of C ('not measured' where the run has none; `(sweep)`: the sweep's own step at C), the share
// shed at 2 × C, the recovery after the burst, and what the rule made of it. `kinds`, beside the rows: each
// cell's kind for a page to mark ('not-measured', 'collapses', 'keeps'; null: a figure or a name).
export function pastCapacityTable (configs) {
  const head = ['strategy', 'configuration', ...(configs[0]?.points ?? []).map((p) => `goodput at ${p.multiple} × C`),
    'shed at 2 × C', 'recovery', 'past capacity']
  const point = (p) => isNum(p.goodput)
    ? `${pctSpaced(p.goodput)}${p.from === 'sweep' ? ' (sweep)' : ''}`
    : 'not measured'
  const recovery = (p) => {
    if (!p) return MISSING
    if (isNum(p.recoverySec)) return `${r1(p.recoverySec)} s`
    return isNum(p.collapsedAt) ? 'not watched' : `none within ${r1(p.watchedSec)} s`
  }
  const verdictKind = (c) => (!c.past ? 'not-measured' : c.past.collapses ? 'collapses' : c.past.keeps ? 'keeps' : null)
  const verdict = (c) => {
    if (!c.past) return c.failure ? `not measured: ${c.failure}` : 'not measured'
    if (c.past.collapses) return 'collapses'
    return c.past.keeps ? 'keeps' : 'neither keeps nor collapses'
  }
  const rows = configs.map((c) => [
    c.chosen ? `${c.name} ✓` : c.name,
    c.config === 'as swept' ? `as swept (${c.setting})` : c.setting,
    ...c.points.map(point),
    pctSpaced(c.past?.shedShare),
    recovery(c.past),
    verdict(c)
  ])
  const measured = (p) => (isNum(p.goodput) ? null : 'not-measured')
  const kinds = configs.map((c) => [null, null, ...c.points.map(measured), null, null, verdictKind(c)])
  return { head, rows, kinds }
}
