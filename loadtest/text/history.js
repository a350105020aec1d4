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
    : `${c.worse ? 'worse' : 'better'}, on machine ${c.machine}` + (c.ruler?.length
    ? ` (its ruler moved too: ${c.ruler.join(', ')}; its machine block did not: a change of code)`
    : '')
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
    const memory = m.memoryBytes > 0 ? `, ${fixedGrouped(m.memoryBytes / 2 ** 30, 1)} GiB` : ''
    const what = `${m.cpuModel ?? '?'}, ${m.availableParallelism ?? m.cores ?? '?'} core(s)${memory}` +
      (m.kernel ? `, kernel ${m.kernel}` : '')
    lines.push(`  machine ${m.id}: ${m.reports} report(s) from ${m.first}: ${what}`)
  }
  const newest = (s) => s.changes.at(-1).at
  const order = (a, b) => String(newest(b)).localeCompare(String(newest(a))) || a.id.localeCompare(b.id)
  for (const s of changed.sort(order)) {
    lines.push(`${s.id}:${s.disturbed ? ` ${disturbedText(s)}` : ''}`)
    for (const c of [...s.changes].reverse()) lines.push(`  ${changeText(s, c)}`)
  }
  if (short.length) {
    lines.push(`too short for the test: ${short.length} series (${short.slice(0, 5).map((s) => s.id).join('; ')}` +
      `${short.length > 5 ? '; …' : ''})`)
  }
  const calm = h.series.filter((s) => !s.changes.length && s.disturbed)
  if (calm.length) {
    lines.push(`no change, with runs the lab marked disturbed: ${calm.length} series (` +
      `${calm.slice(0, 5).map((s) => `${s.id}, ${disturbedText(s)}`).join('; ')}` +
      `${calm.length > 5 ? '; …' : ''})`)
  }
  if (!changed.length) {
    lines.push(h.series.some((s) => s.status === 'tested')
      ? 'no change found in any series tested'
      : `no series long enough for the test (${2 * h.parameters.minSegment} reports on one machine): none tested`)
  }
  for (const f of failures) lines.push(gateText(f))
  return lines.join('\n') + '\n'
}

// How many of a series' runs the lab marked disturbed, and whether the test read them (too few quiet ones).
export function disturbedText (s) {
  const read = s.tests.some((t) => t.withDisturbed)
  return `${s.disturbed} of its ${s.points.length} runs marked disturbed (something else took the machine), ` +
    (read ? 'tested with them: too few quiet runs' : 'not tested')
}

// One --fail-on-change failure: the bound, the series, the change and where, and what flags it; or the
// newest runs the lab marked disturbed, which the gate does not pass.
export function gateText (f) {
  const head = `--fail-on-change ${f.bound}: ${f.series}`
  if (f.why === 'disturbed') {
    return `${head}: not passed: ${f.disturbed} of its newest ${f.newest} runs on ${f.machine} marked disturbed ` +
      '(something else took the machine), so no change there could be ruled out; rerun them quiet, or ' +
      'pass --allow-disturbed'
  }
  const flags = [
    ...(f.disturbed ? [`${f.disturbed} of its newest runs marked disturbed`] : []),
    ...(f.change.ruler?.length ? [`its ruler moved too (${f.change.ruler.join(', ')}), not its machine block`] : [])
  ]
  return `${head}: ${signedPct(f.change.change)} at ${f.change.report}` + (flags.length ? ` (${flags.join('; ')})` : '')
}

// A series a bound followed that --allow-disturbed passed though its newest runs were disturbed: said.
export function passedDisturbedText (p) {
  return `--fail-on-change ${p.bound}: ${p.series}: passed by --allow-disturbed, with ${p.disturbed} of its ` +
    `newest ${p.newest} runs on ${p.machine} marked disturbed`
}
