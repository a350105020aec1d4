// One report from the reports of the shards of one plan (`npm run merge`): the plan split by request
// index (`--shard I/N`, request i to shard i mod N + 1) and started at one moment (`--start-at`), so the
// shards' figures add exactly: histograms added, counts summed, rates added, timelines aligned on the
// common start. Pure: checks and merges report objects; the CLI reads and writes.
import { mergeClasses } from '../result/mix.js'
import { LabError } from '../errors.js'
import { createHistogram, decodeHistogram, encodeHistogram, summarizeHistogram } from '../result/histogram.js'
import { buildReport } from '../result/build.js'
import { roundTo } from '../result/stats.js'
import { mergeTimelines } from './timeline.js'
import { countsFault, plannedSlice } from './counts.js'
import { figuresFault } from './figures.js'
import { untrustedReasons } from '../result/trust.js'
import { reasonText } from '../text/reasons.js'
import { machineLine } from '../text/sentences.js'
import { TRUST } from '../result/rules.js'
import { missingText, refusedMissing, spreadLine, spreadReason } from '../text/fanout.js'

// What makes reports shards of one plan: these fields of `method` must be equal in all of them.
const PLAN_FIELDS = ['url', 'rate', 'arrival', 'seed', 'amount', 'durationSec', 'startAt']
const COUNTS = [
  'sent', 'completed', 'ok', 'non2xx', 'errors', 'protocolErrors', 'interim', 'timeouts', 'dropped', 'mismatches',
  'unanswered'
]
const HISTOGRAMS = ['latency', 'latencyLate', 'service', 'lag', 'wait']
// A shard report's note saying it is one (run/generate/generators.js scaleOutNotes).
const SHARD_NOTE = /^shard \d+\/\d+ of a plan /

// A refusal of npm run merge: one line, exit 2.
export function mergeError (message) {
  return new LabError('LAB_MERGE', `merge: ${message}`, { exitCode: 2 })
}

// Check that the reports (with their file names) are every shard of one plan, once each, and that each
// one's counts agree with its histograms and its slice of the plan (counts.js); throws a mergeError
// naming the first difference. Returns them ordered by shard index. `allowMissing`: shards of the plan
// may be absent (loadlab fanout --allow-missing; mergeShards says which share of the plan is missing).
export function checkShards (entries, { allowMissing = false } = {}) {
  if (entries.length < (allowMissing ? 1 : 2)) throw mergeError('expected the reports of at least two shards')
  for (const { file, report } of entries) checkShard(file, report)
  const [a, ...rest] = entries
  for (const b of rest) {
    for (const k of PLAN_FIELDS) {
      if (a.report.method[k] !== b.report.method[k]) {
        throw mergeError(`${a.file} and ${b.file} are not shards of one plan: ${k} ${show(a.report.method[k])} ` +
          `vs ${show(b.report.method[k])}`)
      }
    }
    if (a.report.method.mix?.hash !== b.report.method.mix?.hash) {
      throw mergeError(`${a.file} and ${b.file} are not shards of one plan: ` +
        `mix ${show(a.report.method.mix?.hash)} vs ${show(b.report.method.mix?.hash)}`)
    }
    if (a.report.results[0].key !== b.report.results[0].key) {
      throw mergeError(`${a.file} and ${b.file} are not shards of one plan: run ${a.report.results[0].key} ` +
        `vs ${b.report.results[0].key}`)
    }
  }
  const ordered = checkCoverage(entries, allowMissing)
  for (const { file, report } of ordered) {
    const fault = shardFault(report)
    if (fault) throw mergeError(`${file}: ${fault}: not merged`)
  }
  checkRepeats(ordered)
  return ordered
}

// Why one shard's figures cannot be merged (its counts, or its figures against its counts and
// histograms), or null.
export function shardFault (report) {
  const counts = countsFault(report)
  if (counts) return `its counts disagree (${counts})`
  const figures = figuresFault(report)
  return figures ? `its figures disagree (${figures})` : null
}

