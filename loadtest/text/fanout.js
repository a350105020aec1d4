// The words of a fanned-out run (loadtest/fanout/, `loadlab fanout`) and of the merge's start figures
// (loadtest/merge/merge.js): a shard's line, a failed shard, a missing share, the start spread, a clock.
// Data in, strings out; nothing here decides. Pure.
import { roundTo } from '../result/stats.js'

const ms = (x) => `${roundTo(x, Math.abs(x) >= 100 ? 0 : 1)} ms`
const signed = (x) => `${x >= 0 ? '+' : '−'}${ms(Math.abs(x))}`
const pct = (x) => `${roundTo(x * 100, 1)} %`

// "shard 2/3" or "shard 2/3 on ns2".
export function shardName ({ index, count, host = null }) {
  return `shard ${index}/${count}${host ? ` on ${host}` : ''}`
}

// How a process ended: "exit code 3", "killed by signal 9", or "no exit status".
export function endText ({ exitCode = null, signal = null }) {
  if (signal !== null) return `killed by signal ${signal}`
  return exitCode === null ? 'no exit status' : `exit code ${exitCode}`
}

// One failed shard: "shard 2/3 on ns2 failed (killed by signal 9): no report; last: …".
export function failedShard (f) {
  const tail = f.stderrTail?.length ? `; its last words: ${f.stderrTail.slice(-2).join(' | ')}` : ''
  return `${shardName(f)} failed (${endText(f)}): ${f.why}${tail}`
}

// Why no shard brought a report back, and, where a shard found the common start already past (the hosts took
// longer than the lead to start it), what to give instead.
export function noShardText (failures, leadSec) {
  const late = failures.some((f) => f.stderrTail?.some((l) => /--start-at: \S+ is [\d.]+ s in the past/.test(l)))
  const hint = late ? `; a shard started after the common start, ${leadSec} s ahead: give a longer --lead` : ''
  return `no shard brought a report back: ${failures.map(failedShard).join('; ')}${hint}`
}

// A shard that ended badly after it printed its report (merged all the same), with its last words.
export function endedAfterReport (e) {
  const tail = e.stderrTail?.length ? `; its last words: ${e.stderrTail.slice(-2).join(' | ')}` : ''
  return `${shardName({ ...e.report.method.shard, host: e.host })}: ${endText(e)} after its report; merged${tail}`
}

// What a missing share of the plan is: "shard 2/3 missing: 33.3 % of the plan (100 of 300 requests) not in
// the merged figures" (sent or not: no report of them was read).
export function missingText ({ shards, planned, total, share }) {
  const names = shards.map((s) => `${s.index}/${s.count}${s.host ? ` (${s.host})` : ''}`).join(', ')
  return `shard${shards.length > 1 ? 's' : ''} ${names} missing: ${pct(share)} of the plan ` +
    `(${planned} of ${total} requests) not in the merged figures`
}

// The refusal of a plan with shards missing, naming them, their share and the way past.
export function refusedMissing (missing) {
  return `${missingText(missing)}; the merge refuses a plan with a shard missing (--allow-missing merges the rest)`
}

// The spread on the target's clock, where the shards' offsets are known: "3.1 ± 1.2 ms on the target's clock".
function onTarget (start) {
  return start.clocks === 'measured'
    ? `${ms(start.targetSpreadMs)} ± ${ms(start.uncertaintyMs)} on the target's clock`
    : 'their clocks\' offsets unknown'
}

// The untrusted reason of a start spread past its tolerance.
export function spreadReason (start) {
  return `the shards' first requests left at least ${ms(start.spreadAtLeastMs)} apart ` +
    `(${ms(start.spreadMs)} on their own clocks; ${onTarget(start)}), more than the ${ms(start.toleranceMs)} a ` +
      'generator may lag'
}

// The start line of a fanned-out run: "start spread 0.4 ms on the shards' own clocks; 3.1 ± 1.2 ms on …".
export function spreadLine (start) {
  if (start.spreadMs === null) return 'start spread unknown (a shard did not record its first request)'
  return `start spread ${ms(start.spreadMs)} on the shards' own clocks; ${onTarget(start)} ` +
    `(tolerance ${ms(start.toleranceMs)})`
}

// A clock offset against the target's Date header: "+0.3 ms ± 0.4 ms" or "unknown (why)".
export function clockText (clock) {
  if (!clock || clock.offsetMs === null || clock.offsetMs === undefined) {
    return `clock unknown${clock?.why ? ` (${clock.why})` : ''}`
  }
  return `clock ${signed(clock.offsetMs)} ± ${ms(clock.uncertaintyMs)} against the target's Date`
}

// One shard's line at the end of a fanned-out run.
export function shardLine (s) {
  const first = typeof s.startMs === 'number' ? `, first request ${signed(s.startMs)} after its due time` : ''
  return `${shardName(s)}: sent ${s.sent}, answered ${s.answered}${first}, ${clockText(s.clock)}`
}

// The merged line: "merged 3 shards: sent 300, answered 300, 300 req/s, p99 4.1 ms".
export function mergedLine (count, r) {
  return `merged ${count} shard${count > 1 ? 's' : ''}: sent ${r.requests.sent}, answered ${r.requests.completed}, ` +
    `${r.rps} req/s, p99 ${r.latency.p99} ms${r.trusted ? '' : ` (untrusted: ${r.untrusted.join('; ')})`}`
}

// A host whose clock pass said something that is not a measurement: the fan-out's refusal.
export function clockFault (host, fault) {
  return `the clock pass on ${host} said ${fault}, not a measurement: nothing started`
}

// What an interrupted fan-out knows of its shards (`ended`: endShards's answer, per host in order):
// "shards 1/2 (ns1), 2/2 (ns2) seen to end; nothing merged".
export function shardsEndedText (ended, hosts) {
  const count = hosts.length
  const name = (e) => `${hosts.indexOf(e.host) + 1}/${count} (${e.host})`
  const seen = ended.filter((e) => e.confirmed)
  const not = ended.filter((e) => !e.confirmed)
  const parts = []
  if (seen.length) parts.push(`shard${seen.length > 1 ? 's' : ''} ${seen.map(name).join(', ')} seen to end`)
  for (const e of not) parts.push(`shard ${name(e)} not seen to end (${e.why}): check it by hand`)
  if (!ended.length) parts.push('no shard process known (pdsh was sent SIGINT)')
  return `${parts.join('; ')}; nothing merged`
}
