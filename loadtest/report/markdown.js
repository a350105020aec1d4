// The Markdown summary of a report: the decision first, then the tables and what is not to be trusted,
// the machine and the method last (each figure still states its method, below). A pure function of the report.
import { classTable, reportTable, whyOf } from './table.js'
import { pairedTable } from '../text/paired.js'
import { mdFence, mdSpan, mdText } from '../text/escape.js'
import { runtimeName } from '../result/runtime.js'
import { classTargetsText, holdsText } from '../text/sentences.js'
import { thresholdRows } from './thresholds.js'
import { decisionMarkdown } from './decision.js'
import { bracketText, pastCapacityTable } from '../text/decision.js'
import { pastConfigs } from './decision-figures.js'
import { MISSING, fmtRounded as n, mibGib } from '../text/format.js'
import { boundText, lowerBound } from '../text/reasons.js'
import { rulerLine, rulerMethodLine, rulerMovedLine, rulerRows } from '../text/ruler.js'

// A calibration's row name: its work spec, and its runtime under --node.
function calibrationName (c) {
  return c.runtime ? `${c.spec} on ${c.runtimeName ?? c.runtime}` : c.spec
}

// Render { head, rows } as a Markdown table. A cell is text (escaped here) or { md } already in Markdown
// (a code span from mdCode, which keeps a `|` in its cell); `numeric` right-aligns every column but the first.
export function markdownTable ({ head, rows }, { numeric = false } = {}) {
  const cell = (c) => (typeof c === 'object' && c !== null && 'md' in c ? c.md : mdText(c))
  const rule = (_, i) => (numeric && i > 0 ? '---:' : '---')
  return (
    [
      `| ${head.map(mdText).join(' | ')} |`,
      `| ${head.map(rule).join(' | ')} |`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)
    ].join('\n') + '\n'
  )
}

// The report's title, the experiment's name and its status line (its description goes to the method, last).
function headSection (report, experiment) {
  const out = [`# loadlab report: ${mdText(report.experiment)}${report.label ? ` (${mdText(report.label)})` : ''}`, '']
  const what = experiment?.title ? `**${mdText(experiment.title)}**. ` : ''
  out.push(
    `${what}Status: **${mdText(report.status)}**. Started ${mdText(report.createdAt)}, ` +
      `finished ${mdText(report.finishedAt ?? MISSING)}. Schema ${mdText(report.schema)}, id ${mdSpan(report.id)}.`,
    ''
  )
  return out
}

// What the experiment does, in its own words: the method's first paragraph.
function descriptionLines (experiment) {
  return experiment?.description ? [experiment.description, ''] : [] // the project's own Markdown
}

// The machine the report was measured on, and its ruler (read before and after the run) when it has one.
function machineSection (m, ruler) {
  return [
    '## Machine',
    '',
    `- **Machine:** ${mdText(m.cpuModel)}, ${m.cores} cores ` +
      `(availableParallelism ${m.availableParallelism}), ${mibGib(m.memoryBytes)} ` +
      `RAM, ${mdText(m.os.type)} ${mdText(m.os.release)} ${mdText(m.arch)}, host ${mdSpan(m.hostname)}`,
    `- **Node:** ${m.node} (V8 ${m.v8})${m.nodeSupported ? ` (supported: ${m.nodeSupported})` : ''}; ` +
      `fastify ${m.versions.fastify}, piscina ${m.versions.piscina}, autocannon ${m.versions.autocannon}, ` +
      `react ${m.versions.react}`,
    `- **Load average at start:** ${m.loadavg.join(', ')}`,
    ...rulerLines(ruler),
    ''
  ]
}

// The ruler's lines of the machine section: one line, a marked one when it moved, its table and method.
function rulerLines (ruler) {
  if (!ruler?.start) return []
  const moved = rulerMovedLine(ruler)
  const [head, ...rows] = rulerRows(ruler)
  return [
    `- **Ruler:** ${mdText(rulerLine(ruler))}`,
    ...(moved ? [`- ⚠ **${mdText(moved)}**`] : []),
    '',
    markdownTable({ head, rows }),
    mdText(rulerMethodLine(ruler))
  ]
}

