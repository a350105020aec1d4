// Renders the comparison data of compare.js as Markdown (stdout) and as a self-contained HTML page
// with the report page's charts overlaid per machine. Pure functions: data in, string out.
import { CHART_CONFIG, barSpec, renderSvg, spectrumRows, spectrumSpec } from '../report/charts.js'
import { figureHtml, msHtml, numHtml, page, pctHtml, table, whenHtml } from '../report/html.js'
import { isNum } from '../result/stats.js'
import { figure, wideSpread } from '../report/page.js'
import { esc, mdCode, mdText as mdEsc } from '../text/escape.js'
import { markdownTable } from '../report/markdown.js'
import {
  MISSING, fixedGrouped as f, latencyGrouped as lat, numGrouped, pctFixed, signedPct, timesGrouped
} from '../text/format.js'
import { timelineMarks, timelineRows, timelineSpec } from '../report/timeline-chart.js'
import { anyRegressed } from './compare.js'
import { VALIDATED } from './validated.js'
import { VERDICT_WORDS, noRulerText, ruleText, rulerLineText, validationText, verdictCell } from '../text/compare.js'
import { overloadHtml, overloadMarkdown } from './overload.js'
import { MARKS } from '../text/sentences.js'
import { PAIRED_LEAD, pairedAcrossTable } from '../text/paired.js'

// Markdown escaping of compare's text: the shared one of text/escape.js.
export { mdEsc }

// Each machine's ruler line, or that it has none (the machine cannot then be told apart).
function machineLines (cmp) {
  return cmp.reports.map((r, i) => {
    const line = cmp.machines?.rulers?.[i] ?? null
    return line ? `${r.letter}: ${rulerLineText(line)}` : noRulerText(r.letter, r.file)
  })
}

const GATE_MARK = {
  regressed: '✗ regressed',
  unverified: '✗ fails: its histogram contradicts its figures',
  'within noise': '≈ past the bound, within noise',
  machine: '✗ past the bound, put down to the machine (fails without --allow-machine)',
  'machine-allowed': '≈ past the bound, put down to the machine (passed by --allow-machine)',
  disturbed: '⚠ past the bound, no call (a run marked disturbed)',
  'within bound': '✓ within bound',
  'not comparable': `${MISSING} not comparable`
}

function gateFigure (g, v) {
  if (!isNum(v)) return MISSING
  if (g.metric === 'efficiency') return pctFixed(v, 1)
  return g.metric === 'rps' || g.metric === 'capacity' ? `${f(v, 1)} req/s` : `${lat(v, 'ms')} ms`
}

// One line per --fail-on verdict: the run, both figures, the change, the bound and what the noise rule said.
// `code` quotes the run's key: a Markdown code span by default, termCode for a terminal line.
export function gateLine (cmp, g, r, { code = mdCode } = {}) {
  const noise = r.noise
    ? r.noise.verdict === 'no-interval' ? 'raw ratio, no interval' : `verdict: ${VERDICT_WORDS[r.noise.verdict]}`
    : r.why
  const change = signedPct(r.change)
  const bound = `${g.sign}${+(g.bound * 100).toFixed(4)}%`
  const status = r.status === 'machine' && !r.fails ? 'machine-allowed' : r.status
  return `${GATE_MARK[status]}: ${cmp.reports[r.report].letter} ${code(r.key)} ${g.metric} ` +
    `${gateFigure(g, r.base)} → ${gateFigure(g, r.value)} (${change}, bound ${bound}; ${noise})`
}

function mark (c) {
  if (!c) return ''
  return c.status === 'failed' ? ' ✗' : c.trusted ? '' : ' ⚠'
}

function unitsLine (cmp) {
  return cmp.units === 'service'
    ? 'Latency in multiples of each machine\'s calibrated service time for the run\'s work ' +
      '(`calibration[work].serviceMs`), so machines compare on scheduling, not clock.'
    : 'Latency in ms.'
}

// The reports compared: letter, machine, experiment, start and file.
function reportsTable (cmp) {
  const rows = cmp.reports.map((r) => [
    { md: `**${r.letter}**${r.baseline ? ' (baseline)' : ''}` }, r.name, r.experiment, r.createdAt, r.file
  ])
  return markdownTable({ head: ['', 'machine', 'experiment', 'started', 'file'], rows })
}

// The machines by their paired ratios (text/paired.js pairedAcrossTable), first where two reports ran rounds:
// the table, each machine's ranking, the ratios apart.
function pairedAcrossOf (cmp) {
  const letters = cmp.reports.map((r) => r.letter)
  const cores = cmp.reports.map((r) => r.machine?.availableParallelism ?? null)
  return pairedAcrossTable(cmp.machines?.paired ?? null, { letters, baseline: cmp.baseline, cores })
}

function pairedAcrossSection (cmp) {
  const t = pairedAcrossOf(cmp)
  if (!t) return []
  const lines = t.notes.map((n) => `- ${mdEsc(n)}`)
  return ['## Machines by paired ratios', '', PAIRED_LEAD, '', markdownTable(t), ...lines, '']
}

