// One open-loop plan fanned out over hosts by pdsh (`loadlab fanout`): one shard per host, one common
// start. The steps: read each host's clock against the target (clock.js, one pdsh pass), pick the start
// from how long the hosts took to answer, run `--shard I/N --start-at T --json` on every host at once
// (a second pass; pdsh's rank %n + 1 is I), read each shard's report off pdsh's `host: ` lines, and merge
// them (merge/merge.js) with each host's clock; thresholds are judged on the merged figures. The run is
// a function that returns the merged report and what happened to each shard; cli.js writes and prints.
import { spawnSync } from 'node:child_process'
import { LabError } from '../errors.js'
import { checkShards, mergeShards, missingOf, shardFault, unmeasuredShard } from '../merge/merge.js'
import { checkReport } from '../compare/compare.js'
import { validateReport } from '../report/read.js'
import { reportId } from '../report/write.js'
import { evaluateThresholds } from '../report/thresholds.js'
import { escapePercent, MAX_HOST_BYTES, pdshArgs, runPdsh, shellWord } from './pdsh.js'
import {
  clockFault, endedAfterReport, endText, failedShard, noShardText, refusedMissing, shardsEndedText
} from '../text/fanout.js'
import { placeSecrets, readSecretsCommand, removeSecrets, shardSecrets } from './secrets.js'
import { endShards, PID_LINE, shardPid } from './end.js'

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
function remote (plan, script, args, nodeArgs = []) {
  const words = (list) => list.map(shellWord).join(' ')
  return escapePercent(`cd ${shellWord(plan.dir)} && exec ${words([plan.node, ...nodeArgs, script, ...args])}`)
}

// The lab's arguments of the plan, for every shard (its --shard is added per host; its --url and -H come
// in its environment, secrets.js). No ruler: its reading would fall between a shard's start and the
// common start that the lead was sized for, and a merged report has no one machine to keep it for.
function planArgs (plan, startAt) {
  const size = plan.amount !== null ? ['--amount', plan.amount] : ['--duration', plan.durationSec]
  return ['--rate', plan.rate, ...size, '--no-ruler', '--start-at', startAt, '--json', ...plan.labArgs].map(String)
}

// What a host's clock pass may say: numbers, finite, within these bounds (ms); past them it is refused.
// An offset past an hour is past the furthest start the lab takes (--start-at).
const CLOCK_BOUNDS = { offsetMs: 3_600_000, uncertaintyMs: 60_000, measureMs: CLOCK_PASS_SEC * 1000 }

// A host's clock line checked: { clock } or { fault } (a sentence).
export function checkClock (clock) {
  if (!clock || typeof clock !== 'object') return { fault: 'not an object' }
  if (clock.offsetMs === null) {
    const why = typeof clock.why === 'string' ? clock.why.slice(0, 200) : 'no reason given'
    const measureMs = inBounds(clock.measureMs, CLOCK_BOUNDS.measureMs) ? clock.measureMs : null
    return { clock: { offsetMs: null, why, measureMs } }
  }
  for (const k of ['offsetMs', 'uncertaintyMs', 'measureMs']) {
    const v = clock[k]
    const floor = k === 'offsetMs' ? -CLOCK_BOUNDS[k] : 0
    if (!inBounds(v, CLOCK_BOUNDS[k], floor)) {
      return {
        fault: `${k} ${JSON.stringify(v)?.slice(0, 40)} (${floor} to ${CLOCK_BOUNDS[k]})`
      }
    }
  }
  return { clock: { offsetMs: clock.offsetMs, uncertaintyMs: clock.uncertaintyMs, measureMs: clock.measureMs } }
}

const inBounds = (v, max, min = 0) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max

// The clock pass: each host's offset against the target's Date (clock.js), and the start's lead (s).
async function clockPass (plan, { signal }) {
  const started = Date.now()
  // no user:password, no query
  // a shard loads the whole lab before it reads its --start-at: the pass preloads it too, so the time to its
  // answer (what the lead is made from) holds what a shard's start costs on this host now
  const command = remote(plan, 'loadtest/fanout/clock.js', [`${new URL(plan.url).origin}/`],
    ['--import=./loadtest/cli.js'])
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
    if (clock) {
      const checked = checkClock(clock)
      if (checked.fault) throw fanoutError(clockFault(host, checked.fault))
      clock = checked.clock
      measured = Math.max(measured, clock.measureMs ?? 0)
    }
    clocks.set(host, clock ?? { offsetMs: null, why: `the clock pass: ${endText(r)}${r.said ? `, ${r.said}` : ''}` })
  }
  const warmSec = Math.max(0, wallMs - measured) / 1000
  return { clocks, leadSec: Math.max(MIN_LEAD_SEC, Math.ceil(LEAD_FACTOR * warmSec)) }
}

