// Entry of a long-lived pool process (process-pool.js): says it is ready, then runs one task at a time,
// each { id, work } answered { id, ok: true, ...timedRun } or { id, ok: false, code, message }. A task
// that ends the process (crash:CODE, a task module's process.exit, a native fault) is the pool's to see.
// If the server goes away, the channel closes and the process exits: nobody would read its answers.
import { timedRun } from './task.js'
import { crashEndsProcess } from './workloads.js'

crashEndsProcess()
process.once('disconnect', () => process.exit(0))

process.on('message', async ({ id, work }) => {
  let answer
  try {
    answer = { id, ok: true, ...(await timedRun(work)) }
  } catch (err) {
    answer = { id, ok: false, code: err?.code, message: err?.message ?? String(err) }
  }
  if (process.connected) process.send(answer)
})
process.send({ ready: true })