// How the figures were measured: what the experiment does, the command, the task, the runtimes, the load
// and the target.
function methodSection (me, m, experiment) {
  const out = ['## Method', '', ...descriptionLines(experiment), `- **Command:** ${mdSpan(me.command)}`]
  if (me.task) out.push(taskLine(me.task))
  if (Array.isArray(me.runtimes)) {
    const list = me.runtimes.map((r) => `${runtimeName(r)} (${r.engine ?? `V8 ${r.v8}`})`).join(', ')
    out.push(`- **Servers and calibration under:** ${list}; the load generator on the lab's ${m.node}`)
  }
  if (me.tool === 'in-process') {
    out.push(`- **Load:** in-process, no HTTP; ${me.runs} run(s) per case`, '')
    return out
  }
  const load = me.amount !== null && me.amount !== undefined ? `${me.amount} requests` : `${me.durationSec} s`
  out.push(
    `- **Load:** ${me.tool} ${me.toolVersion ?? ''}, ${me.connections} connections, ${load} per measured ` +
      `round, ${me.timeoutSec} s timeout, ` +
      `warm-up ${me.warmup ? `${me.warmup.amount} requests (discarded)` : 'none'}, ${me.runs} measured round(s) ` +
      `per server${me.runs > 1 ? ' (figures: the median round)' : ''}`,
    `- **Target:** ${me.url ? mdSpan(me.url) : 'servers started by the lab on 127.0.0.1, one at a time'}; outside ` +
      `sampling (${me.sampler === 'ps' ? 'ps' : '/proc'}) ${me.outsideSampling ? 'on' : 'off'}; recovery request ` +
      `after each round: ${me.recovery ? `on (timeout ${me.recovery.timeoutSec} s)` : 'off'}`,
    '- requests/s are timed by the lab from the first request sent to the last response; latency in ms; every 2xx ' +
      'body is compared with the expected one',
    ''
  )
  return out
}

// The calibration table: each work spec's single-thread time.
function calibrationSection (calibration) {
  const cal = Object.values(calibration ?? {})
  if (!cal.length) return []
  const row = (c) =>
    c.error
      ? [calibrationName(c), MISSING, 'error', c.error, '', '', '', '', '']
      : [
          calibrationName(c),
          String(c.calls),
          String(c.serviceMs ?? c.medianMs),
          c.spreadPct === undefined || c.spreadPct === null ? MISSING : `${c.spreadPct} %`,
          String(c.medianMs),
          String(c.minMs),
          String(c.maxMs),
          String(c.firstMs),
          c.method === 'declared' ? 'declared (sleep)' : c.tierShift ? 'yes' : 'no'
        ]
  const head = ['work', 'calls', 'service ms', 'spread', 'median ms', 'min', 'max', 'first', 'tier shift']
  return ['## Calibration (single thread, one long-lived process)', '', markdownTable({ head, rows: cal.map(row) })]
}

// What is not to be taken at face value, and each failure with its exit and last stderr lines (the
// reasons in the terminal's words: table.js whyOf).
function troubleSection (results) {
  const out = []
  const why = whyOf(results)
  const bad = why.filter((w) => w.mark === '!')
  if (bad.length) {
    out.push('## Not to be taken at face value', '')
    for (const w of bad) out.push(`- ${mdSpan(w.key)}: ${mdText(w.text)}`)
    out.push('')
  }
  for (const w of why.filter((x) => x.mark === '✗')) {
    const r = results.find((x) => x.key === w.key && x.failure)
    out.push(`### Failure: ${mdSpan(w.key)}`, '', mdText(w.text))
    if (r.failure.stderrTail?.length) out.push('', ...mdFence(r.failure.stderrTail))
    out.push('')
  }
  return out
}

// The target a sweep was judged by: each class's own where a request mix's classes decided, else the run's.
function sweepTarget (r) {
  const own = classTargetsText(r)
  return own
    ? `each class at its own: ${own}`
    : `p${r.capacity.percentile} ≤ ${r.capacity.sloMs} ms ` +
    `(${r.capacity.sloRule})`
}

// The capacity sweeps: the one target, the rule, and every step with its noise (disturbed ones marked).
function capacitySection (results) {
  const swept = results.filter((r) => r.capacity?.steps?.length)
  if (!swept.length) return []
  const targets = [...new Set(swept.map(sweepTarget))]
  const head = [
    'server', 'step', 'kind', 'offered req/s', 'p99 ms', 'lag p99 ms', 'requests', 'over target', 'holds', 'steal %',
    'foreign cores', 'work ×', 'own contention', 'disturbed by'
  ]
  const rows = swept.flatMap((r) => r.capacity.steps.map((st) => [
    r.server, String(st.index + 1), st.kind ?? MISSING, n(st.rate, 1), n(st.p99, 1), n(st.lagP99, 1), n(st.n, 0),
    n(st.over, 0), holdsText(st), n(st.noise?.stealPct, 1), n(st.noise?.foreignCores), n(st.noise?.workInflation),
    st.contention?.text ?? '', (st.disturbedBy ?? []).join(', ')
  ]))
  return [
    '## Capacity sweeps',
    '',
    `- **Target:** ${mdText(targets.join('; '))}`,
    `- **Rule:** ${mdText(swept[0].capacity.rule)}`,
    '',
    markdownTable({ head, rows }),
    ''
  ]
}

