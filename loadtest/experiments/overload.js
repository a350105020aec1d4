// Experiment `overload`: past capacity. Each strategy's capacity C at the target (the capacity sweep in
// the same run, or an earlier capacity report with --capacity-from), then open-loop steps at 1.5, 2 and
// 3 × C and a burst (0.7 → 2 → 0.7 × C): how much useful work survives (goodput), how much is refused
// at once (shed), what the CPU was spent on, and how fast the service comes back. The shedding variants
// (catalog.js) run at their base strategy's C. docs/overload.md states the rules.
import { MISSING, fmtMs, fmtPct, fmtRps as rps } from '../text/format.js'
import { usageError } from '../errors.js'
import { serverOf, variants } from '../catalog.js'
import { SERVERS } from './heavy-cpu.js'
import capacity, { oneTargetSweep } from './capacity.js'
import { RATE_RANGE, SLO_RANGE } from '../settings.js'
import { checkedNumber, readReportFile } from '../report/read.js'
import { taskArgs } from '../run/watch/task.js'
import { OVERLOAD_DEFAULTS, OVERLOAD_QUICK } from '../result/overload.js'
import { fmtRecovery } from '../text/sentences.js'
import { runName } from '../result/key.js'
import { boundFields } from '../result/capacity.js'
import { boundText, overloadRuleText } from '../text/reasons.js'

// The capacity sweep's own settings (experiments/capacity.js), with the overload steps' (result/overload.js).
const defaults = { ...capacity.defaults, overload: OVERLOAD_DEFAULTS }
const quick = { ...capacity.quick, overload: { ...OVERLOAD_DEFAULTS, ...OVERLOAD_QUICK } }

// The highest multiple of C any overload step offers: C times it must be a rate --rate accepts.
const TOP_MULTIPLE = Math.max(...OVERLOAD_DEFAULTS.multiples, OVERLOAD_DEFAULTS.burst.burstMultiple)

// --capacity-from FILE: { `server@work#runtime` → { rps, sloMs, bound, serviceMs, targets, runtime } } of
// the capacity report's results (report/read.js: bounded, a regular file, this schema), every number
// finite and within the range of the option it stands for; else a usage error (exit 2).
function readCapacities (file) {
  const report = readReportFile(file, { as: '--capacity-from' })
  const out = new Map()
  for (const [i, r] of report.results.entries()) {
    const c = r?.capacity?.capacity
    if (r?.kind !== 'http' || !c || r.variant) continue
    const at = (where, value, range, what) =>
      checkedNumber(value, { file, as: '--capacity-from', where: `results[${i}].capacity.${where}`, what, ...range })
    // no capacity at the target (null or 0) is a finding (readCapacity); any other must be a rate
    const rate = (where, v) => v === null || v === 0
      ? v
      : at(where, v, { min: RATE_RANGE.min, max: RATE_RANGE.max / TOP_MULTIPLE }, `a capacity (${TOP_MULTIPLE} × ` +
        'it a --rate)')
    const slo = (where, v) => at(where, v, SLO_RANGE, 'a p99 target (--slo, ms)')
    const serviceMs = r.capacity.serviceMs ?? null // the service time the sweep stood on
    if (serviceMs !== null) at('serviceMs', serviceMs, { min: 0, max: SLO_RANGE.max }, 'a service time (ms)')
    // a multi-target sweep's capacity at each target (targets[0] is `capacity` itself)
    const targets = Array.isArray(r.capacity.targets) ? r.capacity.targets : []
    const runtime = r.runtime?.label ?? null
    out.set(`${r.server}@${r.work}#${runtime ?? ''}`, {
      rps: rate('capacity.rps', c.rps ?? null),
      sloMs: slo('capacity.sloMs', c.sloMs),
      ...boundFields(c),
      serviceMs,
      runtime,
      targets: targets.map((t, k) => ({
        rps: rate(`targets[${k}].rps`, t?.rps ?? null),
        sloMs: slo(`targets[${k}].sloMs`, t?.sloMs),
        ...boundFields(t)
      }))
    })
  }
  if (out.size === 0) {
    throw usageError(`--capacity-from: ${file}: no capacity results (a report of --experiment capacity?)`)
  }
  return out
}

