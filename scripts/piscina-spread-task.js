// The task of scripts/piscina-spread.js: block the thread `ms` ms (as sleep-sync does), answer its id.
import { threadId } from 'node:worker_threads'

export default function sleepSync (ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
  return threadId
}