// How to read the tables: units, ratios, marks, and what the noise verdicts rest on.
function howToRead (cmp, http) {
  const base = cmp.reports[cmp.baseline]
  const b = base.letter
  const howTo = http.length
    ? `${unitsLine(cmp)} Ratios are to the baseline, ${b}: req/s ×${b} above 1 is faster, ` +
      `p99 ×${b} below 1 is shorter.`
    : `Ratios are to the baseline, ${b}: mean ×${b} below 1 is faster.`
  const out = [`${howTo} ⚠ untrusted, ✗ failed (reasons below). ${MARKS}.`, '']
  if (http.length && cmp.reports.length > 1) {
    out.push(`Verdicts: ${ruleText()} ${validationText(VALIDATED)}`, '', ...machineLines(cmp).map((l) => `- ${l}`), '')
  }
  return out
}

// One report's cells of an HTTP row: figures, and against the baseline the ratios with their verdicts.
function httpCells (c, r, units) {
  if (!c) return ['not run', ...Array(5).fill(MISSING), ...(r.baseline ? [] : [MISSING, MISSING, MISSING])]
  const cells = [
    `${f(c.rps, 0)}${mark(c)}`,
    lat(c.p50, units),
    lat(c.p99, units),
    lat(c.max, units),
    f(c.errors, 0),
    pctFixed(c.efficiency)
  ]
  if (!r.baseline) cells.push(...['rps', 'p50', 'p99'].map((m) => verdictCell(c.verdicts?.[m])))
  return cells
}

// The HTTP runs: one column group per report.
function httpSection (cmp, http) {
  if (!http.length) return []
  const b = cmp.reports[cmp.baseline].letter
  const head = ['run', ...cmp.reports.flatMap((r) => [
    ...['req/s', 'p50', 'p99', 'max', 'errors', 'eff.'].map((h) => `${r.letter} ${h}`),
    ...(r.baseline ? [] : [`${r.letter} req/s ×${b}`, `${r.letter} p50 ×${b}`, `${r.letter} p99 ×${b}`])
  ])]
  const rows = http.map((row) => [
    { md: mdCode(row.key) }, ...row.cells.flatMap((c, i) => httpCells(c, cmp.reports[i], cmp.units))
  ])
  return ['## HTTP runs', '', markdownTable({ head, rows }, { numeric: true })]
}

// Was this row's run a capacity sweep in some report (a capacity, or a bound saying why none)?
function isSwept (row) {
  return row.cells.some((c) => c && (isNum(c.capacity) || c.capacityBound))
}

// A capacity cell's text: ≥ for a floor, "cannot meet (p99 172 ms @ 3.2)" for a target no rate met
// (null, never 0: result/capacity.js), none otherwise.
function capacityText (c, none, number) {
  if (c && isNum(c.capacity)) return `${c.capacityBound === 'at-least' ? '≥' : ''}${number(c.capacity, 1)}`
  if (c?.capacityBound === 'cannot-meet') {
    const fl = c.capacityFloor
    return fl && isNum(fl.p99) ? `cannot meet (p99 ${number(fl.p99, 1)} ms @ ${number(fl.rps, 1)})` : 'cannot meet'
  }
  return none
}

// A capacity ratio not computed: 'targets differ', or '-' for a bound (the note under the table says why).
function refusedText (c) {
  return c.capacityRefusedBy === 'targets-differ' ? 'targets differ' : '-'
}

// A capacity's ratio cell: refused (why), or the ratio with its verdict.
function capacityRatioText (c) {
  if (!c) return MISSING
  if (c.capacityRefused) return refusedText(c)
  if (!isNum(c.capacityRatio)) return MISSING
  const v = c.verdicts?.capacity ?? { ratio: c.capacityRatio, verdict: 'no-interval' }
  return verdictCell(v, { sign: c.capacityRatioSign ?? '' })
}

// The capacity runs: each report's capacity, its target and its ratio to the baseline's.
function capacitySection (cmp, http) {
  const swept = http.filter(isSwept)
  if (!swept.length) return []
  const b = cmp.reports[cmp.baseline].letter
  const head = ['run', ...cmp.reports.flatMap((r) => [
    `${r.letter} capacity req/s`, `${r.letter} target`, ...(r.baseline ? [] : [`${r.letter} capacity ×${b}`])
  ])]
  const rows = swept.map((row) => [{ md: mdCode(row.key) }, ...row.cells.flatMap((c, i) => {
    const cap = capacityText(c, MISSING, f)
    const cells = [cap, c ? lat(c.sloMs, 'ms') : MISSING]
    if (!cmp.reports[i].baseline) cells.push(capacityRatioText(c))
    return cells
  })])
  return [
    '## Capacity',
    '',
    'The highest open-loop rate each run held with p99 within its target and every request answered ' +
      '(the capacity experiment).',
    '',
    markdownTable({ head, rows }, { numeric: true })
  ]
}

