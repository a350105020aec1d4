// One open-loop plan fanned out over hosts by pdsh (`loadlab fanout`): one shard per host, one common
// start. The steps: read each host's clock against the target (clock.js, one pdsh pass), pick the start
// from how long the hosts took to answer, run `--shard I/N --start-at T --json` on every host at once
// (a second pass; pdsh's rank %n + 1 is I), read each shard's report off pdsh's `host: ` lines, and merge
// them (merge/merge.js) with each host's clock; thresholds are judged on the merged figures. The run is
// a function that returns the merged report and what happened to each shard; cli.js writes and prints.
import { spawnSync } from 'node:child_process'
import { LabError } from '../errors.js'
import { checkShards, mergeShards, missingOf, unmeasuredShard } from '../merge/merge.js'
import { checkReport } from '../compare/compare.js'
import { validateReport } from '../report/read.js'
import { reportId } from '../report/write.js'
import { evaluateThresholds } from '../report/thresholds.js'
import { escapePercent, MAX_HOST_BYTES, pdshArgs, runPdsh, shellWord } from './pdsh.js'
import { endedAfterReport, endText, failedShard, refusedMissing } from '../text/fanout.js'

// The start is at least this far ahead (s), and this many times what the slowest host took to answer
// the clock pass (connect, start node, reach the target): the lab loads more than the probe, opens its
// connections and sends its warm-up before the start. Without a clock pass: DEFAULT_LEAD_SEC.
export const MIN_LEAD_SEC = 5
export const LEAD_FACTOR = 3
export const DEFAULT_LEAD_SEC = 10
// How long past its plan a shard may run before pdsh ends it (s): its recovery and report.
const SHARD_GRACE_SEC = 120
const CLOCK_PASS_SEC = 60

// The error of a fan-out that cannot go on (exit 1), or refuses before anything starts (exit 2).
export function fanoutError (message, exitCode = 1) {
  return new LabError('LAB_FANOUT', `fanout: ${message}`, { exitCode })
}

// An interrupted fan-out (SIGINT, SIGTERM): exit 130, as the lab's.
function interrupted (what) {
  return fanoutError(`interrupted: ${what}`, 130)
}

