// Entry of a child process forked for one request (`fork(child-entry.js, [spec])`): runs the spec,
// sends { ok: true, readyAt, ...timedRun } or { ok: false, message } over IPC, then disconnects and exits.
// readyAt (stamps.js `start`): the child runs this entry, its modules loaded.
// If the server goes away first, the channel closes and the child exits: nobody would read the answer.
import { once } from 'node:events'
import { comesOverIpc, now, timedRun } from './task.js'

const readyAt = now()
process.once('disconnect', () => process.exit(0))

let answer
try {
  // A task module's description, or a spec's input, comes as the first IPC message (per-request.js).
  const work = comesOverIpc(process.argv[2]) ? (await once(process, 'message'))[0] : process.argv[2]
  answer = { ok: true, readyAt, ...(await timedRun(work)) }
} catch (err) {
  answer = { ok: false, code: err.code, message: err.message }
}
if (process.connected) process.send(answer, () => process.disconnect())