// The head of the per-class table: per report req/s, p50, p99, failed and, beside the baseline, p99's ratio.
function classHead (cmp, name = (x) => x) {
  const b = cmp.reports[cmp.baseline].letter
  return ['run', 'class', ...cmp.reports.flatMap((r) => [
    ...['req/s', 'p50', 'p99', 'failed'].map((h) => `${name(r.letter)} ${h}`),
    ...(r.baseline ? [] : [`${name(r.letter)} p99 ×${name(b)}`])
  ])]
}

// A class's cells in one report: req/s, p50, p99 (ms, with its target where the class has one), failed
// requests (the one errors sum) and, beside the baseline, p99's ratio to the baseline's.
function classCells (c, report) {
  const p99 = c && isNum(c.p99) && c.sloMs
    ? `${lat(c.p99, 'ms')} ${c.p99 <= c.sloMs ? '≤' : '>'} ${c.sloMs}`
    : lat(c?.p99, 'ms')
  const cells = c ? [f(c.rps, 1), lat(c.p50, 'ms'), p99, String(c.failed)] : [MISSING, MISSING, MISSING, MISSING]
  if (!report.baseline) cells.push(c ? timesGrouped(c.p99Ratio) : MISSING)
  return cells
}

// A request mix's classes side by side: each class of each run, per report (--mix).
function classSection (cmp) {
  if (!cmp.classes?.length) return []
  const rows = cmp.classes.map((row) => [
    { md: mdCode(row.key) }, row.name, ...row.cells.flatMap((c, i) => classCells(c, cmp.reports[i]))
  ])
  return [
    '## Per class',
    '',
    'Each class of a request mix (--mix): its answers per second, p50 and p99 from the due time (with its ' +
      'target), failed requests, and p99 against the baseline\'s.',
    '',
    markdownTable({ head: classHead(cmp), rows }, { numeric: true })
  ]
}

// The head of the per-phase table: per report the phase's mean and its time in the p99 request (ms), and
// beside the baseline both ratios.
function phaseHead (cmp, name = (x) => x) {
  const b = cmp.reports[cmp.baseline].letter
  return ['run', 'phase', ...cmp.reports.flatMap((r) => [
    `${name(r.letter)} mean`, `${name(r.letter)} at p99`,
    ...(r.baseline ? [] : [`${name(r.letter)} mean ×${name(b)}`, `${name(r.letter)} at p99 ×${name(b)}`])
  ])]
}

// A phase's cells in one report (phaseHead's columns).
function phaseCells (c, report) {
  const cells = c ? [lat(c.mean, 'ms'), lat(c.p99At, 'ms')] : [MISSING, MISSING]
  if (!report.baseline) cells.push(c ? timesGrouped(c.meanRatio) : MISSING, c ? timesGrouped(c.p99AtRatio) : MISSING)
  return cells
}

const PHASE_LEAD = 'Where the time went (docs/attribution.md): each phase\'s mean over the stamped requests and its ' +
  'time in the request at the latency\'s p99, and both against the baseline\'s.'

// Each run's phases side by side, with their ratios to the baseline's.
function phaseSection (cmp) {
  if (!cmp.phases?.length) return []
  const rows = cmp.phases.map((row) => [
    { md: mdCode(row.key) }, row.phase, ...row.cells.flatMap((c, i) => phaseCells(c, cmp.reports[i]))
  ])
  return ['## Per phase', '', PHASE_LEAD, '', markdownTable({ head: phaseHead(cmp), rows }, { numeric: true })]
}

// The machines side by side (compare/compare.js machinesOf): per report its ruler line and its ranking of
// the strategies, then where the ranking or the decision flips against the baseline's machine.
function machinesSection (cmp) {
  const m = cmp.machines
  if (!m || cmp.reports.length < 2 || !m.rankings.some((r) => r.order.length > 1)) return []
  const rows = cmp.reports.map((r, i) => [
    { md: `**${r.letter}**` }, rulerLineText(m.rulers[i]), m.rankings[i].figure ?? MISSING,
    { md: m.rankings[i].order.map((k) => mdCode(k)).join(' > ') || MISSING }
  ])
  const out = ['## Machines', '', markdownTable({ head: ['', 'ruler', 'ranked by', 'ranking'], rows }), '']
  const letterOf = (i) => cmp.reports[i].letter
  const base = letterOf(cmp.baseline)
  for (const d of m.decisions) {
    out.push(`- decision flips on ${letterOf(d.report)}: ${mdCode(d.now)} comes first (on ${base}: ${mdCode(d.was)})` +
      (d.sure ? '' : '; within noise on one machine at least'))
  }
  for (const f of m.flips) {
    out.push(`- ranking flips on ${letterOf(f.report)}: ${mdCode(f.below)} over ${mdCode(f.above)} ` +
      `(on ${base} under it)` +
      (f.sure ? '' : '; within noise on one machine at least'))
  }
  if (!m.flips.length && !m.decisions.length) out.push(`- the ranking is the same on every machine as on ${base}`)
  out.push('')
  return out
}

