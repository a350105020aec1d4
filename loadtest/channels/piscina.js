// Mode `piscina`: a piscina pool of W threads; every call is `pool.run(id)` (message passing, the
// payload structured-cloned both ways, the task run from the worker's event loop). The study's
// "indirect" mode. Pool options other than the thread count are piscina's defaults.
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { defaultHook } from './hook.js'
import { signalError, closedError, startupError, STARTUP_TIMEOUT_MS } from './errors.js'

// A file name, not URL.pathname: that is percent-encoded (a checkout under "my lab" or "läb" is not found).
const taskFile = fileURLToPath(new URL('./piscina-task.js', import.meta.url))

// Start a pool of `workers` threads, resolve once every thread has loaded the hook.
export async function createPiscinaDispatcher ({
  workers, hook = defaultHook, signal, startupTimeoutMs = STARTUP_TIMEOUT_MS
} = {}) {
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError('workers: expected a positive integer, ' +
    `got ${workers}`)
  }
  signal?.throwIfAborted()
  const config = new Int32Array(new SharedArrayBuffer(4))
  const start = performance.now()
  const pool = new Piscina({
    filename: taskFile,
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: Infinity, // keep the W threads for the whole run (they are ended by close())
    workerData: { hook, config: config.buffer }
  })
  // A thread that fails with a task in flight rejects that task; one that fails idle (or at start-up,
  // as every other thread may while the first failure is being handled) only emits 'error': keep them
  // all from the pool's first moment, so no thread's failure is ever an unhandled 'error' event.
  const poolErrors = []
  pool.on('error', (err) => poolErrors.push(err))
  let closed = false
  let destroying = null
  const close = () => {
    closed = true
    destroying ??= pool.destroy()
    return destroying
  }
  let startupMs
  try {
    startupMs = await waitReady(pool, workers, start, { signal, startupTimeoutMs })
  } catch (err) {
    await close()
    throw err
  }

  function call (id) {
    if (closed) return Promise.reject(closedError('piscina'))
    return pool.run(id)
  }

  return {
    mode: 'piscina',
    workers,
    startupMs,
    pool,
    poolErrors,
    setCost (ms) {
      Atomics.store(config, 0, Math.round(ms * 1000))
    },
    call,
    // `calls` calls submitted at once; each slot holds the answer or the error.
    async batch (id, calls, { signal } = {}) {
      if (closed) throw closedError('piscina')
      const runs = new Array(calls)
      for (let i = 0; i < calls; i++) runs[i] = pool.run(id).catch((err) => err)
      const out = await Promise.all(runs)
      signal?.throwIfAborted()
      return out
    },
    close
  }
}

// Time from the pool's construction until each of its threads has loaded the hook.
function waitReady (pool, workers, start, { signal, startupTimeoutMs }) {
  return new Promise((resolve, reject) => {
    const ready = new Set()
    const done = (err, ms) => {
      clearTimeout(timer)
      pool.off('message', onMessage)
      pool.off('error', onError)
      signal?.removeEventListener('abort', onAbort)
      if (err) reject(err)
      else resolve(ms)
    }
    const onMessage = (message) => {
      if (message?.loadlabDispatchReady === undefined) return
      ready.add(message.loadlabDispatchReady)
      if (ready.size === workers) done(null, performance.now() - start)
    }
    const onError = (err) => done(startupError('piscina', err.message, err))
    const onAbort = () => done(signalError(signal))
    const timer = setTimeout(
      () => done(startupError('piscina', `${ready.size}/${workers} threads ready after ${startupTimeoutMs} ms`)),
      startupTimeoutMs
    )
    pool.on('message', onMessage)
    pool.on('error', onError)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