// The capacity of `server` at `work` from the file's, checked: present, of one runtime (a file with
// several for it is refused: which one the run stands for is not the file's to guess), at the run's
// target (--slo, or the file's when none is given), and a number.
function readCapacity (caps, file, { server, work, sloMs }) {
  const mine = [...caps.entries()].filter(([k]) => k.startsWith(`${server}@${work}#`))
  const have = [...caps.keys()].map((k) => k.replace(/#$/, '')).join(', ')
  if (mine.length === 0) {
    throw usageError(`--capacity-from: ${file} has no capacity of ${server}@${work} (it ` +
    `has ${have})`)
  }
  if (mine.length > 1) {
    const runtimes = mine.map(([, c]) => c.runtime).join(', ')
    throw usageError(`--capacity-from: ${file} has ${server}@${work} under ${mine.length} runtimes (${runtimes}): ` +
      'give a report of one')
  }
  const c = mine[0][1]
  if (sloMs !== null && c.sloMs !== sloMs) {
    const other = c.targets.find((t) => t.sloMs === sloMs)
    if (other) {
      const only = new Map([[`${server}@${work}#`, { ...c, ...other, targets: [] }]])
      return readCapacity(only, file, { server, work, sloMs })
    }
    const all = [c.sloMs, ...c.targets.map((t) => t.sloMs).filter((t) => t !== c.sloMs)].join(', ')
    throw usageError(`--capacity-from: ${file} measured ${server} at a ${all} ms target, not --slo ${sloMs} ms`)
  }
  // A strategy that held no rate at the target is a finding of that report, not a mistake: no step for it.
  if (!(c.rps > 0)) {
    return {
      refused: `no capacity at the target in ${file} (${boundText(c)})`,
      sloMs: c.sloMs,
      from: file
    }
  }
  return { rps: c.rps, sloMs: c.sloMs, from: file, serviceMs: c.serviceMs, runtime: c.runtime }
}

export default {
  name: 'overload',
  study: null,
  title: 'Past capacity: goodput, load shedding and recovery per strategy',
  description:
    'Each CPU strategy and the shedding variants: the capacity C at the target (a capacity sweep, or ' +
      '--capacity-from), then open-loop steps at 1.5, 2 and 3 × C and a burst (0.7 × C, 2 × C for 5 s, 0.7 × C). ' +
      'Per step: goodput (verified 2xx within the target), shed share (503/429), timeouts, p99 of answers, ' +
      'backlog and the CPU not spent on good answers; after the burst, the time until every second is good ' +
      'again, or metastable.',
  defaults,
  quick,
  plan (opts) {
    const { settings: q, task, servers: named, capacityFrom, sloMs: userSloMs, user } = opts
    const work = task?.spec ?? opts.work
    const args = task ? taskArgs(task) : ['--work', work]
    // --server names strategies (each with all its variants) or variant keys (that variant and its base).
    const picked = named ?? SERVERS
    const servers = [...new Set(picked.map(serverOf))].filter((s) => SERVERS.includes(s))
    const wanted = (v) => picked.includes(v.server) || picked.includes(v.key)
    const caps = capacityFrom ? readCapacities(capacityFrom) : null
    const settings = q.overload
    const entries = []
    for (const server of servers) {
      const from = caps ? readCapacity(caps, capacityFrom, { server, work, sloMs: userSloMs ?? null }) : null
      const sloMs = from?.sloMs ?? userSloMs ?? null
      const base = { server, args, work, durationSec: user?.durationSec ?? q.durationSec }
      // The capacity sweep at ONE target unless the file gave C: C and the run's cost stay those of one target.
      const sweep = from ? null : oneTargetSweep(opts, sloMs)
      entries.push({ ...base, variant: null, ...(sweep ? { sweep } : {}), overload: { settings, capacity: from } })
      for (const v of variants([server], 'overload').filter(wanted)) {
        entries.push({
          ...base,
          variant: v.variant,
          // its flags at a target and service time (catalog.js): the lab gives them those its base's run
          // resolved, with that run's C (run/round/overload.js handOff)
          argsFor: v.argsFor,
          overload: { settings, base: server, capacity: from }
        })
      }
    }
    return entries
  },
  notes ({ settings, rate }) {
    return [
      `overload: ${overloadRuleText(settings.overload)}`,
      'overload: the shedding variants run at their base strategy\'s C; wasted CPU is null where the work is not ' +
        'CPU (a sleep)',
      ...(rate ? ['overload: --rate is ignored: the rates are multiples of each capacity'] : [])
    ]
  },
  table (report) {
    return overloadTable(report.results)
  }
}

// The overload table: per result, C, then goodput share / shed share / p99 / wasted CPU at each
// multiple, and the recovery after the burst.
function overloadTable (results) {
  const rows = results.filter((r) => r.kind === 'http')
  const all = rows.flatMap((r) => (r.overload?.steps ?? []).map((s) => s.multiple))
  const multiples = [...new Set(all)].sort((a, b) => a - b)
  const head = [
    'server', 'C req/s', 'target',
    ...multiples.flatMap((m) => [`${m}× goodput`, `${m}× shed`, `${m}× p99`, `${m}× wasted CPU`]),
    'recovery', 'trust'
  ]
  const body = rows.map((r) => {
    const o = r.overload
    const name = runName(r)
    if (!o || o.refused) {
      const why = `✗ ${o?.refused ?? r.failure?.reason ?? 'no overload run'}`
      return [name, MISSING, fmtMs(o?.sloMs), ...multiples.flatMap(() => ['', '', '', '']), MISSING, why]
    }
    const cells = multiples.flatMap((m) => {
      const s = o.steps.find((x) => x.multiple === m)
      if (!s) return [MISSING, MISSING, MISSING, MISSING]
      const mark = s.disturbed ? ' !' : '' // disturbed by something else on the machine: see the reasons
      return [fmtPct(s.goodputShare) + mark, fmtPct(s.shedShare), fmtMs(s.p99), fmtPct(s.wastedCpuShare)]
    })
    const trust = r.status === 'failed' ? '✗ failed' : r.trusted ? '✓' : '!'
    return [name, rps(o.capacityRps), fmtMs(o.sloMs), ...cells, fmtRecovery(o.recovery), trust]
  })
  return { head, rows: body }
}