// The in-process cases (dispatch, ssr-offload): mean time of a batch and the ratio to the baseline's.
function dispatchSection (cmp) {
  const dispatch = cmp.rows.filter((r) => r.kind === 'dispatch')
  if (!dispatch.length) return []
  const b = cmp.reports[cmp.baseline].letter
  const head = ['case', ...cmp.reports.flatMap((r) => [
    `${r.letter} mean ms`, ...(r.baseline ? [] : [`${r.letter} ×${b}`])
  ])]
  const rows = dispatch.map((row) => [{ md: mdCode(row.key) }, ...row.cells.flatMap((c, i) => [
    c ? `${lat(c.meanMs, 'ms')}${mark(c)}` : 'not run',
    ...(cmp.reports[i].baseline ? [] : [c && isNum(c.meanRatio) ? timesGrouped(c.meanRatio) : MISSING])
  ])])
  return ['## In-process cases', '', markdownTable({ head, rows }, { numeric: true })]
}

// The --fail-on bounds, the flagged runs and the notes.
function verdictSections (cmp) {
  const out = []
  if (cmp.gates?.length) {
    out.push('## Gates (--fail-on)', '', 'A bound fails when a run of a report regresses past it against the ' +
      'baseline and its verdict is worse (or it has no interval), or is put down to the machine (unless ' +
      '--allow-machine); within noise, it does not.', '')
    for (const g of cmp.gates) {
      out.push(`- ${mdCode(g.spec)}${g.runs.length ? '' : ': no run in common with the baseline'}`)
      for (const r of g.runs) out.push(`  - ${gateLine(cmp, g, r)}`)
    }
    out.push('')
  }
  if (cmp.flags.length) {
    out.push('## Flagged runs', '')
    for (const fl of cmp.flags) {
      out.push(
        `- ${fl.status === 'failed' ? '✗ failed' : '⚠ untrusted'}: ${cmp.reports[fl.report].letter} ` +
          `${mdCode(fl.key)}: ${mdEsc(fl.why.join('; ') || 'no reason given')}`
      )
    }
    out.push('')
  }
  if (cmp.notes.length) out.push('## Notes', '', ...cmp.notes.map((n) => `- ${mdEsc(n)}`), '')
  return out
}

// The comparison as Markdown: the reports and their machines, one column group per report, ratios
// to the baseline, then the flagged runs and notes. Every free text is escaped (text/escape.js).
export function renderCompareMarkdown (cmp) {
  const http = cmp.rows.filter((r) => r.kind === 'http')
  return [
    '# loadlab compare',
    '',
    reportsTable(cmp),
    ...pairedAcrossSection(cmp),
    ...howToRead(cmp, http),
    ...httpSection(cmp, http),
    ...capacitySection(cmp, http),
    ...classSection(cmp),
    ...phaseSection(cmp),
    ...overloadMarkdown(cmp, http),
    ...dispatchSection(cmp),
    ...machinesSection(cmp),
    ...verdictSections(cmp)
  ].join('\n')
}

function reportCard (r) {
  const m = r.machine ?? {}
  const meth = r.method ?? {}
  const load = isNum(meth.amount)
    ? `${numHtml(meth.amount)} requests`
    : isNum(meth.durationSec)
      ? `${numHtml(meth.durationSec)} s`
      : MISSING
  const badge = r.baseline ? ' <span class="badge complete">baseline</span>' : ''
  const tool = meth.tool === 'in-process'
    ? 'in-process (no HTTP)'
    : `${esc(meth.tool) || MISSING} ${esc(meth.toolVersion)} · ${numHtml(meth.connections)} connections · ${load}`
  const title = `${esc(r.letter)} · ${esc(r.name)}${badge}`
  return `<section class="card" aria-label="report ${esc(r.letter)}"><h2>${title}</h2><dl>
<dt>CPU</dt><dd>${esc(m.cpuModel) || MISSING} · ${numHtml(m.cores)} cores</dd>
<dt>host</dt><dd>${esc(m.hostname) || MISSING}</dd>
<dt>Node</dt><dd>${esc(m.node) || MISSING} · ${esc(m.os?.type)} ${esc(m.os?.release)}</dd>
<dt>load</dt><dd>${tool}</dd>
<dt>run</dt><dd>${whenHtml(r.createdAt)} · ${esc(r.experiment)}</dd>
<dt>file</dt><dd><code>${esc(r.file)}</code></dd>
</dl>${meth.command ? `<pre class="command"><code>${esc(meth.command)}</code></pre>` : ''}</section>`
}

function cellMark (c) {
  if (!c || c.trusted) return ''
  return c.status === 'failed'
    ? ' <span class="bad" title="failed">✗</span>'
    : ' <span class="warn-text" title="untrusted">⚠</span>'
}

