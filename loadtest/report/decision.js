// The decision block (result/decision.js) as the terminal, the Markdown and the page show it: one short
// block, first in every output (the terminal's last, so it stays on screen). Pure: decision in, text out.
import { esc } from '../text/escape.js'
import { mdText } from '../text/escape.js'
import { bracketText } from '../result/decision.js'
import { isNum } from '../result/stats.js'
import { MISSING, fmtRounded } from '../text/format.js'

const r1 = (x) => fmtRounded(x, 1)

// A decision's winner (or tied candidate) as words: `queued-threads with threads=2`.
function who (c) {
  if (!c) return MISSING
  return c.setting ? `${c.server} with ${c.setting.name}=${c.setting.value}` : c.server
}

// The recommended configuration's past capacity in figures: goodput at each multiple, shed, recovery.
function keptText (p) {
  if (!p) return ''
  const good = Object.entries(p.goodputShare).sort((a, b) => a[0] - b[0]).map(([m, g]) => `${isNum(g) ? Math.round(g * 100) : MISSING} % at ${m} ×`)
  const shed = isNum(p.shedShare) ? `, ${Math.round(p.shedShare * 100)} % shed at the last` : ''
  const rec = isNum(p.recoverySec) ? `recovery ${r1(p.recoverySec)} s` : 'no recovery seen'
  return ` (goodput ${good.join(', ')} C${shed}; ${rec})`
}

// Whose target: the user's --slo, or the lab's default from this machine's service time.
function targetText (d) {
  const t = d.target
  const at = `p${t?.percentile ?? 99} ≤ ${r1(d.sloMs)} ms` // --quick judges p95
  if (!t || t.own) return `${at}, your own (--slo)`
  const service = isNum(t.serviceMs) ? ` (${r1(t.serviceMs)} ms)` : ''
  return `${at}: 5 × the service time measured on this machine${service}, not a target of yours; give yours with --slo MS`
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
  if (good.length) out.push(`goodput ${good.map((g) => `${Math.round(g.goodputShare * 100)} % at ${g.multiple} ×`).join(', ')} capacity`)
  if (past.over) {
    const t = isNum(past.over.timeouts) && past.over.timeouts > 0 ? `, ${past.over.timeouts} timeouts` : ''
    out.push(`at ${r1(past.over.rate)} req/s (1.2 ×) p99 ${r1(past.over.p99)} ms${t}${past.over.holds ? ' (still held)' : ''}`)
  }
  return out.join('; ') || 'not measured'
}

