// Entry of a worker_threads Worker started for one request: runs workerData.work, posts
// { ok: true, readyAt, ...timedRun } or { ok: false, message }, then ends. readyAt (stamps.js `start`):
// the thread runs this entry, its modules loaded.
import { parentPort, workerData } from 'node:worker_threads'
import { now, timedRun } from './task.js'

const readyAt = now()
try {
  parentPort.postMessage({ ok: true, readyAt, ...(await timedRun(workerData.work)) })
} catch (err) {
  parentPort.postMessage({ ok: false, code: err.code, message: err.message })
}
