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
import { countsFault } from './counts.js'
import { machineLine } from '../text/sentences.js'

// What makes reports shards of one plan: these fields of `method` must be equal in all of them.
const PLAN_FIELDS = ['url', 'rate', 'arrival', 'seed', 'amount', 'durationSec', 'startAt']
const COUNTS = ['sent', 'completed', 'ok', 'non2xx', 'errors', 'protocolErrors', 'interim', 'timeouts', 'mismatches', 'unanswered']
const HISTOGRAMS = ['latency', 'service', 'lag', 'wait']
// A shard report's note saying it is one (run/generate/generators.js scaleOutNotes).
const SHARD_NOTE = /^shard \d+\/\d+ of a plan /

// A refusal of npm run merge: one line, exit 2.
export function mergeError (message) {
  return new LabError('LAB_MERGE', `merge: ${message}`, { exitCode: 2 })
}

// Check that the reports (with their file names) are every shard of one plan, once each, and that each
// one's counts agree with its histograms and its slice of the plan (counts.js); throws a mergeError
// naming the first difference. Returns them ordered by shard index.
export function checkShards (entries) {
  if (entries.length < 2) throw mergeError('expected the reports of at least two shards')
  for (const { file, report } of entries) checkShard(file, report)
  const [a, ...rest] = entries
  for (const b of rest) {
    for (const k of PLAN_FIELDS) {
      if (a.report.method[k] !== b.report.method[k]) {
        throw mergeError(`${a.file} and ${b.file} are not shards of one plan: ${k} ${show(a.report.method[k])} vs ${show(b.report.method[k])}`)
      }
    }
    if (a.report.results[0].key !== b.report.results[0].key) {
      throw mergeError(`${a.file} and ${b.file} are not shards of one plan: run ${a.report.results[0].key} vs ${b.report.results[0].key}`)
    }
  }
  const ordered = checkCoverage(entries)
  for (const { file, report } of ordered) {
    const fault = countsFault(report)
    if (fault) throw mergeError(`${file}: its counts disagree (${fault}): not merged`)
  }
  return ordered
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
}

// Every shard 1..N exactly once, all of the same N.
function checkCoverage (entries) {
  const count = entries[0].report.method.shard.count
  const byIndex = new Map()
  for (const e of entries) {
    const { index, count: n } = e.report.method.shard
    if (n !== count) throw mergeError(`${entries[0].file} and ${e.file} are not shards of one plan: shard count ${count} vs ${n}`)
    if (byIndex.has(index)) throw mergeError(`shard ${index}/${count} given twice: ${byIndex.get(index).file} and ${e.file}`)
    byIndex.set(index, e)
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i))
  if (missing.length) throw mergeError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing`)
  return [...byIndex.keys()].sort((x, y) => x - y).map((i) => byIndex.get(i))
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
  const statusCodes = {}
  for (const r of results) {
    for (const [code, n] of Object.entries(r.statusCodes ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + n
  }
  return { requests, statusCodes }
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

// Why the merged run is not to be taken at face value: every shard's reasons, named by shard.
function mergedTrust (entries) {
  return entries.flatMap(({ report }) => {
    const { index, count } = report.method.shard
    return report.results[0].untrusted.map((x) => `shard ${index}/${count}: ${x}`)
  })
}

// The merged HTTP result: the first shard's identity, every figure from all of them.
function mergeResults (entries) {
  const results = entries.map((e) => e.report.results[0])
  const first = results[0]
  const { sums, encoded } = mergedHistograms(results)
  const { requests, statusCodes } = sumCounts(results)
  const untrusted = mergedTrust(entries)
  const failed = results.find((r) => r.status === 'failed')
  return {
    ...first,
    connections: results.reduce((a, r) => a + (r.connections ?? 0), 0),
    status: failed ? 'failed' : 'ok',
    failure: failed?.failure ?? null,
    interrupted: results.some((r) => r.interrupted),
    trusted: untrusted.length === 0,
    untrusted,
    requests,
    statusCodes,
    durationMs: Math.max(...results.map((r) => r.durationMs ?? 0)),
    rps: roundTo(results.reduce((a, r) => a + (r.rps ?? 0), 0), 3),
    latency: { ...summarizeHistogram(sums.latency ?? createHistogram()), censored: requests.timeouts },
    open: mergedOpen(results, sums),
    histograms: encoded,
    serverTiming: mergedServerTiming(results),
    probe: mergedProbe(results),
    recovery: slowestRecovery(results),
    telemetry: null,
    outside: null,
    timeline: mergeTimelines(results.map((r) => r.timeline)),
    ideal: null,
    efficiency: null,
    examples: results.map((r) => r.examples).find((x) => x?.mismatchBody || x?.error) ?? first.examples,
    notes: [...new Set(results.flatMap((r) => r.notes ?? []))],
    ...(first.classes ? { classes: mergeClasses(results.map((r) => r.classes)) } : {}) // a mix's, per class
  }
}

// What the merged report's method says: the plan, and the shards it was made of.
function mergedMethod (entries, command) {
  const m = entries[0].report.method
  return {
    ...m,
    connections: entries.reduce((a, e) => a + (e.report.method.connections ?? 0), 0),
    generators: entries.reduce((a, e) => a + (e.report.method.generators ?? 1), 0),
    shard: null,
    shards: entries.map(({ file, report }) => ({
      index: report.method.shard.index,
      count: report.method.shard.count,
      report: report.id,
      file,
      machine: machineLine(report),
      generators: report.method.generators ?? 1,
      rps: report.results[0].rps
    })),
    command
  }
}

// The merged report of checked shard entries (checkShards): one result, method.shards naming them.
export function mergeShards (entries, { id, createdAt, command = null }) {
  const first = entries[0].report
  const count = entries.length
  return buildReport({
    id,
    createdAt,
    finishedAt: createdAt,
    interrupted: entries.some((e) => e.report.status === 'partial'),
    experiment: first.experiment,
    label: `${count} shards merged${first.label ? `: ${first.label}` : ''}`,
    machine: first.machine,
    method: mergedMethod(entries, command),
    calibration: first.calibration ?? {},
    results: [mergeResults(entries)],
    notes: [
      `merged from ${count} shards of one plan (npm run merge): histograms added, counts summed, rates added, timelines aligned on the common start ${first.method.startAt}`,
      'the server\'s telemetry is not merged: each shard read the server\'s whole window (see the shard reports); /health probe p99 and max are the worst shard\'s',
      ...(first.notes ?? []).filter((n) => !SHARD_NOTE.test(n)) // the merged report is no shard
    ]
  })
}
