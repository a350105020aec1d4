// Mode `main`: the hook runs on the main thread, one call after the other (the study's "main thread").
import { performance } from 'node:perf_hooks'
import { defaultHook } from './hook.js'
import { closedError } from './errors.js'

// Load the hook module and return a dispatcher that calls it inline.
export async function createMainDispatcher ({ hook = defaultHook } = {}) {
  const start = performance.now()
  const { resolveId } = await import(hook)
  const loadMs = performance.now() - start
  let costMs = 0
  let closed = false

  // One call, answered or rejected through a promise like the pooled modes.
  function call (id) {
    if (closed) return Promise.reject(closedError('main'))
    try {
      return Promise.resolve(resolveId(id, costMs))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  // `calls` calls in a tight synchronous loop; each slot holds the answer or the error thrown.
  async function batch (id, calls, { signal } = {}) {
    if (closed) throw closedError('main')
    const out = new Array(calls)
    for (let i = 0; i < calls; i++) {
      try {
        out[i] = resolveId(id, costMs)
      } catch (err) {
        out[i] = err instanceof Error ? err : new Error(String(err))
      }
    }
    signal?.throwIfAborted()
    return out
  }

  return {
    mode: 'main',
    workers: 0,
    startupMs: loadMs,
    setCost (ms) {
      costMs = ms
    },
    call,
    batch,
    async close () {
      closed = true
    }
  }
}
