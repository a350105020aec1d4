// Ending the shards of an interrupted fan-out. pdsh -R exec starts each host's command in a session of
// its own with SIGINT ignored, and its own Ctrl-C only sends SIGINT, so a shard can outlive it; over ssh
// the remote command has no terminal and outlives its connection. Each shard's shell says its process id
// first (PID_LINE, its node keeps it through `exec`, and it leads its process group); the fan-out ends
// that group: SIGTERM, then SIGKILL after END_GRACE_MS, and says which shards it saw end.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'

export const PID_LINE = 'loadlab-shard-pid'
// How long a shard's group has after SIGTERM before SIGKILL, and after SIGKILL before it is called not
// ended (ms); a whole ssh that ends a remote group may take END_SSH_MS.
const END_GRACE_MS = 3000
const KILL_WAIT_MS = 1000
const END_SSH_MS = 15_000
const PID = new RegExp(`^${PID_LINE} (\\d+)$`)

// A process's parent and start time from /proc (Linux), or null.
function procStat (pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { ppid: Number(f[1]), sid: Number(f[3]), start: f[19] }
  } catch {
    return null
  }
}

// The shard process a host's stderr line names: under -R exec a local process, taken only when it is a
// child of this pdsh that leads its own session (its start time kept, so a reused id is never signalled);
// under ssh the remote id. null for any other line, and for ids 0 and 1 (`kill -- -1` is every process).
export function shardPid (plan, text, pdshPid) {
  const m = PID.exec(text.trim())
  const pid = m ? Number(m[1]) : NaN
  if (!(pid > 1)) return null
  if (plan.rcmd !== 'exec') return { pid }
  const st = procStat(pid)
  return st && st.ppid === pdshPid && st.sid === pid ? { pid, start: st.start } : null
}

// Whether a local process group is gone (the leader checked against its start time).
function gone ({ pid, start }) {
  const st = procStat(pid)
  if (st && st.start !== start) return true // the id was reused: ours is gone
  try {
    process.kill(-pid, 0)
    return false
  } catch (err) {
    return err.code === 'ESRCH'
  }
}

function signalGroup ({ pid }, sig) {
  try {
    process.kill(-pid, sig)
  } catch {}
}

async function waitGone (p, ms) {
  for (const until = Date.now() + ms; Date.now() < until; await delay(50)) if (gone(p)) return true
  return gone(p)
}

// A local shard's group ended: { confirmed }.
async function endHere (p) {
  if (gone(p)) return { confirmed: true }
  signalGroup(p, 'SIGTERM')
  if (await waitGone(p, END_GRACE_MS)) return { confirmed: true }
  signalGroup(p, 'SIGKILL')
  return { confirmed: await waitGone(p, KILL_WAIT_MS) }
}

// A remote shard's group ended over ssh: the host's shell exits 0 once the group is gone.
async function endOverSsh (plan, host, { pid }) {
  // its group where it leads one (sshd starts the command in a session of its own), else the process
  const there = `{ kill -0 -- -${pid} || kill -0 ${pid}; } 2>/dev/null`
  const send = (sig) => `{ kill -${sig} -- -${pid} || kill -${sig} ${pid}; } 2>/dev/null`
  const script = `${send('TERM')}; i=0; while ${there} && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; ` +
    `${send('KILL')}; sleep 0.2; ! ${there}`
  const child = spawn(plan.ssh ?? 'ssh', ['-oBatchMode=yes', host, script], { stdio: 'ignore' })
  const timer = setTimeout(() => child.kill('SIGKILL'), END_SSH_MS)
  try {
    const [code] = await Promise.race([once(child, 'close'), once(child, 'error').then(() => [null])])
    return { confirmed: code === 0 }
  } finally {
    clearTimeout(timer)
  }
}

// End every shard whose process is known (`pids`: host → shardPid's answer); resolves, per host of the
// plan in order, { host, confirmed, why } (why: 'no process id' when the shard never said it).
export async function endShards (plan, pids) {
  return Promise.all(plan.hosts.map(async (host) => {
    const p = pids.get(host)
    if (!p) return { host, confirmed: false, why: 'no process id' }
    const { confirmed } = plan.rcmd === 'exec' ? await endHere(p) : await endOverSsh(plan, host, p)
    return { host, confirmed, why: confirmed ? null : 'still there after SIGKILL' }
  }))
}
