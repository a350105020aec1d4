// The words of `loadlab history` (history/history.js makes the data): the terminal's lines, one per
// series with a change, newest first, and one line per report left out.
import { fixedGrouped, signedPct } from './format.js'

// A p-value as a reader scans it: 3 significant digits, exponent below 0.001.
export function pText (p) {
  if (typeof p !== 'number') return 'p -'
  return p < 0.001 ? `p ${p.toExponential(1)}` : `p ${p.toPrecision(2)}`
}

const value = (v, unit) => `${fixedGrouped(v, Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2)} ${unit}`

// One change as words: its size, where, its p, the means before and after, and its cause.
export function changeText (s, c) {
  const skipped = c.since && s.points?.[c.index - 1] && s.points[c.index - 1].report !== c.since
  const where = `at ${c.report}${c.commit ? ` (${c.commit})` : ''}` +
    (skipped ? ` (after ${c.since}: the reports between were untrusted, not tested)` : '')
  const means = `${value(c.before.mean, s.unit)} → ${value(c.after.mean, s.unit)}`
  const cause = c.cause === 'machine'
    ? `a change of machine ${c.from} → ${c.machine}${c.figures?.length ? ` (ruler: ${c.figures.join(', ')})` : ''}` +
      ', not of code'
    : `${c.worse ? 'worse' : 'better'}, on machine ${c.machine}`
  return `${signedPct(c.change)} ${where}, ${pText(c.pValue)}, ${means}: ${cause}`
}

// The terminal's text of a history: a head line, each series with a change (newest change first), the
// series too short for the test, and the gate's lines.
export function historyText (h, { failures = [] } = {}) {
  const changed = h.series.filter((s) => s.changes.length)
  const short = h.series.filter((s) => s.status === 'too-short')
  const lines = [
    `history: ${h.reports.length} reports on ${h.machines.length} machine(s), ${h.series.length} series: ` +
      `${changed.length} with a change, ${short.length} too short for the test (fewer than ` +
      `${2 * h.parameters.minSegment} reports on one machine); E-divisive means, Welch t-test p ≤ ` +
      `${h.parameters.maxPValue}, segments of ${h.parameters.minSegment} reports or more`
  ]
  for (const m of h.machines) {
    const by = m.by === 'ruler' ? 'by its ruler' : 'by its machine block (no ruler)'
    const what = `${m.cpuModel ?? '?'}, ${m.availableParallelism ?? '?'} core(s)`
    lines.push(`  machine ${m.id}: ${m.reports} report(s) from ${m.first}, ${by}: ${what}`)
  }
  const newest = (s) => s.changes.at(-1).at
  const order = (a, b) => String(newest(b)).localeCompare(String(newest(a))) || a.id.localeCompare(b.id)
  for (const s of changed.sort(order)) {
    lines.push(`${s.id}:`)
    for (const c of [...s.changes].reverse()) lines.push(`  ${changeText(s, c)}`)
  }
  if (short.length) {
    lines.push(`too short for the test: ${short.length} series (${short.slice(0, 5).map((s) => s.id).join('; ')}` +
      `${short.length > 5 ? '; …' : ''})`)
  }
  if (!changed.length) lines.push('no change found in any series tested')
  for (const f of failures) {
    lines.push(`--fail-on-change ${f.bound}: ${f.series}: ${signedPct(f.change.change)} at ${f.change.report}`)
  }
  return lines.join('\n') + '\n'
}
