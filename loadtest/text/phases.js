// Where the time went, in words: one line per result from its phases (result/phases.js), for the terminal,
// the Markdown and the page's notes.
import { PHASES, phaseDoubt } from '../result/phases.js'
import { runName } from '../result/key.js'
import { isNum } from '../result/stats.js'
import { fmtMs3, pctSpaced } from './format.js'

// A share shown in the line: smaller ones are left out (they still count in the sum).
const SHOWN_SHARE = 0.01

// Why a percentile's shares are not shown (result/phases.js phaseDoubt).
const DOUBT = {
  unexplained: (d) => `shares in doubt, ${fmtMs3(d.unexplainedMs)} ms unexplained`,
  clamped: (d) => `shares in doubt, ${d.clamped} of ${d.count} requests' stamps clamped`
}

// `p99 27.9 ms: sent 94 % · reply 5 %` for the request at one percentile (`at` of phaseFigures), or
// `p99 3.90 ms: shares in doubt, 18.5 ms unexplained` where its shares are in doubt (`doubt`).
function atText (label, at, doubt = null) {
  if (doubt) return `${label} ${fmtMs3(at.latencyMs)} ms: ${DOUBT[doubt.code](doubt)}`
  const parts = PHASES.filter((p) => isNum(at.share[p]) && at.share[p] >= SHOWN_SHARE)
    .map((p) => `${p} ${pctSpaced(at.share[p])}`)
  return `${label} ${fmtMs3(at.latencyMs)} ms: ${parts.join(' · ') || 'no phase over 1 %'}`
}

// One result's line: `simple: where the time went: p50 2.31 ms: sent 52 % · wait 18 % …; p99 …;
// unexplained 0.00 ms (median over 200 requests)`, or null without phases.
export function phaseLine (name, f) {
  if (!f || typeof f !== 'object') return null
  if (!f.count) {
    return `${name}: where the time went: no answer stamped (${f.missing} without ` +
    `Lab-Stamps, ${f.ignored} ignored)`
  }
  if (!f.at?.p50?.share || !f.at?.p99?.share) return null
  const ignored = (f.ignored ? `, ${f.ignored} headers ignored` : '') + (f.clamped ? `, ${f.clamped} clamped` : '') +
    (f.clockShiftMs ? `, the server's clock taken ${f.clockShiftMs} ms ahead` : '')
  return `${name}: where the time went: ${atText('p50', f.at.p50, phaseDoubt(f, 'p50'))}; ` +
    `${atText('p99', f.at.p99, phaseDoubt(f, 'p99'))}; ` +
    `unexplained ${fmtMs3(f.unexplained.medianMs)} ms (median over ${f.count} requests${ignored})`
}

// The lines of a report's results that carry phases (the shown round's, and per class a mix's or a mixed
// experiment's round's).
export function phaseLines (results = []) {
  const out = []
  for (const r of results) {
    if (!r || typeof r !== 'object') continue
    const line = phaseLine(runName(r), r.phases)
    if (line) out.push(line)
    for (const c of [...(r.classes ?? []), ...(r.mixed?.classes ?? [])]) {
      const classLine = phaseLine(`${runName(r)} ${c.name}`, c.phases)
      if (classLine) out.push(classLine)
    }
  }
  return out
}