// One run given as two shards: the same report id, or the same round (its histograms and its first
// request's moment) under another index.
function checkRepeats (entries) {
  const seen = new Map()
  for (const e of entries) {
    const r = e.report.results[0]
    const round = JSON.stringify([r.histograms ?? null, r.open?.firstIssueMs ?? null, r.open?.firstDueMs ?? null])
    for (const sign of [`id ${e.report.id}`, `round ${round}`]) {
      const first = seen.get(sign)
      if (first) {
        throw mergeError(`${first.file} and ${e.file} are one run given as two shards (the ` +
          `same ${sign.split(' ')[0]}): not merged`)
      }
      seen.set(sign, e)
    }
  }
}

// One report that can be a shard: an open-loop --shard run with one result.
function checkShard (file, report) {
  const shard = report.method?.shard
  if (!shard || !Number.isInteger(shard.index) || !Number.isInteger(shard.count)) {
    throw mergeError(`${file} is not a shard (its method has no shard: run the lab with --shard I/N --start-at T)`)
  }
  if (report.results.length !== 1 || report.results[0]?.kind !== 'http') {
    throw mergeError(`${file} is not a shard report (expected one HTTP result, found ${report.results.length})`)
  }
  const unmeasured = unmeasuredShard(report)
  if (unmeasured) throw mergeError(`${file}: ${unmeasured}: not merged`)
}

// Why a shard report has nothing to merge (its run failed before its open loop measured), or null.
export function unmeasuredShard (report) {
  const r = report.results?.[0]
  if (!r || r.open) return null
  return `its run failed before it measured (${r.failure?.reason ?? r.status})`
}

// Every shard 1..N exactly once (or at most once, `allowMissing`), all of the same N.
function checkCoverage (entries, allowMissing) {
  const count = entries[0].report.method.shard.count
  const byIndex = new Map()
  for (const e of entries) {
    const { index, count: n } = e.report.method.shard
    if (n !== count) {
      throw mergeError(`${entries[0].file} and ${e.file} are not shards of one plan: shard ` +
      `count ${count} vs ${n}`)
    }
    if (byIndex.has(index)) {
      throw mergeError(`shard ${index}/${count} given twice: ${byIndex.get(index).file} ` +
      `and ${e.file}`)
    }
    byIndex.set(index, e)
  }
  const missing = missingOf(entries)
  if (missing && !allowMissing) throw mergeError(refusedMissing(missing))
  return [...byIndex.keys()].sort((x, y) => x - y).map((i) => byIndex.get(i))
}

// The shards of the plan that are not among the entries, and their share of it: { shards: [{ index,
// count, host, exitCode, signal, why }], planned, total, share } (requests planned for them, of the whole
// plan), or null when none is missing. `absent` says what is known of them (loadlab fanout: host, end).
export function missingOf (entries, absent = []) {
  const { method } = entries[0].report
  const { count } = method.shard
  const have = new Set(entries.map((e) => e.report.method.shard.index))
  const indexes = Array.from({ length: count }, (_, i) => i + 1)
  const gone = indexes.filter((i) => !have.has(i))
  if (!gone.length) return null
  const planned = (i) => plannedSlice(method, { index: i, count }).planned
  const total = indexes.reduce((a, i) => a + planned(i), 0)
  const missing = gone.reduce((a, i) => a + planned(i), 0)
  const shards = gone.map((index) => {
    const known = absent.find((f) => f.index === index) ?? {}
    const { host = null, exitCode = null, signal = null, why = null } = known
    return { index, count, host, exitCode, signal, why }
  })
  return { shards, planned: missing, total, share: total > 0 ? roundTo(missing / total, 4) : null }
}