// A ratio with its verdict, coloured only when the rule calls it better or worse (never from the ratio
// alone); `v` a verdict of result/verdict.js, or a bare ratio (in-process cases) shown uncoloured.
function ratioHtml (v, { sign = '' } = {}) {
  if (!isNum(v?.ratio)) return figureHtml(MISSING)
  const cls = v.verdict === 'better' ? 'ratio-up' : v.verdict === 'worse' ? 'ratio-down' : ''
  const title = VERDICT_WORDS[v.verdict] ?? ''
  return `<span class="${cls}" data-verdict="${esc(v.verdict ?? '')}" title="${esc(title)}">` +
    `${esc(verdictCell(v, { sign }))}</span>`
}

function latHtml (v, units) {
  return figureHtml(lat(v, units))
}

function httpTable (cmp, rows) {
  const base = cmp.reports[cmp.baseline]
  const groupHead = `<tr><th></th>${cmp.reports.map((r) => `<th class="group" colspan="${r.baseline ? 6 : 9}">` +
    `${esc(r.letter)} · ${esc(r.name)}${r.baseline ? ' (baseline)' : ''}</th>`).join('')}</tr>`
  const cols = ['req/s', 'p50', 'p99', 'max', 'errors', 'eff.']
  const subHead = `<tr><th>run</th>${cmp.reports
    .map((r) =>
      [...cols, ...(r.baseline ? [] : ['req/s', 'p50', 'p99'].map((m) => `${m} ×${base.letter}`))]
        .map((h, j) => `<th${j === 0 ? ' class="gstart"' : ''}>${esc(h)}</th>`)
        .join('')
    )
    .join('')}</tr>`
  const body = rows
    .map((row) => {
      const tds = row.cells
        .map((c, i) => {
          const r = cmp.reports[i]
          const n = r.baseline ? 6 : 9
          if (!c) return `<td class="gstart muted">not run</td>${'<td></td>'.repeat(n - 1)}`
          const vals = [
            `${numHtml(c.rps, 0)}${cellMark(c)}`,
            latHtml(c.p50, cmp.units),
            latHtml(c.p99, cmp.units),
            latHtml(c.max, cmp.units),
            c.errors ? `<span class="bad">${numHtml(c.errors)}</span>` : numHtml(c.errors),
            pctHtml(c.efficiency)
          ]
          if (!r.baseline) vals.push(...['rps', 'p50', 'p99'].map((m) => ratioHtml(c.verdicts?.[m])))
          return vals.map((v, j) => `<td${j === 0 ? ' class="gstart"' : ''}>${v}</td>`).join('')
        })
        .join('')
      const flagged = row.cells.some((c) => c && !c.trusted)
      return `<tr${flagged ? ' class="untrusted"' : ''}><td class="text"><code>${esc(row.key)}</code></td>${tds}</tr>`
    })
    .join('\n')
  const caption = `${unitsLine(cmp).replace(/`/g, '')} Ratios are to ${base.letter}; green is better, red worse. ` +
    `${ruleText()} ${validationText(VALIDATED)} ⚠ untrusted, ✗ failed.`
  return `<div class="table-wrap"><table class="compare"><caption>${esc(caption)}</caption>` +
    `<thead>${groupHead}${subHead}</thead><tbody>
