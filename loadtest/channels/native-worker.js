// Worker side of the native modes: loads the hook and the native caller. "direct": registers a
// threadsafe function of this thread with the caller, which calls it from its native threads.
// "indirect": answers the calls the main thread forwards with postMessage.
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { createRequire } from 'node:module'

const { hook, config, addonFile, direct } = workerData
const { resolveId } = await import(hook)
const addon = createRequire(import.meta.url)(addonFile)
const cost = new Int32Array(config) // [0]: the hook's cost in microseconds, set by the main thread
// The hook's answer, or null when it throws: the addon counts null as an error, and each call settles once.
const answer = (id) => {
  try {
    return resolveId(id, Atomics.load(cost, 0) / 1000)
  } catch {
    return null
  }
}

const slot = direct
  ? addon.register((id, token) => addon.settle(token, answer(id)))
  : null

parentPort.on('message', (m) => {
  if (m === 'close') {
    if (slot !== null) addon.unregister(slot)
    parentPort.close()
    return
  }
  parentPort.postMessage({ token: m.token, answer: answer(m.id) })
})
parentPort.postMessage({ ready: threadId, slot })
