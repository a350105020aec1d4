// Renders one loadlab report (reports/README.md, schema 1) as a self-contained HTML page: machine and
// method first, then the charts (inline SVG from Vega-Lite, rendered here), the tables and every flag a
// reader needs before trusting a figure. Pure: report object in, string out.
import { barSpec, capacitySpec, dispatchSpec, renderSvg, spectrumRows, spectrumSpec, targetsSpec } from './charts.js'
import { timelineMarks, timelineRows, timelineSpec } from './timeline-chart.js'
import { overloadSection } from './overload-chart.js'
import { phasesSection } from './phases-chart.js'
import {
  bytesHtml,
  genericTable,
  machineCard,
  methodCard,
  msHtml,
  numHtml,
  page,
  pctHtml,
  rulerSection,
  table
} from './html.js'
import { esc } from '../text/escape.js'
import { isNum } from '../result/stats.js'
import { classTargetsText, holdsText, machineLine } from '../text/sentences.js'
import { thresholdRows } from './thresholds.js'
import { decisionHtml } from './decision.js'
import { decisionCharts } from './decision-charts.js'
import { targetsOf } from '../result/decision.js'
import { UNMEASURED, classTable, experimentTable, runtimesOf, tableNotes } from './table.js'
import { pairedTable } from '../text/paired.js'
import { runtimeName, unmeasuredWhy } from '../result/runtime.js'
import { verdictOf } from '../result/trust.js'
import { MISSING } from '../text/format.js'
import { isInProcess } from '../result/kind.js'

// A server-side figure's cell: "—" with its reason on hover where the run's runtime cannot measure it
// (the reasons are also written under the table), else the figure.
function serverCell (r, what, shown) {
  const why = unmeasuredWhy(r, what)
  return why ? `<span class="muted" title="${esc(why)}" data-unmeasured="${esc(what)}">${UNMEASURED}</span>` : shown
}