// When each shard's first request left against its due time from the common start (ms, its own clock:
// open.firstIssueMs − open.firstDueMs), and on the target's clock where its offset is known
// (entry.clock from loadlab fanout: shard clock − target clock, ± uncertaintyMs). The spread judged is
// the one on the target's clock when every offset is known, less what the offsets leave uncertain
// (`spreadAtLeastMs`), else the one on the shards' own clocks; its tolerance is the lag a generator may
// have (TRUST.lagP99LimitMs).
export function startOf (entries) {
  const shards = entries.map(({ report, clock = null }) => {
    const o = report.results[0].open
    const own = typeof o?.firstIssueMs === 'number' && typeof o?.firstDueMs === 'number'
      ? o.firstIssueMs - o.firstDueMs
      : null
    const known = own !== null && typeof clock?.offsetMs === 'number'
    return {
      startMs: own === null ? null : roundTo(own, 3),
      onTargetMs: known ? roundTo(own - clock.offsetMs, 3) : null,
      u: known ? clock.uncertaintyMs ?? 0 : 0
    }
  })
  const range = (list) => (list.some((v) => v === null) ? null : roundTo(Math.max(...list) - Math.min(...list), 3))
  const ownSpreadMs = range(shards.map((s) => s.startMs))
  const targetSpreadMs = range(shards.map((s) => s.onTargetMs))
  const clocks = targetSpreadMs === null ? 'unknown' : 'measured'
  const uncertaintyMs = clocks === 'measured' ? roundTo(2 * Math.max(...shards.map((s) => s.u)), 3) : null
  const judged = clocks === 'measured' ? Math.max(0, targetSpreadMs - uncertaintyMs) : ownSpreadMs
  return {
    spreadMs: ownSpreadMs,
    targetSpreadMs,
    uncertaintyMs,
    spreadAtLeastMs: judged === null ? null : roundTo(judged, 3),
    toleranceMs: TRUST.lagP99LimitMs,
    clocks,
    shards: shards.map(({ startMs, onTargetMs }) => ({ startMs, onTargetMs }))
  }
}

function show (v) {
  return v === null || v === undefined ? 'none' : JSON.stringify(v)
}

// Encoded histograms added into one, re-encoded (null when none has it).
function addEncoded (texts) {
  const list = texts.filter((t) => typeof t === 'string' && t.length > 0)
  if (!list.length) return null
  const total = createHistogram()
  for (const t of list) {
    try {
      total.add(decodeHistogram(t))
    } catch (err) {
      if (err instanceof RangeError) throw mergeError(`a shard's histogram is ${err.message}`)
      throw err
    }
  }
  return total
}

// The merged round's histograms (encoded) and their decoded sums.
function mergedHistograms (results) {
  const sums = {}
  const encoded = {}
  for (const k of HISTOGRAMS) {
    sums[k] = addEncoded(results.map((r) => r.histograms?.[k]))
    if (sums[k]) encoded[k] = encodeHistogram(sums[k])
  }
  return { sums, encoded }
}

// Counts summed over the shards, status codes too.
function sumCounts (results) {
  const requests = Object.fromEntries(COUNTS.map((k) => [k, results.reduce((a, r) => a + (r.requests?.[k] ?? 0), 0)]))
  const codes = new Map()
  for (const r of results) {
    for (const [code, n] of Object.entries(r.statusCodes ?? {})) codes.set(code, (codes.get(code) ?? 0) + n)
  }
  return { requests, statusCodes: Object.fromEntries([...codes].sort(([a], [b]) => a.localeCompare(b))) }
}

// Each shard's (or each of its threads') schedule figures, for the trust rules.
function generatorsOf (results) {
  return results.flatMap((r) => {
    const { scheduledRate, sendRate, sendRateError, lag, windows, lagAfterWarmup, peakBacklog } = r.open
    const own = windows ? { windows, lagAfterWarmup, peakBacklog } : {} // the generator's own count, where recorded
    return r.open.generators ?? [{ scheduledRate, sendRate, sendRateError, lag, ...own }]
  })
}

