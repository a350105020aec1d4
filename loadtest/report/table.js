// The summary table: pure rows from a report, and a plain-text renderer for the terminal.
import { termText } from '../text/escape.js'
import { fmtMb as mb, fmtMs as ms, fmtNum as num, fmtPct as pct, MISSING } from '../text/format.js'
import { runtimeName, unmeasuredLines, unmeasuredWhy } from '../result/runtime.js'
import { MARKS, findingLines, trustMark, unmeasuredText } from '../text/sentences.js'
import { phaseLines } from '../text/phases.js'
import { runName } from '../result/key.js'
import { verdictOf } from '../result/trust.js'

// The dash of a figure the run's runtime cannot measure ("—", explained under the table: tableNotes),
// apart from '-', a figure that is simply absent.
export const UNMEASURED = '—'

// The default table of HTTP results: { head, rows } of strings. Column c: connections, or the offered
// rate (N/s) of an open-loop run; contention: the strategy's own (work × slower, what ran at once), a
// finding beside the trust column, never a reason in it (result/trust.js).
export function defaultTable (report) {
  const head = [
    'server',
    'work',
    'c',
    'req/s',
    'p50',
    'p97.5',
    'p99',
    'max',
    'conn err',
    'tmo',
    'non2xx',
    'mism',
    'probe p99',
    'loop p99',
    'CPU ms/req',
    'peak RSS',
    'eff',
    'contention',
    'trust'
  ]
  const rows = []
  for (const r of report.results) {
    if (r.kind !== 'http') continue
    const name = runName(r)
    if (r.status === 'failed' && !r.requests) {
      rows.push([
        name,
        r.work ?? MISSING,
        String(r.connections ?? MISSING),
        'FAILED',
        ...Array(head.length - 5).fill(''), // the figures a failed run does not have
        `✗ ${r.failure?.reason ?? ''}`
      ])
      continue
    }
    const q = r.requests ?? {}
    rows.push([
      name,
      r.work ?? MISSING,
      r.loop === 'open' && r.rate ? `${r.rate}/s` : String(r.connections ?? MISSING),
      num(r.rps),
      ms(r.latency?.p50),
      ms(r.latency?.p97_5),
      ms(r.latency?.p99),
      ms(r.latency?.max),
      String(q.errors ?? MISSING),
      String(q.timeouts ?? MISSING),
      String(q.non2xx ?? MISSING),
      String(q.mismatches ?? MISSING),
      ms(r.probe?.p99),
      unmeasuredWhy(r, 'eventLoop') ? UNMEASURED : ms(r.telemetry?.eventLoop?.p99),
      num(r.outside?.cpuMsPerRequest, 2),
      mb(r.outside?.peakRssBytes),
      pct(r.efficiency),
      r.contention?.short ?? MISSING,
      trustMark(r)
    ])
    for (const c of r.classes ?? []) rows.push(classRow(c, head.length))
  }
  return { head, rows }
}

// A request mix's figures per class of every run that has them, as a table of their own ({ head, rows }),
// for the outputs whose results table has no class rows (an experiment's own table, the page); null
// when no run had a mix.
export function classTable (report) {
  const runs = (report.results ?? []).filter((r) => r?.kind === 'http' && Array.isArray(r.classes) && r.classes.length)
  if (!runs.length) return null
  const head = ['run', 'class', 'req/s', 'p50', 'p97.5', 'p99', 'max', 'err', 'tmo', 'non2xx', 'mism', 'target']
  const rows = runs.flatMap((r) => r.classes.map((c) => [r.key, c.name, ...classFigures(c), classTarget(c)]))
  return { head, rows }
}

// A class's req/s, p50, p97.5, p99, max, and its failed requests by kind.
function classFigures (c) {
  const q = c.requests
  return [num(c.rps), ms(c.latency.p50), ms(c.latency.p97_5), ms(c.latency.p99), ms(c.latency.max),
    String(q.errors), String(q.timeouts), String(q.non2xx), String(q.mismatches)]
}

// Whether a class's p99 met its target: `p99 ≤ 50 ✓`, `p99 > 50 ✗` ('-' without a target).
function classTarget (c) {
  if (!c.sloMs) return MISSING
  return `p99 ${c.latency.p99 !== null && c.latency.p99 <= c.sloMs ? `≤ ${c.sloMs} ✓` : `> ${c.sloMs} ✗`}`
}

