// Worker side of the native modes: loads the hook and the native caller. "direct": registers a
// threadsafe function of this thread with the caller, which calls it from its native threads.
// "indirect": answers the calls the main thread forwards with postMessage.
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { createRequire } from 'node:module'

const { hook, config, addonFile, direct } = workerData
const { resolveId } = await import(hook)
const addon = createRequire(import.meta.url)(addonFile)
const cost = new Int32Array(config) // [0]: the hook's cost in microseconds, set by the main thread
const answer = (id) => resolveId(id, Atomics.load(cost, 0) / 1000)

const slot = direct
  ? addon.register((id, token) => {
    let a = null
    try {
      a = answer(id)
    } finally {
      addon.settle(token, a)
    }
  })
  : null

parentPort.on('message', (m) => {
  if (m === 'close') {
    if (slot !== null) addon.unregister(slot)
    parentPort.close()
    return
  }
  let a = null
  try {
    a = answer(m.id)
  } finally {
    parentPort.postMessage({ token: m.token, answer: a })
  }
})
parentPort.postMessage({ ready: threadId, slot })