// The shards' own issue windows added window by window (all count from the common start's warm-up end),
// or null when any shard did not record them.
function mergedWindows (results) {
  if (!results.every((r) => Array.isArray(r.open?.windows))) return null
  const byT = new Map()
  for (const r of results) {
    for (const w of r.open.windows) {
      const m = byT.get(w.t) ?? { t: w.t, due: 0, sent: 0 }
      m.due += w.due
      m.sent += w.sent
      byT.set(w.t, m)
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t)
}

// The open loop's figures of the whole plan: rates added, lag and waits from the added histograms.
function mergedOpen (results, sums) {
  const sum = (k) => results.reduce((a, r) => a + (r.open?.[k] ?? 0), 0)
  const sendRate = sum('sendRate')
  const scheduledRate = sum('scheduledRate')
  const lag = sums.lag ? summarizeHistogram(sums.lag) : null
  const o = results[0].open
  return {
    rate: o.rate,
    arrival: o.arrival,
    seed: o.seed,
    written: sum('written'),
    waited: sum('waited'),
    peakInFlight: sum('peakInFlight'), // each shard's peak: a bound
    priorityRaised: results.every((r) => r.open.priorityRaised),
    scheduledRate: roundTo(scheduledRate, 3),
    sendRate: roundTo(sendRate, 3),
    sendRateError: scheduledRate > 0 ? roundTo(sendRate / scheduledRate - 1, 4) : null,
    lag: lag ? { p50: lag.p50, p99: lag.p99, max: lag.max } : null,
    generators: generatorsOf(results),
    ...(mergedWindows(results) ? { windows: mergedWindows(results) } : {}),
    wait: sums.wait ? summarizeHistogram(sums.wait) : null,
    service: sums.service ? summarizeHistogram(sums.service) : null
  }
}

// The /health probes of all shards: counts summed, the worst p99 and max (the samples are not kept).
function mergedProbe (results) {
  const probes = results.map((r) => r.probe).filter(Boolean)
  if (!probes.length) return null
  const sum = (k) => probes.reduce((a, p) => a + (p[k] ?? 0), 0)
  const worst = (k) => Math.max(...probes.map((p) => p[k] ?? -Infinity))
  const counts = { count: sum('count'), failed: sum('failed'), timedOut: sum('timedOut'), abandoned: sum('abandoned') }
  return { ...counts, p50: null, p99: worst('p99'), max: worst('max') }
}

// Server-Timing: counts summed, the mean weighted by count (medians do not add).
function mergedServerTiming (results) {
  const count = results.reduce((a, r) => a + (r.serverTiming?.count ?? 0), 0)
  const weighted = (k) =>
    results.reduce((a, r) => a + (r.serverTiming?.[k]?.mean ?? 0) * (r.serverTiming?.count ?? 0), 0)
  const mean = (k) => (count > 0 ? roundTo(weighted(k) / count, 3) : null)
  return { count, workMs: { mean: mean('workMs'), median: null }, queueMs: { mean: mean('queueMs'), median: null } }
}

// The slowest shard's recovery request (an unanswered one counts as the slowest).
function slowestRecovery (results) {
  const list = results.map((r) => r.recovery).filter(Boolean)
  return list.sort((x, y) => (y.ms ?? Infinity) - (x.ms ?? Infinity))[0] ?? null
}

// Why the merged run is not to be taken at face value: the trust rules (result/trust.js) run again on the
// merged figures, every shard's own reasons named by shard, a share of the plan missing, a start spread
// past its tolerance. A shard's `untrusted: []` is not taken on its word.
function mergedTrust (entries, merged, { start, missing }) {
  const own = entries.flatMap(({ report }) => {
    const { index, count } = report.method.shard
    return report.results[0].untrusted.map((x) => `shard ${index}/${count}: ${x}`)
  })
  const again = untrustedReasons(merged, { failure: merged.failure, interrupted: merged.interrupted }).map(reasonText)
  own.unshift(...again)
  if (missing) own.push(missingText(missing))
  if (start.spreadAtLeastMs !== null && start.spreadAtLeastMs > start.toleranceMs) own.push(spreadReason(start))
  return [...new Set(own)]
}

// The plan's rate from the shards' counts: each shard's answers over its own duration, added.
function derivedRate (results) {
  const own = (r) => (r.durationMs > 0 ? (r.requests.completed * 1000) / r.durationMs : 0)
  return roundTo(results.reduce((a, r) => a + own(r), 0), 3)
}

// The merged HTTP result: the first shard's identity, every figure from all of them.
function mergeResults (entries, missing) {
  const results = entries.map((e) => e.report.results[0])
  const first = results[0]
  const { sums, encoded } = mergedHistograms(results)
  const { requests, statusCodes } = sumCounts(results)
  const { shards: _, ...start } = startOf(entries) // the shards' own start figures are in method.shards
  const failed = results.find((r) => r.status === 'failed')
  const merged = {
    ...first,
    connections: results.reduce((a, r) => a + (r.connections ?? 0), 0),
    status: failed ? 'failed' : 'ok',
    failure: failed?.failure ?? null,
    interrupted: results.some((r) => r.interrupted),
    requests,
    statusCodes,
    durationMs: Math.max(...results.map((r) => r.durationMs ?? 0)),
    rps: derivedRate(results),
    latency: { ...summarizeHistogram(sums.latency ?? createHistogram()), censored: requests.timeouts },
    open: mergedOpen(results, sums),
    start,
    histograms: encoded,
    serverTiming: mergedServerTiming(results),
    phases: null, // where the time went: each shard's own (a report keeps figures, not tallies that add up)
    probe: mergedProbe(results),
    recovery: slowestRecovery(results),
    telemetry: null,
    outside: null,
    timeline: mergeTimelines(results.map((r) => r.timeline)),
    ideal: null,
    efficiency: null,
    examples: results.map((r) => r.examples).find((x) => x?.mismatchBody || x?.error) ?? first.examples,
    notes: [...new Set(results.flatMap((r) => r.notes ?? []))],
    // a mix's, per class
    ...(first.classes ? { classes: mergeClasses(results.map((r) => r.classes), results.map((r) => r.durationMs)) } : {})
  }
  const untrusted = mergedTrust(entries, merged, { start, missing })
  return { ...merged, trusted: untrusted.length === 0, untrusted }
}

// What the merged report's method says: the plan, the shards it was made of (with the host, counts,
// start and clock a fan-out knows), and those missing.
function mergedMethod (entries, command, missing) {
  const start = startOf(entries).shards
  const m = entries[0].report.method
  return {
    ...m,
    connections: entries.reduce((a, e) => a + (e.report.method.connections ?? 0), 0),
    generators: entries.reduce((a, e) => a + (e.report.method.generators ?? 1), 0),
    shard: null,
    shards: entries.map(({ file, report, host = null, clock = null }, k) => ({
      index: report.method.shard.index,
      count: report.method.shard.count,
      report: report.id,
      file,
      host,
      machine: machineLine(report),
      generators: report.method.generators ?? 1,
      rps: report.results[0].rps,
      sent: report.results[0].requests?.sent ?? null,
      answered: report.results[0].requests?.completed ?? null,
      ...start[k],
      clock
    })),
    missing: missing ? missing.shards : [],
    command
  }
}

// The merged report of checked shard entries (checkShards): one result, method.shards naming them. An
// entry may carry `host` and `clock` (loadlab fanout); `absent` describes shards that are missing
// (checkShards allowMissing): the report is then partial and says which share of the plan is missing.
export function mergeShards (entries, { id, createdAt, command = null, absent = [] }) {
  const first = entries[0].report
  const count = entries.length
  const missing = missingOf(entries, absent)
  return buildReport({
    id,
    createdAt,
    finishedAt: createdAt,
    interrupted: Boolean(missing) || entries.some((e) => e.report.status === 'partial'),
    experiment: first.experiment,
    label: `${count} shards merged${first.label ? `: ${first.label}` : ''}`,
    machine: first.machine,
    method: mergedMethod(entries, command, missing),
    calibration: first.calibration ?? {},
    results: [mergeResults(entries, missing)],
    notes: [
      `merged from ${count} shards of one plan (npm run merge): histograms added, counts summed, rates added, ` +
        `timelines aligned on the common start ${first.method.startAt}`,
      ...(missing ? [missingText(missing)] : []),
      spreadLine(startOf(entries)),
      'the server\'s telemetry is not merged: each shard read the server\'s whole window (see the shard reports); ' +
        '/health probe p99 and max are the worst shard\'s',
      ...(first.notes ?? []).filter((n) => !SHARD_NOTE.test(n)) // the merged report is no shard
    ]
  })
}