// A request mix's class, as a row under its run's: its own counts and percentiles, and whether its p99
// met its target (`p99 ≤ 50 ✓`, `p99 > 50 ✗`) in the trust column.
function classRow (c, width) {
  return [`  · ${c.name}`, 'class', MISSING, ...classFigures(c), ...Array(width - 13).fill(MISSING), classTarget(c)]
}

// The runtimes of a report's runs under --runtime, in run order: [{ label, name }] (name: `bun 1.4.5`,
// `node 24.21.0`, or a Node version for reports from before --runtime); [] for one runtime.
export function runtimesOf (report) {
  const out = []
  for (const r of report.results ?? []) {
    const label = r.runtime?.label
    if (label && !out.some((x) => x.label === label)) out.push({ label, name: runtimeName(r.runtime) })
  }
  return out.length > 1 ? out : []
}

// The lines under a table: what it found beside its figures (a strategy's own contention, a capacity that
// cannot be met or is sensitive to its target: result/findings.js), then what its "—" cells mean (one line
// per runtime and figure it could not measure, with why).
export function tableNotes (report) {
  const found = [...findingLines(report.results), ...phaseLines(report.results)] // phaseLines: text/phases.js
  return [...found, ...unmeasuredLines(report.results).map(unmeasuredText), MARKS]
}

// The table for a report: the experiment's own shape when it has one, else the default. Runs under
// several runtimes (--runtime) are grouped by runtime: the table of each runtime's runs, one after the
// other, behind a `runtime` column. `notes`: what its "—" cells mean (tableNotes).
export function reportTable (report, experiment) {
  const one = (r) => (typeof experiment?.table === 'function' ? experiment.table(r) : defaultTable(r))
  const runtimes = runtimesOf(report)
  const notes = tableNotes(report)
  if (runtimes.length === 0) {
    const t = one(report)
    return { ...t, notes: [...(t.notes ?? []), ...notes] } // the experiment's own lines first
  }
  let head = null
  const rows = []
  for (const { label, name } of runtimes) {
    const t = one({ ...report, results: report.results.filter((r) => r.runtime?.label === label) })
    head ??= ['runtime', ...t.head]
    rows.push(...t.rows.map((row) => [name ?? label, ...row]))
  }
  return { head, rows, notes }
}

// The experiment's own table of a report, rendered from its results by the experiment's module, titled; for a
// report written before tables were rendered from data, the one it stored; null when there is none.
export function experimentTable (report, experiment) {
  if (typeof experiment?.table === 'function') {
    return { title: experiment.title ?? report.experiment, ...reportTable(report, experiment) }
  }
  return report.table ?? null
}

// Why each run marked ! or ✗ is so, one { key, mark, text } per run, in result order: the same words on
// the terminal (whyLines) as in the Markdown's "Not to be taken at face value" and failures.
export function whyOf (results = []) {
  const out = []
  for (const r of results) {
    if (!r || typeof r !== 'object') continue
    const v = verdictOf(r)
    if (v.status !== 'failed' && !v.trusted) {
      out.push({ key: r.key, mark: '!', text: v.reasons.join('; ') || 'no reason given' })
    }
    const f = r.failure
    if (f) {
      out.push({
        key: r.key,
        mark: '✗',
        text: `${f.reason} (exit code ${f.exitCode ?? MISSING}, ` +
        `signal ${f.signal ?? MISSING})`
      })
    }
  }
  return out
}

// The terminal's lines under the table: each marked run's reason (whyOf), `! key: reason`.
export function whyLines (report) {
  return whyOf(report?.results).map((w) => `${w.mark} ${w.key}: ${w.text}`)
}

// Render { head, rows, notes? } as aligned plain text (numbers right-aligned), its notes below.
export function renderText ({ head, rows, notes = [] }) {
  const all = [head, ...rows].map((r) => r.map((c) => termText(c)))
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)))
  const numeric = head.map(
    (_, i) => rows.length > 0 &&
      rows.every((r) => /^[-\d.%sM]*$/.test(String(r[i] ?? '')) || r[i] === MISSING || r[i] === UNMEASURED)
  )
  const line = (r) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  const below = notes.map((n) => termText(n))
  const rule = widths.map((w) => '-'.repeat(w)).join('  ')
  return [line(all[0]), rule, ...all.slice(1).map(line), ...below].join('\n') + '\n'
}