// pdsh must be there, with the rcmd module asked for.
export function checkPdsh (rcmd, pdsh = 'pdsh') {
  const r = spawnSync(pdsh, ['-V'], { encoding: 'utf8' })
  if (r.error) {
    throw fanoutError(`${pdsh} not found (${r.error.code}): install it (Debian: apt-get install pdsh)`, 2)
  }
  const modules = /rcmd modules:\s*([^\n(]*)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? ''
  if (!modules.split(',').map((m) => m.trim()).includes(rcmd)) {
    throw fanoutError(`pdsh has no rcmd module ${rcmd} (it has: ${modules.trim() || 'none listed'})`, 2)
  }
}

// The shell command that starts `script` with `args` in the lab's folder on a host, pdsh's % kept out.
function remote (plan, script, args) {
  const words = (list) => list.map(shellWord).join(' ')
  return escapePercent(`cd ${shellWord(plan.dir)} && exec ${words([plan.node, script, ...args])}`)
}

// The lab's arguments of the plan, for every shard (its --shard is added per host).
function planArgs (plan, startAt) {
  const size = plan.amount !== null ? ['--amount', plan.amount] : ['--duration', plan.durationSec]
  return ['--url', plan.url, '--rate', plan.rate, ...size, '--start-at', startAt, '--json', ...plan.labArgs].map(String)
}

// The clock pass: each host's offset against the target's Date (clock.js), and the start's lead (s).
async function clockPass (plan, { signal }) {
  const started = Date.now()
  const command = remote(plan, 'loadtest/fanout/clock.js', [plan.url])
  const args = pdshArgs({ ...plan, command, timeoutSec: CLOCK_PASS_SEC })
  const run = await runPdsh(args, { hosts: plan.hosts, signal, pdsh: plan.pdsh })
  const wallMs = Date.now() - started
  const clocks = new Map()
  let measured = 0
  for (const [host, r] of run.hosts) {
    const line = r.stdout.split('\n').reverse().find((l) => l.startsWith('{"clock"'))
    let clock = null
    try {
      clock = line ? JSON.parse(line).clock : null
    } catch {}
    if (clock) measured = Math.max(measured, clock.measureMs ?? 0)
    clocks.set(host, clock ?? { offsetMs: null, why: `the clock pass: ${endText(r)}${r.said ? `, ${r.said}` : ''}` })
  }
  const warmSec = Math.max(0, wallMs - measured) / 1000
  return { clocks, leadSec: Math.max(MIN_LEAD_SEC, Math.ceil(LEAD_FACTOR * warmSec)) }
}

// The shard pass: every host runs its shard from `startAt`; resolves pdsh's run.
function shardPass (plan, startAt, { signal }) {
  const shard = ` --shard "$((%n + 1))/${plan.hosts.length}"`
  const command = remote(plan, 'loadtest/cli.js', planArgs(plan, startAt)) + shard
  const planSec = plan.amount !== null ? plan.amount / plan.rate : plan.durationSec
  const timeoutSec = (Date.parse(startAt) - Date.now()) / 1000 + planSec + SHARD_GRACE_SEC
  return runPdsh(pdshArgs({ ...plan, command, timeoutSec }), { hosts: plan.hosts, signal, pdsh: plan.pdsh })
}

// Host k's shard (k + 1 of N) from what pdsh brought back: { entry } with its report, or { failure }.
export function readShard (host, k, count, r) {
  const index = k + 1
  const { exitCode, signal, stderrTail } = r
  const fail = (why) => ({ failure: { index, count, host, exitCode, signal, why, stderrTail } })
  if (r.overflow) return fail(`its report passed ${MAX_HOST_BYTES} bytes, the most kept of a host`)
  const text = r.stdout.trim()
  if (!text) return fail(r.said ? `no report (pdsh: ${r.said})` : 'no report on its stdout')
  let report
  try {
    report = JSON.parse(text)
  } catch (err) {
    return fail(`its stdout is not a report (${err.message.split('\n')[0]})`)
  }
  const s = report?.method?.shard
  if (report?.kind !== 'loadlab-report' || !s) return fail('its stdout is not a shard report')
  if (s.index !== index || s.count !== count) return fail(`its report is shard ${s.index}/${s.count}, not ${index}/${count}`)
  try {
    validateReport(checkReport(report, host), { file: host }) // as npm run merge reads a shard's file
  } catch (err) {
    return fail(`its report is refused: ${err.message}`)
  }
  const unmeasured = unmeasuredShard(report)
  if (unmeasured) return fail(unmeasured)
  const file = `shard-${index}-of-${count}-${host}.json` // in the merged report's <id>-shards/ (cli.js)
  return { entry: { file, report, host, text, exitCode, signal, stderrTail } }
}

// Fan the plan out and merge: { report, entries, failures, startAt, leadSec }. `progress(line)` hears
// what is under way. Refuses (exit 1) a plan with a shard missing unless plan.allowMissing.
export async function runFanout (plan, { signal = null, progress = () => {}, command = null } = {}) {
  checkPdsh(plan.rcmd, plan.pdsh)
  const count = plan.hosts.length
  let clocks = new Map()
  let leadSec = plan.leadSec ?? DEFAULT_LEAD_SEC
  if (plan.clock) {
    progress(`reading ${count} hosts' clocks against ${new URL(plan.url).origin}'s Date`)
    const pass = await clockPass(plan, { signal })
    if (signal?.aborted) throw interrupted('during the clock pass')
    clocks = pass.clocks
    leadSec = plan.leadSec ?? pass.leadSec
  }
  const startAt = new Date(Date.now() + leadSec * 1000).toISOString()
  progress(`${count} shards start at ${startAt} (in ${leadSec} s)`)
  const run = await shardPass(plan, startAt, { signal })
  if (signal?.aborted) throw interrupted('pdsh ended every shard (-b), nothing merged')
  const entries = []
  const failures = []
  plan.hosts.forEach((host, k) => {
    const got = readShard(host, k, count, run.hosts.get(host))
    if (got.entry) entries.push({ ...got.entry, clock: clocks.get(host) ?? null })
    else failures.push(got.failure)
  })
  for (const f of failures) progress(failedShard(f))
  for (const e of entries) if (e.exitCode !== 0) progress(endedAfterReport(e))
  if (!entries.length) throw fanoutError(`no shard brought a report back: ${failures.map(failedShard).join('; ')}`)
  const missing = missingOf(entries, failures)
  if (missing && !plan.allowMissing) throw fanoutError(refusedMissing(missing))
  const ordered = checkShards(entries, { allowMissing: plan.allowMissing })
  const createdAt = new Date()
  const report = mergeShards(ordered, {
    id: reportId(createdAt, 'fanout', ordered[0].report.experiment),
    createdAt: createdAt.toISOString(),
    command,
    absent: failures
  })
  if (plan.thresholds.length) report.thresholds = evaluateThresholds(plan.thresholds, report.results)
  return { report, entries: ordered, failures, startAt, leadSec }
}