// The shard pass: every host runs its shard from `startAt`, its secrets read from its file (secrets.js),
// its process id said first on stderr (end.js: to end its process group when interrupted); resolves
// pdsh's run and, when `signal` aborted it, which shards were ended ({ ended: [{ host, confirmed, why }] }).
async function shardPass (plan, startAt, secrets, { signal }) {
  const shard = ` --shard "$((%n + 1))/${plan.hosts.length}"`
  const command = `echo "${PID_LINE} $$" >&2 && ${readSecretsCommand(secrets)}` +
    remote(plan, 'loadtest/cli.js', planArgs(plan, startAt)) + shard
  const planSec = plan.amount !== null ? plan.amount / plan.rate : plan.durationSec
  const timeoutSec = (Date.parse(startAt) - Date.now()) / 1000 + planSec + SHARD_GRACE_SEC
  const pids = new Map()
  let pdshPid = null
  const inner = new AbortController()
  let ending = null
  const onAbort = () => {
    ending = endShards(plan, pids).finally(() => inner.abort())
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const run = await runPdsh(pdshArgs({ ...plan, command, timeoutSec }), {
      hosts: plan.hosts,
      signal: inner.signal,
      pdsh: plan.pdsh,
      onSpawn: (pid) => { pdshPid = pid },
      onStderr: (host, text) => {
        const pid = shardPid(plan, text, pdshPid)
        if (pid && !pids.has(host)) pids.set(host, pid)
      }
    })
    return { run, ended: ending ? await ending : null }
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
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
  if (s.index !== index || s.count !== count) {
    return fail(`its report is shard ${s.index}/${s.count}, ` +
    `not ${index}/${count}`)
  }
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

// Each host's shard: { entries, failures }. A report that is not this plan's, or whose figures disagree
// with its own counts (merge.js shardFault), is a failure: missing from the merge, as one that never came.
function readShards (plan, run, clocks, startAt) {
  const entries = []
  const failures = []
  const count = plan.hosts.length
  plan.hosts.forEach((host, k) => {
    const got = readShard(host, k, count, run.hosts.get(host))
    const fault = got.entry && (askedFault(plan, got.entry.report, startAt) ?? shardFault(got.entry.report))
    if (fault) {
      const { exitCode, signal, stderrTail } = got.entry
      failures.push({ index: k + 1, count, host, exitCode, signal, why: `its report is refused: ${fault}`, stderrTail })
    } else if (got.entry) entries.push({ ...got.entry, clock: clocks.get(host) ?? null })
    else failures.push(got.failure)
  })
  return { entries, failures }
}

// A shard's report against the plan the fan-out gave it, or null.
function askedFault (plan, report, startAt) {
  const m = report.method
  const asked = { rate: plan.rate, amount: plan.amount, durationSec: plan.durationSec, startAt }
  const k = Object.keys(asked).find((f) => (m[f] ?? null) !== asked[f])
  return k ? `its plan's ${k} is ${JSON.stringify(m[k])}, the fan-out's ${JSON.stringify(asked[k])}` : null
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
  const secrets = shardSecrets(plan)
  const refused = await placeSecrets(plan, secrets)
  if (refused.length) {
    await removeSecrets(plan, secrets, plan.hosts)
    throw fanoutError(`could not give ${refused.map((f) => `${f.host} its secrets file (${f.why})`).join('; ')}; ` +
      'no shard started')
  }
  progress(`${count} shards start at ${startAt} (in ${leadSec} s)`)
  let pass
  try {
    pass = await shardPass(plan, startAt, secrets, { signal })
  } finally {
    await removeSecrets(plan, secrets, plan.hosts.filter((h) => !pass?.run.hosts.get(h)?.stdout))
  }
  if (signal?.aborted) throw interrupted(shardsEndedText(pass.ended ?? [], plan.hosts))
  const { entries, failures } = readShards(plan, pass.run, clocks, startAt)
  for (const f of failures) progress(failedShard(f))
  for (const e of entries) if (e.exitCode !== 0) progress(endedAfterReport(e))
  if (!entries.length) throw fanoutError(noShardText(failures, leadSec))
  const missing = missingOf(entries, failures)
  if (missing && !plan.allowMissing) throw fanoutError(refusedMissing(missing))
  let ordered
  try {
    ordered = checkShards(entries, { allowMissing: plan.allowMissing })
  } catch (err) {
    if (err.code === 'LAB_MERGE') throw fanoutError(err.message.replace(/^merge: /, ''))
    throw err
  }
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