${body}
</tbody></table></div>`
}

function charts (cmp, rows) {
  const yTitle = cmp.units === 'service' ? 'latency (× calibrated service time)' : 'latency (ms)'
  const pts = []
  const lines = new Set()
  for (const row of rows) {
    row.cells.forEach((c, i) => {
      if (!c || c.status === 'failed') return
      const got = spectrumRows(c.percentiles, {
        machine: `${cmp.reports[i].letter} · ${cmp.reports[i].name}`,
        run: row.key,
        line: `${i}|${row.key}`
      })
      if (got.length > 1) {
        for (const p of got) pts.push(p)
        lines.add(`${i}|${row.key}`)
      }
    })
  }
  const out = []
  if (pts.length) {
    const logY = wideSpread(pts, 'line')
    out.push(
      figure(
        'spectrum',
        renderSvg(
          spectrumSpec(pts, { color: 'machine', colorTitle: 'machine', dash: 'run', dashTitle: 'run', yTitle, logY }),
          { id: 'spectrum' }
        ),
        '<b>Latency by percentile</b>, overlaid: colour is the machine, dash the run. x: log of 1/(1−p), as ' +
          'HdrHistogram plots it.' +
          (logY ? ' The latency axis is logarithmic: the lines differ by more than 20× at p99.' : ''),
        { lines: lines.size }
      )
    )
  }
  const bars = (get, id, xTitle, format, caption, extra = {}) => {
    const data = []
    for (const row of rows) {
      row.cells.forEach((c, i) => {
        const v = c && c.status !== 'failed' ? get(c) : null
        const machine = `${cmp.reports[i].letter} · ${cmp.reports[i].name}`
        if (isNum(v)) data.push({ run: row.key, machine, value: v })
      })
    }
    if (!data.length) return ''
    return figure(
      id,
      renderSvg(barSpec(data, { xTitle, format, group: 'machine', groupTitle: 'machine', width: 420, ...extra }), {
        id
      }),
      caption,
      { bars: data.length }
    )
  }
  const rpsBars = bars((c) => c.rps, 'rps', 'requests/s', ',.0f',
    '<b>Requests per second</b> per run and machine. Higher is better.')
  const p99Bars = bars((c) => c.p99, 'p99', cmp.units === 'service' ? 'p99 (× service time)' : 'p99 (ms)', ',.2f',
    '<b>p99 latency</b> per run and machine. Lower is better.')
  out.push(`<div class="charts-row">${rpsBars}\n${p99Bars}</div>`)
  for (const o of timelineOverlays(cmp, rows)) out.push(o)
  out.push(
    bars(
      (c) => c.efficiency,
      'efficiency',
      'share of the ideal throughput',
      '.0%',
      '<b>Efficiency</b> against each machine\'s own ideal (its cores and calibrated service time). ' +
        'The dashed line is 100%.',
      { rule: 1, width: 900 }
    )
  )
  return out.join('\n')
}

// Most reports the page's charts draw: the baseline and the first others. Each drawn report costs about
// 17 MB of memory and 0.4 MB of page (its timelines, overlaid per run); past this the tables still hold every
// report, the charts these, so 60 reports stay under 300 MB and the page opens in a browser.
export const CHARTED_REPORTS = 3

// The comparison as the charts see it: every report's cells past CHARTED_REPORTS emptied (null), the
// baseline always drawn. { cmp, only (the rows given, as drawn), left (how many reports are not drawn) }.
function chartedView (cmp) {
  const drawn = new Set([cmp.baseline, ...cmp.reports.map((_, i) => i).filter((i) => i !== cmp.baseline)]
    .slice(0, CHARTED_REPORTS))
  const left = cmp.reports.length - drawn.size
  if (!left) return { cmp, only: (rows) => rows, left, drawn }
  const cells = (row) => row.cells.map((c, i) => (drawn.has(i) ? c : null))
  const cut = new Map(cmp.rows.map((row) => [row, { ...row, cells: cells(row) }]))
  return { cmp: { ...cmp, rows: [...cut.values()] }, only: (rows) => rows.map((r) => cut.get(r)), left, drawn }
}

// The page's note on the reports its charts leave out.
function chartedNote (cmp, { drawn, left }) {
  const letters = [...drawn].sort((a, b) => a - b).map((i) => cmp.reports[i].letter).join(', ')
  return `the charts draw ${drawn.size} of the ${cmp.reports.length} reports (${letters}; at most ` +
    `${CHARTED_REPORTS}, to keep the page one a browser opens); the tables hold all ${cmp.reports.length}, ` +
    `${left} of them not drawn`
}

// One figure per run that two or more reports kept a timeline of: their timelines overlaid on one time
// axis (colour: the report; latency shown as p99 only, so that the lines stay readable).
function timelineOverlays (cmp, rows) {
  const out = []
  rows.forEach((row, k) => {
    const rowsOf = []
    const marks = []
    row.cells.forEach((c, i) => {
      if (!c?.timeline) return
      const series = `${cmp.reports[i].letter} · ${cmp.reports[i].name}`
      for (const r of timelineRows(c.timeline, series)) if (r.panel !== 'latency' || r.metric === 'p99') rowsOf.push(r)
      marks.push(timelineMarks(c.timeline, series))
    })
    if (marks.length < 2) return
    const svg = renderSvg(timelineSpec(rowsOf, marks), { id: `timeline-${k + 1}` })
    out.push(
      figure(
        'timeline',
        svg,
        `<b>${esc(row.key)}</b> in time, overlaid: colour is the report, dash the metric; latency is the p99 of ` +
          'each interval. Dashed rules: the end of each round; shaded: recovery.',
        { server: row.key, lines: marks.length }
      )
    )
  })
  return out
}

function dispatchChart (cmp, rows) {
  const data = []
  for (const row of rows) {
    row.cells.forEach((c, i) => {
      const machine = `${cmp.reports[i].letter} · ${cmp.reports[i].name}`
      if (c && isNum(c.meanMs)) data.push({ run: row.key, machine, value: c.meanMs })
    })
  }
  if (!data.length) return ''
  return figure(
    'dispatch',
    renderSvg(
      barSpec(data, {
        xTitle: 'mean time of the batch (ms)',
        format: ',.1f',
        group: 'machine',
        groupTitle: 'machine',
        width: 760
      }),
      { id: 'dispatch' }
    ),
    '<b>In-process cases</b> (dispatch, ssr-offload): mean time of one batch per case and machine. Lower is better.',
    { bars: data.length }
  )
}

function dispatchTable (cmp, rows) {
  const base = cmp.reports[cmp.baseline]
  const head = [
    'case',
    ...cmp.reports.flatMap((r) =>
      r.baseline ? [`${esc(r.letter)} mean ms`] : [`${esc(r.letter)} mean ms`, `${esc(r.letter)} ×${esc(base.letter)}`]
    )
  ]
  const body = rows.map((row) => [
    { html: `<code>${esc(row.key)}</code>`, className: 'text' },
    ...row.cells.flatMap((c, i) => {
      const v = c ? `${msHtml(c.meanMs)}${cellMark(c)}` : '<span class="muted">not run</span>'
      return cmp.reports[i].baseline ? [v] : [v, c ? ratioHtml({ ratio: c.meanRatio }) : figureHtml(MISSING)]
    })
  ])
  return table(head, body, { className: 'dispatch' })
}

// A capacity's ratio cell on the page (capacityRatioText's, coloured by its verdict).
function capacityRatioHtml (c) {
  if (!c || c.capacityRefused || !isNum(c.capacityRatio)) return esc(capacityRatioText(c))
  return ratioHtml(c.verdicts?.capacity ?? { ratio: c.capacityRatio, verdict: 'no-interval' },
    { sign: c.capacityRatioSign ?? '' })
}

// Capacity per run and report, with its ratio to the baseline (only when some report swept rates).
function capacityTable (cmp, http) {
  const swept = http.filter(isSwept)
  if (swept.length === 0) return ''
  const base = cmp.reports[cmp.baseline]
  const head = [
    'run',
    ...cmp.reports.flatMap((r) =>
      r.baseline
        ? [`${esc(r.letter)} capacity req/s`, `${esc(r.letter)} target ms`]
        : [`${esc(r.letter)} capacity req/s`, `${esc(r.letter)} target ms`, `${esc(r.letter)} ×${esc(base.letter)}`]
    )
  ]
  const body = swept.map((row) => [
    `<code>${esc(row.key)}</code>`,
    ...row.cells.flatMap((c, i) => {
      const cap = esc(capacityText(c, MISSING, numGrouped))
      const cells = [cap, c ? msHtml(c.sloMs) : MISSING]
      if (!cmp.reports[i].baseline) cells.push(capacityRatioHtml(c))
      return cells
    })
  ])
  return '<section class="block"><h2>Capacity</h2><p class="lead">The highest open-loop rate each run held with p99 ' +
    `within its target and every request answered.</p>${table(head, body, { className: 'capacity' })}</section>`
}

// A request mix's classes side by side (--mix), as the Markdown's "Per class".
function classTable (cmp) {
  if (!cmp.classes?.length) return ''
  const body = cmp.classes.map((row) => [
    `<code>${esc(row.key)}</code>`, esc(row.name),
    ...row.cells.flatMap((c, i) => classCells(c, cmp.reports[i]).map(esc))
  ])
  return '<section class="block"><h2>Per class</h2><p class="lead">Each class of a request mix: answers per second, ' +
    'p50 and p99 from the due time (with its target), failed requests, and p99 against the baseline\'s.</p>' +
    `${table(classHead(cmp, esc), body, { className: 'classes' })}</section>`
}

// Each run's phases side by side (the Markdown's "Per phase").
function phaseTable (cmp) {
  if (!cmp.phases?.length) return ''
  const body = cmp.phases.map((row) => [
    `<code>${esc(row.key)}</code>`, esc(row.phase),
    ...row.cells.flatMap((c, i) => phaseCells(c, cmp.reports[i]).map(esc))
  ])
  return `<section class="block"><h2>Per phase</h2><p class="lead">${esc(PHASE_LEAD)}</p>` +
    `${table(phaseHead(cmp, esc), body, { className: 'phases' })}</section>`
}

// Each strategy's req/s (or capacity) against the ruler's effective cores, one line per strategy across
// the machines that carry a ruler; '' with fewer than two such machines.
export function coresSpec (cmp) {
  const m = cmp.machines
  const values = []
  for (const row of cmp.rows.filter((r) => r.kind === 'http')) {
    row.cells.forEach((c, i) => {
      const cores = m?.rulers?.[i]?.['cores.effective']?.value
      const figure = m?.rankings?.[i]?.figure
      const v = c && figure ? c[figure] : null
      if (isNum(cores) && isNum(v)) values.push({ strategy: row.key, cores, value: v, machine: cmp.reports[i].letter })
    })
  }
  if (new Set(values.map((v) => v.machine)).size < 2) return null
  const figure = m.rankings.find((r) => r.figure)?.figure
  return {
    width: 640,
    height: 300,
    data: { values },
    mark: { type: 'line', point: { filled: true, size: 50 } },
    encoding: {
      x: { field: 'cores', type: 'quantitative', title: 'effective cores (the ruler)', scale: { zero: true } },
      y: { field: 'value', type: 'quantitative', title: figure === 'capacity' ? 'capacity (req/s)' : 'req/s' },
      color: { field: 'strategy', type: 'nominal', title: 'run', sort: null },
      order: { field: 'cores', type: 'quantitative' },
      tooltip: [{ field: 'machine' }, { field: 'strategy' }, { field: 'value', format: ',.1f' }]
    },
    config: CHART_CONFIG
  }
}

// The machines on the page: the Markdown section's table and flips, and the chart against the cores.
function machinesHtml (cmp) {
  const md = machinesSection(cmp)
  if (!md.length) return ''
  const m = cmp.machines
  const body = cmp.reports.map((r, i) => [
    `<b>${esc(r.letter)}</b>`, esc(rulerLineText(m.rulers[i])), esc(m.rankings[i].figure ?? MISSING),
    m.rankings[i].order.map((k) => `<code>${esc(k)}</code>`).join(' &gt; ') || MISSING
  ])
  const items = md.filter((l) => l.startsWith('- ')).map((l) => `<li>${esc(l.slice(2).replace(/`/g, ''))}</li>`)
  const spec = coresSpec(cmp)
  const chart = spec
    ? figure('cores', renderSvg(spec, { id: 'cores' }), '<b>Each run against the ruler\'s effective cores</b>: ' +
      'one point per machine that carries a ruler.', { lines: new Set(spec.data.values.map((v) => v.strategy)).size })
    : ''
  return '<section class="block" data-section="machines"><h2>Machines</h2>' +
    `${table(['', 'ruler', 'ranked by', 'ranking'], body, { className: 'machines' })}<ul>${items.join('')}</ul>` +
    `${chart}</section>`
}

// The machines by their paired ratios on the page: the Markdown section's table and lines.
function pairedAcrossHtml (cmp) {
  const t = pairedAcrossOf(cmp)
  if (!t) return ''
  const body = table(t.head.map((h) => esc(h)), t.rows.map((r) => r.map((c) => esc(c))), { className: 'paired' })
  const lines = t.notes.map((n) => `<li>${esc(n)}</li>`).join('')
  return '<section class="block" data-section="paired"><h2>Machines by paired ratios</h2>' +
    `<p class="lead">${esc(PAIRED_LEAD)}</p>${body}<ul>${lines}</ul></section>`
}

// The comparison as a self-contained HTML page: report cards, overlaid charts, the grouped table.
export function renderCompareHtml (cmp) {
  const http = cmp.rows.filter((r) => r.kind === 'http')
  const dispatch = cmp.rows.filter((r) => r.kind === 'dispatch')
  const drawn = chartedView(cmp)
  const httpCharts = http.length ? charts(drawn.cmp, drawn.only(http)) : ''
  const flags = cmp.flags.length
    ? `<div class="notice" data-flag="untrusted"><h3>⚠ Runs not to be taken at face value</h3><ul>${cmp.flags
        .map(
          (fl) =>
            `<li>${fl.status === 'failed' ? '<span class="bad">✗ failed</span>' : '⚠ untrusted'}: ` +
            `<b>${esc(cmp.reports[fl.report].letter)}</b> <code>${esc(fl.key)}</code>: ` +
            `${esc(fl.why.join('; ') || 'no reason given')}</li>`
        )
        .join('')}</ul></div>`
    : ''
  const pageNotes = [...(drawn.left ? [chartedNote(cmp, drawn)] : []), ...cmp.notes]
  const notes = pageNotes.length
    ? `<div class="notice info"><h3>Notes</h3><ul>${pageNotes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>`
    : ''
  const gates = cmp.gates?.length
    ? `<div class="notice${anyRegressed(cmp) ? ' failed' : ' info'}" data-flag="gates">` +
      `<h3>Gates (--fail-on)</h3><ul>${cmp.gates
        .flatMap((g) =>
          g.runs.length
            ? g.runs.map((r) => `<li data-gate="${esc(r.status)}">${esc(gateLine(cmp, g, r))}</li>`)
            : [`<li>${esc(g.spec)}: no run in common with the baseline</li>`]
        )
        .join('')}</ul></div>`
    : ''
  const sub = `${cmp.reports.length} reports, ${cmp.rows.length} runs in common`
  const inProcess = dispatch.length
    ? '<section class="block"><h2>In-process cases</h2>' +
      `${dispatchChart(drawn.cmp, drawn.only(dispatch))}${dispatchTable(cmp, dispatch)}</section>`
    : ''
  const body = `<header class="top"><h1>loadlab compare <span class="sub">${sub}</span></h1></header>
<div class="cards">${cmp.reports.map(reportCard).join('')}</div>
${gates}${flags}${notes}
${pairedAcrossHtml(cmp)}
${http.length ? `<section class="block"><h2>HTTP runs</h2>${httpCharts}${httpTable(cmp, http)}</section>` : ''}
${capacityTable(cmp, http)}${classTable(cmp)}${phaseTable(cmp)}${machinesHtml(cmp)}
${overloadHtml(cmp, http)}
${inProcess}
<footer>Written by <code>npm run compare</code>. Charts rendered with Vega-Lite; this page loads nothing from the ` +
  'network.</footer>'
  return page({ title: `loadlab compare: ${cmp.reports.map((r) => r.name).join(' vs ')}`, body })
}
