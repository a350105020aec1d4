// The bench result as text: machine line, method, then one table per measurement (pure function).
import { MISSING, bytesDecimal, mibGib, pctFixed, timesGrouped } from '../loadtest/text/format.js'
import { renderText } from '../loadtest/report/table.js'

const pct = (f) => `± ${pctFixed(f, 1)}`
const range = (r) => `${r.min.toFixed(2)}–${r.max.toFixed(2)}`
const x = (r) => `${timesGrouped(r.median)} (${range(r)})`

// A table as the lab's terminal table writes it (report/table.js renderText), indented under its heading.
function table (head, rows) {
  return renderText({ head, rows }).trimEnd().split('\n').map((l) => `  ${l}`).join('\n')
}

// The verdict of an on/off comparison: noise when the rounds disagree on the sign, else the median change.
function onOffVerdict (what, r, goal = '') {
  const change = `${Math.abs(r.lossPercent).toFixed(1)}%`
  if (r.ratio.min <= 1 && r.ratio.max >= 1) {
    return `no difference this run can resolve (rounds range ${range(r.ratio)}, median ${r.lossPercent >= 0 ? 'cost' : 'gain'} ${change})`
  }
  return `${what} ${r.lossPercent >= 0 ? 'costs' : 'gains'} ${change} of throughput (median round${goal})`
}

function machineLines (result) {
  const m = result.machine
  return [
    `loadlab bench, ${result.createdAt}${result.quick ? ' (--quick: tiny rounds, not a measurement)' : ''}`,
    `machine: ${m.cpuModel} × ${m.cores} cores (availableParallelism ${m.availableParallelism}), ` +
      `${mibGib(m.memoryBytes)}, ${m.os.type} ${m.os.release} ${m.arch}, Node ${m.node} (V8 ${m.v8}), ` +
      `piscina ${m.versions.piscina}, autocannon ${m.versions.autocannon}, load ${m.loadavg.map((l) => l.toFixed(2)).join(' ')}`
  ]
}

function dispatchLines (d) {
  const c0 = d.cases[0]
  return [
    '',
    `dispatch round trip: hook cost 0, ${c0?.calls} calls per round, ${c0?.rounds} alternating rounds per side (after a discarded warm-up)`,
    table(
      ['workers', 'payload', 'piscina µs/call', 'shared µs/call', 'piscina / shared'],
      d.cases.map((c) => [
        c.workers,
        bytesDecimal(c.payloadBytes),
        `${c.piscina.mean.toFixed(1)} ${pct(c.piscina.rsd)}`,
        `${c.shared.mean.toFixed(1)} ${pct(c.shared.rsd)}`,
        x(c.ratio)
      ])
    )
  ]
}

function processesLines (p) {
  const c0 = p.cases[0]
  const others = p.pools.slice(1)
  return [
    '',
    `process pools: --work ${p.spec} (body verified), as many tasks in flight as processes, ${c0?.calls} tasks per round, ` +
      `${c0?.rounds} alternating rounds per pool (after a discarded warm-up); crash: crash:1, then the next answer`,
    table(
      ['processes', ...p.pools.map((n) => `${n} µs/task`), ...others.map((n) => `${n} / own`), ...p.pools.map((n) => `${n} crash → answer`)],
      p.cases.map((c) => [
        c.processes,
        ...p.pools.map((n) => `${c.perTaskUs[n].mean.toFixed(0)} ${pct(c.perTaskUs[n].rsd)}`),
        ...others.map((n) => x(c.ratio[n])),
        ...p.pools.map((n) => `${c.crashMs[n].mean.toFixed(0)} ms`)
      ])
    )
  ]
}

function telemetryLines (t) {
  return [
    '',
    `telemetry cost: servers/simple --work ${t.work}, autocannon ${t.connections} connections, ` +
      `${t.rounds} alternating rounds of ${t.durationSec ? t.durationSec + ' s' : t.amount + ' requests'} per side (after a discarded warm-up), 127.0.0.1`,
    table(['telemetry', 'req/s', 'requests'], [
      ['on', `${t.on.mean.toFixed(0)} ${pct(t.on.rsd)}`, t.on.requests],
      ['off', `${t.off.mean.toFixed(0)} ${pct(t.off.rsd)}`, t.off.requests]
    ]),
    `  on / off: ${x(t.ratio)}: ${onOffVerdict('telemetry', t)}`
  ]
}

// One engine's row: its highest kept rate under the rule, and under the previous rule beside it.
function ladderRow (o, label) {
  return ['open loop', o.rps.toFixed(0), o.rpsBefore.toFixed(0), label]
}

