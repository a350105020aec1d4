// Modes `native-main`, `native-indirect`, `native-direct` (study 003 as it ran: a native caller). Native
// threads of the addon (native/caller.c) call the hook and wait for each answer:
//   native-main      through a threadsafe function to the main thread, which runs the hook;
//   native-indirect  to the main thread, which forwards each call with postMessage to a worker;
//   native-direct    through a threadsafe function each worker registered: no main-thread hop.
// One native thread per worker (one for native-main); a batch's answers are checked natively.
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { defaultHook } from './hook.js'
import { closedError, signalError, startupError, STARTUP_TIMEOUT_MS } from './errors.js'

const workerFile = new URL('./native-worker.js', import.meta.url)

// The native modes, and the one that needs no worker.
export const NATIVE_MODES = ['native-main', 'native-indirect', 'native-direct']

// Start W workers (none for native-main) on a loaded caller; resolves once each is ready.
export async function createNativeDispatcher ({ mode, workers = 0, hook = defaultHook, native, signal } = {}) {
  if (!native?.addon) throw startupError(mode, 'no native caller')
  signal?.throwIfAborted()
  const { addon, file } = native
  const config = new Int32Array(new SharedArrayBuffer(4))
  const onMain = mode === 'native-main'
  const start = performance.now()
  const { resolveId } = onMain ? await import(hook) : {}
  const pool = onMain ? [] : await startWorkers({ mode, workers, hook, config, file, signal })
  const startupMs = performance.now() - start
  const poolErrors = []
  for (const w of pool) w.worker.on('error', (err) => poolErrors.push(err))
  let closed = false
  let next = 0

  // native-indirect: the main thread's hook forwards to the least busy worker, which answers by message.
  const forward = (id, token) => {
    let w = pool[next++ % pool.length]
    for (const x of pool) if (x.inflight < w.inflight) w = x
    w.inflight++
    w.worker.postMessage({ id, token })
  }
  for (const w of pool) {
    w.worker.on('message', (m) => {
      if (m?.token === undefined) return
      w.inflight--
      addon.settle(m.token, m.answer)
    })
  }
  // A hook that throws answers null, which the addon counts as an error (the call must settle once).
  const onMainHook = (id, token) => {
    let a = null
    try {
      a = resolveId(id, Atomics.load(config, 0) / 1000)
    } catch {}
    addon.settle(token, a)
  }
  const target = () => mode === 'native-direct' ? pool.map((w) => w.slot) : onMain ? onMainHook : forward

  return {
    mode,
    workers: onMain ? 0 : workers,
    startupMs,
    poolErrors,
    setCost (ms) {
      Atomics.store(config, 0, Math.round(ms * 1000))
    },
    // `calls` calls from the native threads; resolves with { calls, mismatches, errors } (checked natively).
    async batch (id, calls, { signal } = {}) {
      if (closed) throw closedError(mode)
      const out = await addon.run(target(), id, calls, Math.max(1, pool.length))
      signal?.throwIfAborted()
      return out
    },
    async close () {
      if (closed) return
      closed = true
      await Promise.all(pool.map(async (w) => {
        const exited = new Promise((resolve) => w.worker.once('exit', resolve))
        w.worker.postMessage('close')
        const timer = setTimeout(() => w.worker.terminate(), 2000)
        await exited
        clearTimeout(timer)
      }))
    }
  }
}

// Spawn W workers and wait for each one's ready message (its registered slot for native-direct).
async function startWorkers ({ mode, workers, hook, config, file, signal }) {
  const pool = []
  for (let i = 0; i < workers; i++) {
    const worker = new Worker(workerFile, {
      workerData: { hook, config: config.buffer, addonFile: file, direct: mode === 'native-direct' }
    })
    pool.push({ worker, inflight: 0, slot: null })
  }
  try {
    await Promise.all(pool.map((w) => new Promise((resolve, reject) => {
      const late = () => reject(startupError(mode, `not ready after ${STARTUP_TIMEOUT_MS} ms`))
      const timer = setTimeout(late, STARTUP_TIMEOUT_MS)
      const onAbort = () => reject(signalError(signal))
      signal?.addEventListener('abort', onAbort, { once: true })
      w.worker.once('error', (err) => reject(startupError(mode, err.message, err)))
      w.worker.on('message', (m) => {
        if (m?.ready === undefined) return
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        w.slot = m.slot
        resolve()
      })
    })))
  } catch (err) {
    await Promise.all(pool.map((w) => w.worker.terminate()))
    throw err
  }
  return pool
}
