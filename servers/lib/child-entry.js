// Entry of a child process forked for one request (`fork(child-entry.js, [spec])`): runs the spec,
// sends { ok: true, ...timedRun } or { ok: false, message } over IPC, then disconnects and exits.
// If the server goes away first, the channel closes and the child exits: nobody would read the answer.
import { timedRun } from './task.js'

process.once('disconnect', () => process.exit(0))

let answer
try {
  answer = { ok: true, ...await timedRun(process.argv[2]) }
} catch (err) {
  answer = { ok: false, message: err.message }
}
if (process.connected) process.send(answer, () => process.disconnect())