// The lag's share of each latency percentile at the highest kept rate (latency accuracy).
function accuracyLine (o) {
  if (!o?.accuracy) return []
  const parts = Object.entries(o.accuracy)
    .map(([p, a]) => `${p.replace('_', '.')} ${a.latencyMs} ms (lag ${a.lagMs} ms, ${a.share === null ? MISSING : Math.round(a.share * 100) + ' %'})`)
  const cost = o.cost ? `; it cost ${o.cost.cpuUsPerRequest} µs of CPU a request, GC ${o.cost.gcMs} ms in the probe` : ''
  return [`  latency accuracy at ${o.rps} req/s, ${o.generators} thread(s), median probe: ${parts.join(', ')}${cost}`]
}

// Each rate probed: its verdict by the median of its probes, and by the previous rule.
function ladderLines (o) {
  return o.rates.map((r) => {
    const lags = r.probes.map((p) => p.lagJudgedP99).join('/')
    const whole = r.probes.map((p) => p.lagP99).join('/')
    const why = r.kept ? '' : `: ${r.median.why.slice(0, 2).join('; ')}`
    const cost = `${r.median.cpuUsPerRequest} µs CPU/request, GC ${r.median.gcMs} ms`
    return `    ${String(r.rate).padStart(6)} req/s  ${r.kept ? 'kept  ' : 'missed'}  previous rule ${r.keptBefore ? 'kept  ' : 'missed'}  ` +
      `lag p99 after warm-up ${lags} ms, whole round ${whole} ms (${cost})${why}`
  })
}

function memoryLines (g) {
  return (g.memoryRounds ?? [g.memory]).map((m, i) =>
    `  memory ${i + 1}: one ${m.durationSec} s open-loop round at ${m.rate} req/s, ${m.requests} requests answered ` +
    `(${m.failed ?? 0} sent but not answered 2xx), into HDR histograms ` +
    `(${(m.histogramBytes / 1024).toFixed(0)} kB each): lab RSS ${m.rssMb.atQuarter.toFixed(0)} MB at a quarter, ` +
    `${m.rssMb.atEnd.toFixed(0)} MB at the end, peak ${m.rssMb.peak.toFixed(0)} MB (arrays of three numbers a request would hold ` +
    `${m.arraysWouldHoldMb.toFixed(1)} MB)`)
}

// The machine's own timer lag, measured just before the ladder.
function timerLine (t) {
  if (!t) return []
  return [`  this machine's own timer now: a bare setTimeout(fn, 1) loop woke late by p50 ${t.p50}, ` +
    `p99 ${t.p99}, p99.9 ${t.p999} ms (${t.samples} wake-ups)`]
}

function generatorLines (g) {
  const ratio = timesGrouped
  const threads = g.openThreads
  const load = (l) => `load ${l.loadavg.join(' ')} (up ${Math.round(l.uptimeSec / 60)} min)`
  return [
    '',
    `open-loop generator vs autocannon: servers/simple --work ${g.work} --telemetry off, ` +
      `${g.durationSec ? g.durationSec + ' s' : g.amount + ' requests'} per probe, ${g.probesPerRate} probe(s) a rate, 127.0.0.1; ` +
      `machine ${load(g.load.before)} before, ${load(g.load.after)} after`,
    table(['engine', 'req/s', 'previous rule', 'how'], [
      ['autocannon', g.closed.rps.toFixed(0), '', `closed loop, ${g.connections} connections always busy`],
      ladderRow(g.open, 'highest kept rate, --generators 1 (the lab\'s own thread)'),
      ...(threads ? [ladderRow(threads, `highest kept rate, --generators ${threads.generators}`)] : [])
    ]),
    `  rule applied (offered load kept): ${g.rule.text}; every request answered; a rate is kept when most of its probes are`,
    `  previous rule (beside it): ${g.previousRule.text}; every request answered`,
    `  open / closed: ${ratio(g.ratio)} (previous rule ${ratio(g.ratioBefore)})` +
      `${threads ? `; with ${threads.generators} generator threads ${ratio(g.ratioThreads)} (previous rule ${ratio(g.ratioThreadsBefore)})` : ''}` +
      ` (goal >= ${g.goal ?? 0.5})`,
    ...accuracyLine(g.open),
    ...timerLine(g.timerLag),
    '  rates probed, --generators 1:',
    ...ladderLines(g.open),
    ...(threads ? [`  rates probed, --generators ${threads.generators}:`, ...ladderLines(threads)] : []),
    ...(g.traced ? [`  trace: one probe at ${g.traced.rate} req/s in ${g.traced.file}: ${JSON.stringify(g.traced.summary)}`] : []),
    ...memoryLines(g)
  ]
}

