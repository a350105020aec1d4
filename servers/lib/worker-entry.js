// Entry of a worker_threads Worker started for one request: runs workerData.work, posts
// { ok: true, ...timedRun } or { ok: false, message }, then ends.
import { parentPort, workerData } from 'node:worker_threads'
import { timedRun } from './task.js'

try {
  parentPort.postMessage({ ok: true, ...(await timedRun(workerData.work)) })
} catch (err) {
  parentPort.postMessage({ ok: false, code: err.code, message: err.message })
}