// Where the answer would change with the target (the capacity-against-target lines crossing).
// A new leader is named only where the brackets are apart at the looser target; else the two tie from there.
function changesText (d) {
  if (!d.changes?.length) return 'the same leader at every target measured'
  return d.changes.map((c) => {
    if (c.tie) {
      const b = c.brackets ? ` (brackets ${c.brackets[0]} and ${c.brackets[1]} req/s overlap)` : ''
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
  return `${verdict} p99 ≤ ${r1(c.sloMs)} ms at ${r1(c.rate)} req/s for ${r1(c.durationSec)} s: p99 ${r1(c.p99)} ms, ` +
    `backlog ${c.backlogGrowing ? 'growing' : 'steady'}${why}`
}

// The block as labelled lines [{ label, text }], plain text (each output escapes its own).
export function decisionLines (d) {
  if (!d) return []
  const lines = []
  const target = `p${d.target?.percentile ?? 99} ≤ ${r1(d.sloMs)} ms` // --quick judges p95
  if (d.recommends === 'rate') return rateLines(d, target)
  if (d.refused) {
    lines.push({ label: 'No recommendation', text: `${d.refused.text} (${d.refused.reason})` })
    if (d.key) lines.push({ label: 'Highest capacity', text: `${who(d)}: ${capacityText(d)} at ${target}` })
  } else {
    lines.push({ label: 'Run', text: `${d.command ?? who(d)}   at ${r1(d.planRps)} req/s (the plan rate)` })
    lines.push({ label: 'Capacity', text: `${who(d)}: ${capacityText(d)} at ${target}` })
    lines.push({ label: 'Plan', text: `${r1(d.planRps)} req/s, ${Math.round(d.headroom * 100)} % of capacity (${Math.round((1 - d.headroom) * 100)} % headroom)` })
  }
  if (d.runnerUp) lines.push({ label: 'Runner-up', text: `${who(d.runnerUp)}: ${capacityText(d.runnerUp)}; ${d.runnerUp.separation}` })
  if (d.decidedBy && !d.refused) lines.push({ label: 'Decided by', text: d.decidedBy })
  if (d.key) lines.push({ label: 'Past capacity', text: d.pastText ? d.pastText + keptText(d.pastCapacity) : pastText(d.past) })
  lines.push({ label: 'Target', text: targetText(d) })
  lines.push({ label: 'Would change', text: changesText(d) })
  if (d.unmet?.length) lines.push({ label: `No capacity at ${target}`, text: d.unmet.map((u) => `${u.key} (${u.bound})`).join(', ') })
  if (d.key) lines.push({ label: d.refused ? 'Confirm run' : 'Confirmed', text: confirmText(d.confirm) })
  const m = d.machine
  const on = m ? [m.hostname, m.cpuModel, isNum(m.cores) ? `${m.cores} cores` : null].filter(Boolean).join(' · ') : MISSING
  lines.push({ label: 'Holds for', text: `${on}; Node ${d.runtime ?? MISSING}; this work and target only` })
  return lines
}

// A --url service's decision: the rate to plan for, its capacity, the class that limits it, past it.
function rateLines (d, target) {
  const lines = []
  const l = d.limitedBy
  const culprit = l?.name ? `class ${l.name}` : 'the mix as a whole'
  const limit = l ? `${culprit}: failed first, at ${r1(l.rate)} req/s (${l.why ?? 'its target'})` : 'no step failed above the capacity'
  if (d.refused) {
    lines.push({ label: 'No rate', text: `${d.refused.text} (${d.refused.reason})` })
    if (d.key) lines.push({ label: 'Highest capacity', text: `${capacityText(d)} at ${target}` })
  } else {
    lines.push({ label: 'Plan', text: `${r1(d.planRps)} req/s to ${d.key}, ${Math.round(d.headroom * 100)} % of its capacity` })
    lines.push({ label: 'Capacity', text: `${capacityText(d)} at ${target} (each class at its own target)` })
    lines.push({ label: 'Past capacity', text: pastText(d.past) })
  }
  lines.push({ label: 'Limited by', text: limit })
  lines.push({ label: 'Holds for', text: 'this service as it ran, from this generator machine; this mix and these targets only' })
  return lines
}

// The block for the terminal: a title line and the labelled lines, aligned.
export function decisionText (d) {
  const lines = decisionLines(d)
  if (!lines.length) return ''
  const w = Math.max(...lines.map((l) => l.label.length))
  return ['Decision', ...lines.map((l) => `  ${l.label.padEnd(w)}  ${l.text}`)].join('\n') + '\n'
}

// The block as the Markdown's first section.
export function decisionMarkdown (d) {
  const lines = decisionLines(d)
  if (!lines.length) return []
  return ['## Decision', '', ...lines.map((l) => `- **${mdText(l.label)}:** ${mdText(l.text)}`), '']
}

// The block as the page's first screen.
export function decisionHtml (d) {
  const lines = decisionLines(d)
  if (!lines.length) return ''
  const cls = d.refused ? 'notice' : 'notice info'
  const items = lines.map((l) => `<li><b>${esc(l.label)}:</b> ${esc(l.text)}</li>`).join('')
  return `<section class="${cls} decision" data-decision="${d.refused ? 'refused' : 'recommended'}"><h2>Decision</h2><ul>${items}</ul></section>`
}