function samplingLines (sm) {
  return [
    '',
    `timeline sampling cost: servers/simple --work ${sm.work} pushing a sample every ${sm.intervalMs} ms over IPC ` +
      `(${sm.on.samples} samples received) vs not, ${sm.connections} connections, ${sm.rounds} alternating rounds per side`,
    table(['sampling', 'req/s', 'requests'], [
      ['on', `${sm.on.mean.toFixed(0)} ${pct(sm.on.rsd)}`, sm.on.requests],
      ['off', `${sm.off.mean.toFixed(0)} ${pct(sm.off.rsd)}`, sm.off.requests]
    ]),
    `  on / off: ${x(sm.ratio)}: ${onOffVerdict('sampling', sm, '; goal ≤ 2%')}`,
    `  one sample costs its sender ${sm.perSampleUs.toFixed(1)} µs of main thread (measured over 5000 sends): ` +
      `${sm.coreSharePercent.toFixed(3)}% of a core at one sample per ${sm.intervalMs} ms`
  ]
}

function stampsLines (st) {
  return [
    '',
    `stamps cost: servers/simple --work ${st.work} answering with its Lab-Stamps header vs LOADLAB_STAMPS=off, ` +
      `autocannon ${st.connections} connections, ${st.rounds} alternating rounds per side`,
    table(['stamps', 'req/s', 'requests'], [
      ['on', `${st.on.mean.toFixed(0)} ${pct(st.on.rsd)}`, st.on.requests],
      ['off', `${st.off.mean.toFixed(0)} ${pct(st.off.rsd)}`, st.off.requests]
    ]),
    `  on / off: ${x(st.ratio)}: ${onOffVerdict('stamps', st, '; goal ≤ 2%')}`,
    `  stamping one answer costs its main thread ${st.perAnswerUs.toFixed(2)} µs (best of 5 × 100,000): ` +
      `${(st.perAnswerShare * 100).toFixed(2)}% of the time per answer at ${st.on.mean.toFixed(0)} req/s`
  ]
}

function rulerLines (r) {
  const s = r.perReadingSec
  const within = r.withinBudget ? 'within' : 'over'
  return [
    '',
    `ruler cost: ${r.readings} reading${r.readings === 1 ? '' : 's'} of the machine one after another, each as ` +
      'a run makes it (its child\'s start included); a run reads two, before its first server and after its last',
    `  per reading ${s.mean.toFixed(2)} s ${pct(s.rsd)} (${s.min.toFixed(2)}–${s.max.toFixed(2)}); ` +
      `per run ${r.perRunSec.mean.toFixed(2)} s (at most ${r.perRunSec.max.toFixed(2)}), ${within} its ${r.budgetSec} s; ` +
      `cores given ${r.effectiveCores.toFixed(2)}`
  ]
}

// The history part: the time and peak memory to read a folder of reports.
function historyLines (h) {
  return [
    '',
    `history: ${h.reports} reports (copies of ${h.source}, ${(h.sourceBytes / 1024).toFixed(0)} kB each) read by ` +
      `loadlab history in ${(h.ms / 1000).toFixed(2)} s (${(h.cpuMs / 1000).toFixed(2)} s of CPU), peak RSS ${(h.maxRssBytes / 1048576).toFixed(0)} MB ` +
      `(${h.series} series); goal for 1,000: ≤ 10 s and ≤ 300 MB`
  ]
}

// Text for a bench() result: the machine, then each measurement that ran, then notes and time.
export function render (result) {
  return [
    ...machineLines(result),
    ...(result.dispatch ? dispatchLines(result.dispatch) : []),
    ...(result.processes ? processesLines(result.processes) : []),
    ...(result.telemetry ? telemetryLines(result.telemetry) : []),
    ...(result.generator ? generatorLines(result.generator) : []),
    ...(result.sampling ? samplingLines(result.sampling) : []),
    ...(result.stamps ? stampsLines(result.stamps) : []),
    ...(result.ruler ? rulerLines(result.ruler) : []),
    ...(result.history ? historyLines(result.history) : []),
    '',
    ...result.notes.map((n) => `note: ${n}`),
    `took ${(result.durationMs / 1000).toFixed(1)} s`
  ].join('\n')
}
