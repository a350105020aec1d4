// Clustering shared by `cluster` and `cluster-threads`: the primary forks the workers, replaces any that
// dies, prints the ready line once all listen, gathers /__lab/stats from every worker over IPC, and ends
// them all on shutdown. Workers serve HTTP; the one that receives a stats request asks the primary.
import cluster from 'node:cluster'
import { aggregate, createTelemetry } from './telemetry.js'
import { announceReady, onShutdown } from './serve.js'

// Run the primary: `options.workers` workers, each running this same script (cluster.isWorker).
export function runPrimary ({ strategy, options }) {
  const telemetry = createTelemetry({ enabled: options.telemetry === 'on', role: 'primary' })
  let restarted = 0
  let listening = 0
  let ready = false
  let stopping = false
  for (let i = 0; i < options.workers; i++) cluster.fork()

  cluster.on('listening', (worker, address) => {
    serving.add(worker)
    if (ready || ++listening < options.workers) return
    ready = true
    announceReady({ host: options.host, port: address.port, strategy, work: options.work }).catch((err) => {
      process.stderr.write(`${strategy}: could not announce: ${err.stack}\n`)
      process.exit(1)
    })
  })
  cluster.on('exit', (worker, code, signal) => {
    serving.delete(worker)
    if (stopping) return
    if (!ready) {
      process.stderr.write(
        `${strategy}: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before listening\n`
      )
      // A bad option or task (2) stays one; the other workers see the IPC channel close.
      process.exit(code === 2 ? 2 : 1)
    }
    restarted++
    cluster.fork()
  })

  // A worker asks for the whole cluster's stats, or for a reset everywhere.
  cluster.on('message', async (worker, msg) => {
    if (msg?.lab === 'sample') {
      if (process.connected) process.send(msg) // a worker's sample (sampling.js), relayed to the lab
    } else if (msg?.lab === 'stats') {
      // Concurrent stats requests share one collection: one listener per worker, however many ask.
      collecting ??= askAll('collect').finally(() => {
        collecting = null
      })
      const { replies, silent } = await collecting
      const gauges = sumGauges(replies.map((r) => r.gauges))
      const value = aggregate({
        strategy,
        processes: [telemetry.snapshot(), ...replies.map((r) => r.process)],
        // workersSilent: busy workers (inline work blocks their loop) that did not answer within the bound
        gauges: { ...gauges, workers: replies.length + silent, workersSilent: silent, workersRestarted: restarted }
      })
      if (worker.isConnected()) worker.send({ lab: 'answer', id: msg.id, value })
    } else if (msg?.lab === 'reset-all') {
      telemetry.reset()
      restarted = 0
      await askAll('reset')
      if (worker.isConnected()) worker.send({ lab: 'answer', id: msg.id, value: true })
    }
  })

  onShutdown(async () => {
    stopping = true
    const workers = Object.values(cluster.workers)
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve) => {
            if (w.isDead()) return resolve()
            w.once('exit', resolve)
            w.process.kill('SIGTERM')
          })
      )
    )
    telemetry.close()
  })
}

const serving = new Set() // workers that listen (and so answer stats messages)
// How long /__lab/stats waits for a worker: one blocked by inline work answers later, or never.
const ASK_TIMEOUT_MS = 1000
let collecting = null // the collection under way, shared by concurrent stats requests
let seq = 0

// Send `{ lab: kind }` to every serving worker; resolve to { replies, silent }: a worker that exits, or
// is busy for ASK_TIMEOUT_MS, is left out of the replies and counted as silent.
function askAll (kind) {
  const id = ++seq
  const workers = [...serving].filter((w) => w.isConnected())
  return Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          const onMessage = (msg) => {
            if (msg?.lab !== 'reply' || msg.id !== id) return
            cleanup()
            resolve(msg)
          }
          const onExit = () => {
            cleanup()
            resolve(null)
          }
          const timer = setTimeout(onExit, ASK_TIMEOUT_MS)
          const cleanup = () => {
            clearTimeout(timer)
            w.off('message', onMessage)
            w.off('exit', onExit)
          }
          w.on('message', onMessage)
          w.once('exit', onExit)
          w.send({ lab: kind, id })
        })
    )
  ).then((all) => ({ replies: all.filter(Boolean), silent: all.filter((r) => r === null).length }))
}

// Numeric gauges summed over workers (peaks become the sum of per-worker peaks).
function sumGauges (list) {
  const out = {}
  for (const g of list) for (const [k, v] of Object.entries(g)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v
  return out
}

// Worker side: answer the primary's collect/reset, and give buildApp stats/resetStats that go through it.
export function workerStats ({ telemetry, gauges }) {
  const pending = new Map()
  let next = 0
  process.on('message', (msg) => {
    if (msg?.lab === 'collect') {
      process.send({ lab: 'reply', id: msg.id, process: telemetry.snapshot(), gauges: gauges?.read() ?? {} })
    } else if (msg?.lab === 'reset') {
      telemetry.reset()
      gauges?.reset?.()
      process.send({ lab: 'reply', id: msg.id })
    } else if (msg?.lab === 'answer') {
      pending.get(msg.id)?.(msg.value)
      pending.delete(msg.id)
    }
  })
  const ask = (what) =>
    new Promise((resolve) => {
      const id = ++next
      pending.set(id, resolve)
      process.send({ lab: what, id })
    })
  return { stats: () => ask('stats'), resetStats: () => ask('reset-all') }
}