// Display names for a report's HTTP runs: the key, without the work spec and the loop (`#capacity`) when
// every run shares them; duplicates get " (2)", " (3)" so no two lines in a chart merge.
export function runNames (results) {
  const works = new Set(results.map((r) => r.work))
  const shared = works.size === 1 ? [...works][0] : null
  const seen = new Map()
  const keys = results.map((r) => {
    const name = String(r.key ?? `${r.server ?? '?'}@${r.work ?? '?'}`)
    return shared !== null && shared !== undefined ? name.replace(`@${shared}`, '') : name
  })
  const tails = new Set(keys.map((k) => /#[^@#[\]]+$/.exec(k)?.[0] ?? ''))
  const tail = tails.size === 1 ? [...tails][0] : ''
  return keys.map((key) => {
    const name = tail && key.length > tail.length ? key.slice(0, -tail.length) : key
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    return n > 1 ? `${name} (${n})` : name
  })
}

// Wraps a rendered chart in a figure that tests and readers can find (data-chart, data-lines).
export function figure (name, svg, caption, attrs = {}) {
  const extra = Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('')
  return `<figure class="chart" data-chart="${esc(name)}"${extra} role="group" aria-label="${esc(name)} chart">
<figcaption>${caption}</figcaption>
${svg}
</figure>`
}

// A run's row class: failed, untrusted or '' (result/trust.js verdictOf).
function statusOf (r) {
  const v = verdictOf(r)
  return v.status === 'failed' ? 'failed' : v.trusted ? '' : 'untrusted'
}

function reasons (r) {
  return [...new Set(verdictOf(r).reasons)]
}

// A run's first cell: its name, why it is not trusted, its notes, and its own contention (a finding).
function runCell (name, r) {
  const why = statusOf(r)
    ? `<span class="why">${statusOf(r) === 'failed' ? '✗ failed' : '⚠ untrusted'}: ` +
      `${esc(reasons(r).join('; ') || 'no reason given')}</span>`
    : ''
  const notes = Array.isArray(r.notes) && r.notes.length ? `<span class="note">${esc(r.notes.join('; '))}</span>` : ''
  const own = verdictOf(r).contention?.text
  const contention = own ? `<span class="note" data-flag="contention">own contention: ${esc(own)}</span>` : ''
  return { html: `<b>${esc(name)}</b>${why}${notes}${contention}`, className: 'text' }
}

// A failed run's reason, exit code and signal.
function failureLine (f) {
  const signal = f.signal ? ` · signal <code>${esc(f.signal)}</code>` : ''
  const exit = `exit code <code>${esc(f.exitCode ?? 'none')}</code>`
  return `<div>${esc(f.reason ?? 'no reason recorded')} · ${exit}${signal}</div>`
}

// A failed run's last lines of stderr, or a word that there were none.
function stderrTail (f) {
  return Array.isArray(f.stderrTail) && f.stderrTail.length
    ? `<pre aria-label="stderr tail">${esc(f.stderrTail.join('\n'))}</pre>`
    : '<div class="muted">no stderr captured</div>'
}

function flags (http, names) {
  const out = []
  const failed = http.map((r, i) => [r, names[i]]).filter(([r]) => r.status === 'failed')
  for (const [r, name] of failed) {
    const f = r.failure ?? {}
    out.push(`<div class="notice failed" data-flag="failed"><h3>✗ ${esc(name)} failed</h3>
${failureLine(f)}
${stderrTail(f)}</div>`)
  }
  const untrusted = http.map((r, i) => [r, names[i]]).filter(([r]) => statusOf(r) === 'untrusted')
  if (untrusted.length) {
    out.push(
      `<div class="notice" data-flag="untrusted"><h3>⚠ Figures not to be taken at face value</h3><ul>${untrusted
        .map(([r, name]) => `<li><b>${esc(name)}</b>: ${esc(reasons(r).join('; ') || 'no reason given')}</li>`)
        .join('')}</ul></div>`
    )
  }
  return out.join('\n')
}

// Above this many lines one spectrum chart is unreadable: it becomes a panel per work spec.
const SPECTRUM_MAX_LINES = 10

// True when one run's tail is so far above another's (over 20× at p99) that a linear axis would
// flatten the faster runs into the floor: the spectrum then uses a log latency axis.
export function wideSpread (rows, field = 'run') {
  const p99 = new Map()
  for (const r of rows) if (r.p === 99 && r.ms > 0) p99.set(r[field], r.ms)
  const v = [...p99.values()]
  return v.length > 1 && Math.max(...v) / Math.min(...v) > 20
}

function spectrumFigure (http, names) {
  const rows = []
  const drawn = []
  http.forEach((r, i) => {
    if (r.status === 'failed') return
    const short = String(r.key ?? names[i]).replace(`@${r.work}`, '')
    const pts = spectrumRows(r.latency?.percentiles, { run: names[i], work: String(r.work ?? '?'), short })
    if (pts.length > 1) {
      rows.push(...pts)
      drawn.push(names[i])
    }
  })
  if (drawn.length === 0) return '<p class="muted">No latency percentiles to plot.</p>'
  const panels = drawn.length > SPECTRUM_MAX_LINES && new Set(rows.map((p) => p.work)).size > 1
  const logY = !panels && wideSpread(rows)
  const spec = panels
    ? spectrumSpec(rows, { color: 'short', colorTitle: 'server run', facet: 'work' })
    : spectrumSpec(rows, { colorTitle: 'server run', logY })
  return figure(
    'spectrum',
    renderSvg(spec, { id: 'spectrum' }),
    '<b>Latency by percentile</b> (client side, ' +
      `${http.some((r) => r.loop === 'open') ? "open loop: from each request's due time" : 'autocannon'})` +
      `${panels ? ', one panel per work spec' : ''}. ` +
      'The x axis stretches the tail as HdrHistogram plots it (log of 1/(1−p)): ' +
      'each step right is ten times rarer. ' +
      'Lower is better; a line that rises late has a short tail.' +
      `${logY ? ' The latency axis is logarithmic: the runs differ by more than 20× at p99.' : ''}`,
    { lines: drawn.length }
  )
}

function throughputFigures (http, names) {
  const ok = http.map((r, i) => [r, names[i]]).filter(([r]) => r.status !== 'failed' && isNum(r.rps))
  if (!ok.some(([r]) => r.rps > 0)) return '<p class="muted">No request was answered: nothing to chart.</p>'
  const label = ([r, name]) => (r.trusted === false ? `${name} ⚠` : name)
  const rps = renderSvg(
    barSpec(
      ok.map((x) => ({ run: label(x), value: x[0].rps })),
      { xTitle: 'requests/s (own-timed)', format: ',.0f', width: 400 }
    ),
    { id: 'rps' }
  )
  const eff = ok.filter(([r]) => isNum(r.efficiency))
  const effFig = eff.length
    ? figure(
      'efficiency',
      renderSvg(
        barSpec(
          eff.map((x) => ({ run: label(x), value: x[0].efficiency })),
          {
            xTitle: 'share of the ideal throughput',
            format: '.0%',
            width: 400,
            rule: 1,
            domainMax: Math.max(1, ...eff.map(([r]) => r.efficiency))
          }
        ),
        { id: 'efficiency' }
      ),
      '<b>Efficiency</b>: requests/s against what the cores allow for this work, ' +
        'min(connections, cores) / calibrated service time. The dashed line is 100%.',
      { bars: eff.length }
    )
    : '<p class="muted">Efficiency not computed: no calibration for this work.</p>'
  const rpsCaption = '<b>Requests per second</b>, timed by the lab from first request to last response. ' +
    'Higher is better. ⚠ marks untrusted runs.'
  return `<div class="charts-row">${figure('rps', rps, rpsCaption, { bars: ok.length })}
${effFig}</div>`
}

function delayFigure (http, names) {
  const metrics = [
    ['client latency p99', (r) => r.latency?.p99],
    ['/health probe p99', (r) => r.probe?.p99],
    ['server event-loop delay p99', (r) => r.telemetry?.eventLoop?.p99]
  ]
  const rows = []
  http.forEach((r, i) => {
    if (r.status === 'failed') return
    for (const [metric, get] of metrics) {
      const v = get(r)
      if (isNum(v)) rows.push({ run: names[i], metric, value: v })
    }
  })
  if (rows.length === 0) return ''
  const noTelemetry = http.some((r) => r.status !== 'failed' && !r.telemetry)
  const svg = renderSvg(
    barSpec(rows, {
      xTitle: 'p99 (ms)',
      group: 'metric',
      groupTitle: null,
      format: ',.1f',
      width: 900,
      colors: ['#0550ae', '#bf8700', '#8250df']
    }),
    { id: 'delay' }
  )
  return figure(
    'delay',
    svg,
    "<b>Who waits behind the work</b>: the client's p99 latency beside the p99 of a cheap <code>/health</code> " +
      "request sent during the round and the server's own main-thread event-loop delay. " +
      'A strategy that keeps CPU off the main thread keeps the last two low.' +
      `${noTelemetry ? ' Runs without server telemetry show no event-loop bar.' : ''}`
  )
}

// The plural ending of a failure count's word ('non-2xx' has none).
const plural = (k, n) => n > 1 && k !== 'non2xx' ? (k === 'mismatches' ? 'es' : 's') : ''

// The health probe's failures, where some failed.
const probeFailed = (probe) =>
  isNum(probe?.failed) && probe.failed > 0 ? ` <span class="bad">(${numHtml(probe.failed)} failed)</span>` : ''

// The recovery request's status, where it was not 200.
const recoveryStatus = (recovery) =>
  isNum(recovery.status) && recovery.status !== 200 ? ` <span class="bad">${esc(recovery.status)}</span>` : ''

function resultsTable (http, names) {
  const head = [
    'run',
    'done / sent',
    'failed requests',
    'req/s',
    'p50',
    'p99',
    'p99.9',
    'max',
    'probe p99',
    'loop p99',
    'ELU',
    'recovery',
    'CPU ms/req',
    'peak RSS',
    'procs / threads',
    'ideal req/s',
    'efficiency'
  ]
  const rows = http.map((r, i) => {
    const q = r.requests ?? {}
    const l = r.latency ?? {}
    const o = r.outside ?? null
    const bad = [
      ['errors', 'error'],
      ['timeouts', 'timeout'],
      ['non2xx', 'non-2xx'],
      ['mismatches', 'mismatch']
    ]
      .filter(([k]) => isNum(q[k]) && q[k] > 0)
      .map(([k, what]) => `${numHtml(q[k])} ${what}${plural(k, q[k])}`)
    const failedCell = bad.length ? `<span class="bad">${bad.join(' · ')}</span>` : isNum(q.sent) ? '0' : numHtml(null)
    const spread =
      r.spread?.rps && isNum(r.spread.rps.min)
        ? ` <span class="muted">(${numHtml(r.spread.rps.min, 0)}–${numHtml(r.spread.rps.max, 0)})</span>`
        : ''
    return [
      runCell(names[i], r),
      `${numHtml(q.completed)} / ${numHtml(q.sent)}`,
      failedCell,
      `${numHtml(r.rps, 0)}${spread}`,
      msHtml(l.p50),
      msHtml(l.p99),
      msHtml(l.p99_9),
      msHtml(l.max),
      `${msHtml(r.probe?.p99)}${probeFailed(r.probe)}`,
      serverCell(r, 'eventLoop', msHtml(r.telemetry?.eventLoop?.p99)),
      serverCell(r, 'elu', pctHtml(r.telemetry?.elu)),
      r.recovery
        ? `${msHtml(r.recovery.ms)}${recoveryStatus(r.recovery)}`
        : msHtml(null),
      o ? numHtml(o.cpuMsPerRequest, 2) : msHtml(null),
      o ? bytesHtml(o.peakRssBytes) : msHtml(null),
      o ? `${numHtml(o.peakProcesses)} / ${numHtml(o.peakThreads)}` : msHtml(null),
      numHtml(r.ideal?.rps, 0),
      pctHtml(r.efficiency, 1)
    ]
  })
  // Runs under several runtimes (--runtime): each row names its runtime; the runs come runtime by runtime.
  if (runtimesOf({ results: http }).length) {
    head.unshift('runtime')
    rows.forEach((row, i) => row.unshift(esc(runtimeName(http[i].runtime))))
  }
  const notes = tableNotes({ results: http })
  const below = notes.length ? `<ul class="unmeasured">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''
  const results = table(head, rows, {
    className: 'results',
    rowClass: (i) => statusOf(http[i]),
    caption:
      'Latency in ms (client side). <i>failed requests</i>: connection errors, timeouts, non-2xx answers and body ' +
      "mismatches; <i>loop p99</i>: the server's main-thread event-loop delay; <i>recovery</i>: one fresh request " +
      "right after the round; CPU, RSS and processes are measured from outside (/proc, or ps where the report's " +
      'method says so) over the whole process tree.'
  })
  return results + below
}

// The thresholds (--threshold) and each run's verdict; '' when the run set none.
function thresholdsSection (evaluated) {
  if (!Array.isArray(evaluated)) return ''
  const { head, rows, status } = thresholdRows(evaluated)
  const cls = { passed: 'ratio-up', crossed: 'bad', 'not-applicable': 'muted' }
  const mark = (c, i) => `<span class="${cls[status[i]]}" data-threshold="${esc(status[i])}">${esc(c)}</span>`
  const body = rows.map((r, i) => r.map((c, j) => j === 3 ? mark(c, i) : esc(c)))
  const shown = table(head, body, { className: 'thresholds', rowClass: (i) => status[i] === 'crossed' ? 'failed' : '' })
  return `<section class="block"><h2>Thresholds</h2>${shown}</section>`
}

const CALIBRATION_HEAD = [
  'work', 'calls', 'service', 'spread', 'median', 'min', 'max', 'first', 'samples (ms)', 'tier shift'
]

// The runtime a calibration ran on, where it says.
const runtimeOf = (c) =>
  c?.runtime ? ` on ${esc(c.runtime)} <span class="muted">${esc(c.runtimeName ?? c.node)}</span>` : ''

// A calibration's samples, one figure each.
const samplesOf = (c) => Array.isArray(c?.samplesMs) ? c.samplesMs.map((x) => msHtml(x)).join(' · ') : msHtml(null)

function calibrationTable (cal) {
  const entries = cal && typeof cal === 'object' ? Object.entries(cal) : []
  if (entries.length === 0) return '<p class="muted">No calibration in this report.</p>'
  const rows = entries.map(([spec, c]) => [
    {
      html: `<code>${esc(c?.spec ?? spec)}</code>${runtimeOf(c)}`,
      className: 'text'
    },
    numHtml(c?.calls),
    msHtml(c?.serviceMs ?? c?.medianMs),
    isNum(c?.spreadPct) ? `${numHtml(c.spreadPct, 1)} %` : MISSING,
    msHtml(c?.medianMs),
    msHtml(c?.minMs),
    msHtml(c?.maxMs),
    msHtml(c?.firstMs),
    { html: samplesOf(c), className: 'text' },
    c?.tierShift
      ? {
          html: '<span class="bad" data-flag="tier-shift">⚠ tier shift</span> ' +
            `<span class="why">first call ${msHtml(c.firstMs)} ms vs median ${msHtml(c.medianMs)} ms: ` +
            'a JIT tier change, not averaged away</span>',
          className: 'text'
        }
      : { html: 'no', className: 'text' }
  ])
  return table(CALIBRATION_HEAD, rows, {
    className: 'calibration',
    rowClass: (i) => (entries[i][1]?.tierShift ? 'untrusted' : ''),
    caption:
      'Single-thread time of one unit of work (ms), measured in one long-lived process over several calls. ' +
      'The service time (the ideal throughput and the default target use it) is the fast end of the warm calls ' +
      "(`estimate`): noise only adds time. Spread: the warm calls' p90 over their p10."
  })
}

function payloadLabel (b) {
  if (!isNum(b)) return '?'
  if (b >= 2 ** 20) return `${numHtml(b / 2 ** 20, 0)} MiB`
  if (b >= 1024) return `${numHtml(b / 1024, 0)} KiB`
  return `${b} B`
}

function dispatchSection (rows) {
  const points = rows
    .filter((r) => isNum(r.meanMs))
    .map((r) => ({
      mode: String(r.mode ?? '?'),
      workers: isNum(r.workers) && r.workers > 0 ? r.workers : 0,
      cost: `hook ${isNum(r.costMs) ? r.costMs : '?'} ms`,
      payload: payloadLabel(r.payloadBytes),
      meanMs: r.meanMs
    }))
  const chart = points.length
    ? figure(
      'dispatch',
      renderSvg(dispatchSpec(points), { id: 'dispatch' }),
      '<b>Dispatching a CPU-spinning hook</b>: mean time of one batch of calls by number of workers, ' +
        'one line per pooled mode, one panel per hook cost. Lower is better. ' +
        '<i>main</i> calls the hook on the main thread (no workers): the horizontal line to beat.',
      { lines: new Set(points.filter((p) => p.workers > 0).map((p) => `${p.mode}|${p.cost}|${p.payload}`)).size }
    )
    : ''
  const head = [
    'case',
    'mode',
    'workers',
    'hook cost ms',
    'payload',
    'calls',
    'runs',
    'mean ms',
    'min ms',
    'max ms',
    'per call µs',
    'pool start-up ms',
    'checked'
  ]
  const body = rows.map((r) => [
    { html: `<code>${esc(r.key)}</code>`, className: 'text' },
    esc(r.mode),
    numHtml(r.workers),
    numHtml(r.costMs),
    esc(payloadLabel(r.payloadBytes)),
    numHtml(r.calls),
    numHtml(r.runs),
    msHtml(r.meanMs),
    msHtml(r.minMs),
    msHtml(r.maxMs),
    numHtml(r.perCallUs, 1),
    msHtml(r.startupMs),
    r.checked === true
      ? '✓'
      : `<span class="bad" data-flag="unchecked">✗ ${r.checked === false ? 'wrong results' : 'not checked'}</span>`
  ])
  const rowClass = (i) => (rows[i].checked === true ? '' : 'failed')
  const shown = table(head, body, { className: 'dispatch', rowClass })
  return `<section class="block"><h2>Dispatch</h2>${chart}${shown}</section>`
}

// Capacity against the target, one line per strategy (a result's capacity.targets), on the first screen
// under the decision's charts where the answer changes with the target (the decision's "Would change"):
// where two lines cross, the ranking changes. '' with one target, or lines that do not cross.
function targetsSection (http, names, decision) {
  if (decision && !decision.changes?.length) return ''
  const rows = []
  http.forEach((r, i) => {
    for (const t of targetsOf(r)) rows.push({ server: names[i], sloMs: t.sloMs, rps: t.rps ?? 0, cannot: !(t.rps > 0) })
  })
  if (new Set(rows.map((x) => x.sloMs)).size < 2) return ''
  return figure(
    'targets',
    renderSvg(targetsSpec(rows), { id: 'targets' }),
    '<b>Capacity against the p99 target</b>, one line per strategy, each point from the same sweep ' +
      '(every step judged against every target). ' +
      'A hollow point at 0: the strategy cannot meet that target at any rate tried. ' +
      'Where two lines cross with their brackets apart, the better choice changes with the target; ' +
      'where the brackets overlap, the two tie (the decision\'s "Would change").',
    { lines: new Set(rows.map((x) => x.server)).size }
  )
}

// The capacity sweep: latency against offered load per server, the target and each capacity marked,
// and the steps in numbers.
// The capacity chart's caption: what a point is, and which target line is drawn.
function capacityCaption (slos, own, swept) {
  const line = slos.length === 1
    ? `The dashed red line is the target (${esc(msHtml(slos[0]))} ms, ${esc(swept[0].capacity.sloRule)})`
    : own
      ? `Each class was judged at its own target (${esc(own)}), so no one target line is drawn`
      : 'The targets differ between servers'
  return '<b>Latency against offered load</b>: each point is one open-loop step ' +
    '(requests due on a schedule, latency from the due time); p99 on a log axis. ' +
    `${line}; the ringed point is each server's capacity, ` +
    'the highest rate that kept p99 under it with every request answered; ' +
    'an orange triangle marks a disturbed step (noise past its limits: reports/README.md). ' +
    'Past the knee the queue grows for as long as the step lasts, so latency climbs steeply.'
}

// The line under the capacity chart: the target each server was judged against, and the capacity rule.
function capacityRule (own, slos, swept) {
  const target = own
    ? `Target: each class at its own, ${esc(own)}. `
    : slos.length === 1
      ? `Target: p99 ≤ ${esc(msHtml(slos[0]))} ms (${esc(swept[0].capacity.sloRule)}). `
      : 'Targets differ between servers. '
  return `<p class="muted">${target}${esc(swept[0].capacity.rule)}</p>`
}

function capacitySection (http, names) {
  const swept = http.filter((r) => r.capacity?.steps?.length)
  if (swept.length === 0) return ''
  const rows = []
  const caps = []
  swept.forEach((r) => {
    const name = names[http.indexOf(r)]
    for (const s of r.capacity.steps) {
      if (!isNum(s.p99) || !isNum(s.rate)) continue
      rows.push({ server: name, rate: s.rate, p99: s.p99, pass: s.pass, disturbed: Boolean(s.disturbed) })
    }
    const c = r.capacity.capacity
    if (c?.rps > 0 && isNum(c.p99)) caps.push({ server: name, rate: c.rps, p99: c.p99 })
  })
  const own = classTargetsText(swept[0]) // a --url mix judged class by class: no one target to draw
  const slos = own ? [] : [...new Set(swept.map((r) => r.capacity.sloMs).filter(isNum))]
  const chart = figure(
    'capacity',
    renderSvg(capacitySpec(rows, { sloMs: slos.length === 1 ? slos[0] : null, capacities: caps }), { id: 'capacity' }),
    capacityCaption(slos, own, swept),
    { lines: swept.length }
  )
  const head = [
    'server',
    'step',
    'kind',
    'offered req/s',
    'achieved req/s',
    'p50',
    'p99',
    'p99.9',
    'timeouts',
    'conn errors',
    'peak in flight',
    'CPU cores',
    'recovery ms',
    'steal %',
    'foreign cores',
    'work ×',
    'own contention',
    'lag p99',
    'disturbed',
    'requests / over',
    'holds'
  ]
  const body = swept.flatMap((r) =>
    r.capacity.steps.map((s) => [
      esc(names[http.indexOf(r)]),
      numHtml(s.index + 1),
      esc(s.kind ?? ''),
      numHtml(s.rate, 1),
      numHtml(s.rps, 1),
      msHtml(s.p50),
      msHtml(s.p99),
      msHtml(s.p99_9),
      numHtml(s.requests?.timeouts),
      numHtml(s.requests?.errors),
      numHtml(s.peakInFlight),
      numHtml(s.cpuCores, 2),
      s.recovery ? (isNum(s.recovery.ms) ? msHtml(s.recovery.ms) : esc(String(s.recovery.status))) : MISSING,
      numHtml(s.noise?.stealPct, 1),
      numHtml(s.noise?.foreignCores, 2),
      numHtml(s.noise?.workInflation, 2),
      s.contention ? { html: `<span data-flag="contention">${esc(s.contention.text)}</span>`, className: 'text' } : '',
      msHtml(s.lagP99),
      s.disturbed
        ? {
            html: `<span class="bad" data-flag="disturbed">! ${esc(s.disturbedBy.join(', '))}</span>`,
            className: 'text'
          }
        : '',
      isNum(s.n) ? `${numHtml(s.n)} / ${isNum(s.over) ? numHtml(s.over) : MISSING}` : MISSING,
      { html: esc(holdsText(s)), className: 'text' }
    ])
  )
  const rule = capacityRule(own, slos, swept)
  const shown = table(head, body, { className: 'capacity' })
  return `<section class="block"><h2>Capacity</h2>${chart}${rule}${shown}</section>`
}

// One timeline figure per run that kept one (result.timeline): the round and its recovery in time.
// The recovery period after the round, in seconds (one decimal).
const recoverySeconds = (tl) => (Math.max(0, tl.recoveryEndMs - tl.endMs) / 1000).toFixed(1)

function timelineSection (http, names) {
  const figures = http
    .map((r, i) => [r, names[i]])
    .filter(([r]) => Array.isArray(r.timeline?.points) && r.timeline.points.length)
  if (!figures.length) return ''
  const out = figures.map(([r, name], i) => {
    const tl = r.timeline
    const svg = renderSvg(timelineSpec(timelineRows(tl), [timelineMarks(tl)]), { id: `timeline-${i + 1}` })
    const recovery =
      typeof tl.recoveryEndMs === 'number' && typeof tl.endMs === 'number'
        ? ` The shaded band is the recovery period, ${recoverySeconds(tl)} s, ` +
          'until the server was idle again.'
        : ''
    return figure(
      'timeline',
      svg,
      `<b>${esc(name)}</b> in time, one point per ${esc(tl.intervalMs)} ms: ` +
        "client figures, the server's pushed samples, the tree from outside (/proc or ps). " +
        `The dashed rule is the end of the round.${recovery}`,
      { server: name, interval: tl.intervalMs, end: tl.endMs ?? '', 'recovery-end': tl.recoveryEndMs ?? '' }
    )
  })
  return `<section class="block" id="timelines"><h2>Timelines</h2>${out.join('\n')}</section>`
}

// Returns the HTML page (a string) for a report object.
// The latency block's lead: the one work every run does, and the connections.
function latencyLead (works, report) {
  const work = works.length === 1 ? `Every run does <code>${esc(works[0])}</code> per request. ` : ''
  return `${work}${numHtml(report.method?.connections)} connections.`
}

// The paired ratios of a run of --runs N (text/paired.js pairedTable): their table and what it means.
function pairedHtml (paired) {
  const t = pairedTable(paired)
  if (!t) return ''
  const notes = t.notes.map((n) => `<p class="lead">${esc(n)}</p>`).join('')
  return `<section class="block" data-section="paired"><h2>${esc(t.title)}</h2>${genericTable(t)}${notes}</section>`
}

// The page's footer: the report's id and schema, how the charts were drawn, and how to compare it.
function footer (report) {
  return `<footer>Report <code>${esc(report.id)}</code> · schema ${esc(report.schema)} · written by loadlab. ` +
    'Charts rendered with Vega-Lite when the report was written; this page loads nothing from the network.\n' +
    "Set it beside another machine's report: " +
    `<code>npm run compare -- ${esc(report.id ?? 'this')}.json OTHER.json --html compare.html</code></footer>`
}

export function renderReportHtml (report, { experiment = null } = {}) {
  const results = Array.isArray(report?.results) ? report.results.filter((r) => r && typeof r === 'object') : []
  const http = results.filter((r) => !isInProcess(r))
  const dispatch = results.filter((r) => r.kind === 'dispatch')
  const names = runNames(http)
  const works = [...new Set(http.map((r) => r.work).filter(Boolean))]
  const who = machineLine(report)
  const status = ['complete', 'partial', 'failed'].includes(report.status) ? report.status : 'unknown'
  const title = `loadlab · ${report.experiment ?? 'report'} · ${who}`
  const notes =
    Array.isArray(report.notes) && report.notes.length
      ? '<div class="notice info" data-flag="notes"><h3>Notes</h3><ul>' +
        `${report.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>`
      : ''
  const perClass = classTable(report) // a request mix's figures per class
  const httpBlock = http.length
    ? `<section class="block"><h2>Latency</h2><p class="lead">${latencyLead(works, report)}</p>
${spectrumFigure(http, names)}
${delayFigure(http, names)}
</section>
<section class="block"><h2>Throughput</h2>
${throughputFigures(http, names)}
</section>
<section class="block"><h2>Results</h2>
${resultsTable(http, names)}
</section>
${perClass ? `<section class="block"><h2>Per class</h2>${genericTable(perClass)}</section>` : ''}
${pairedHtml(report.paired)}
${timelineSection(http, names)}`
    : ''
  const study = experimentTable(report, experiment)
  const extraTable = study
    ? `<section class="block"><h2>${esc(study.title ?? 'Table')}</h2>${genericTable(study)}</section>`
    : ''
  const body = `<header class="top">
<h1>loadlab · ${esc(report.experiment ?? 'report')} <span class="sub">on ${esc(who)}</span></h1>
<span class="badge ${esc(status)}" data-status="${esc(status)}">${esc(status)}</span>
</header>
${decisionHtml(report.decision, results)}
${decisionCharts(http, report.decision)}
${targetsSection(http, names, report.decision)}
<div class="cards">${machineCard(report)}${methodCard(report)}</div>
${rulerSection(report)}
${flags(http, names)}
${notes}
${capacitySection(http, names)}
${overloadSection(http)}
${phasesSection(http)}
${httpBlock}
${dispatch.length ? dispatchSection(dispatch) : ''}
${extraTable}
${thresholdsSection(report.thresholds)}
<section class="block"><h2>Calibration</h2>${calibrationTable(report.calibration)}</section>
${footer(report)}`
  return page({ title, body })
}