// Capacity at each target (a capacity report with several), one row per result: the curve the decision reads.
function targetsTable (results) {
  const swept = results.filter((r) => (r.capacity?.targets?.length ?? 0) > 1)
  if (!swept.length) return []
  const slos = [...new Set(swept.flatMap((r) => r.capacity.targets.map((t) => t.sloMs)))].sort((a, b) => a - b)
  const none = (t) => (t.bound === 'cannot-meet' ? 'cannot meet' : mdText(boundText(t)))
  const cell = (t) => !t
    ? MISSING
    : t.rps === null ? none(t) : `${lowerBound(t) ? '≥' : ''}${t.rps.toFixed(1)} (${bracketText(t)})`
  const rows = swept.map((r) => [r.key, ...slos.map((s) => cell(r.capacity.targets.find((t) => t.sloMs === s)))])
  const head = ['run', ...slos.map((s) => `p99 ≤ ${s} ms`)]
  return ['## Capacity at each target (req/s, bracket)', '', markdownTable({ head, rows }), '']
}

// Goodput past capacity of the configurations the decision weighed (the page draws it beside the capacity).
function pastSection (report) {
  const configs = pastConfigs(report.results ?? [], report.decision)
  if (!configs.length) return []
  const why = 'Goodput: answers within the target per second, as a share of the capacity C; 1 × C is the sweep\'s ' +
    'own step (the probe starts at 1.5 ×); ✓ the decision\'s configuration.'
  return ['## Past capacity', '', mdText(why), '', markdownTable(pastCapacityTable(configs)), '']
}

// The results table, and under it what its "—" cells mean (figures a runtime cannot measure).
function resultsTable (t) {
  return t.notes?.length ? [markdownTable(t), ...t.notes.map((n) => `- ${mdText(n)}`), ''] : [markdownTable(t)]
}

// A request mix's figures per class, where the results table is the experiment's own (the default
// table has a row per class under each run).
function classSection (report, experiment) {
  const t = typeof experiment?.table === 'function' ? classTable(report) : null
  return t ? ['## Per class', '', markdownTable(t), ''] : []
}

// The paired ratios of a run of --runs N (text/paired.js pairedTable), what they mean under them.
function pairedSection (paired) {
  const t = pairedTable(paired)
  return t ? [`## ${mdText(t.title)}`, '', markdownTable(t), '', ...t.notes.map((n) => `- ${mdText(n)}`), ''] : []
}

// The Markdown page for a report (experiment: its module, for a custom table): the decision first (the
// capacity experiment's), then the figures and what is not to be trusted, then the machine, the
// calibration and the method last.
export function renderMarkdown (report, experiment) {
  const out = [
    ...headSection(report, experiment),
    ...decisionMarkdown(report.decision, report.results),
    ...targetsTable(report.results),
    ...pastSection(report),
    '## Results',
    '',
    ...resultsTable(reportTable(report, experiment)),
    ...classSection(report, experiment),
    ...pairedSection(report.paired),
    ...capacitySection(report.results)
  ]
  if (Array.isArray(report.thresholds)) out.push('## Thresholds', '', markdownTable(thresholdRows(report.thresholds)))
  out.push(...troubleSection(report.results))
  if (report.notes?.length) out.push('## Notes', '', ...report.notes.map((n) => `- ${mdText(n)}`), '')
  out.push(
    ...machineSection(report.machine, report.ruler),
    ...calibrationSection(report.calibration),
    ...methodSection(report.method, report.machine, experiment)
  )
  return out.join('\n')
}

// The --task line of the method: what ran, which version of it (hashes) and with what input.
function taskLine (t) {
  const input = t.inputSha256
    ? `input from ${mdText(t.inputFrom)} (sha256 ${t.inputSha256.slice(0, 12)}…)`
    : 'input: its `input` export'
  const name = `${mdSpan(t.path)}${t.export === 'default' ? '' : ` export ${mdSpan(t.export)}`}`
  return (
    `- **Task:** ${name} (sha256 ${t.fileSha256.slice(0, 12)}…), ${input}; expected body (${t.bodyBytes} B) ` +
    `from the ${t.expectedFrom}; load + setup() ${t.setupMs} ms; per-call bound ${t.timeoutMs} ms`
  )
}
