// Bench part 1: the per-call round trip of piscina vs the shared-memory channel, hook cost 0.
import { performance } from 'node:perf_hooks'
import { createDispatcher, expectedAnswer, makeId } from '../loadtest/channels/index.js'
import { ratios, summary } from './stats.js'

const SIDES = ['piscina', 'shared']

// For each worker count and payload: both dispatchers up at once, rounds alternating between them.
export async function runDispatch (
  { workers, payloads, calls, rounds, warmupCalls },
  { signal, progress = () => {} } = {}
) {
  const cases = []
  for (const w of workers) {
    signal?.throwIfAborted()
    const open = []
    const onAbort = () => {
      for (const d of open) d.close({ graceMs: 0 }).catch(() => {})
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      for (const mode of SIDES) {
        open.push(await createDispatcher(mode, { workers: w, maxPayloadBytes: Math.max(...payloads), signal }))
      }
      for (const payloadBytes of payloads) {
        const id = makeId(payloadBytes)
        const expected = expectedAnswer(id)
        const perCallUs = { piscina: [], shared: [] }
        let wrong = 0
        const once = async (d, n) => {
          const t0 = performance.now()
          const out = await d.batch(id, n)
          const ms = performance.now() - t0
          signal?.throwIfAborted()
          for (const a of out) if (a !== expected) wrong++
          return (ms * 1000) / n
        }
        for (const d of open) await once(d, warmupCalls) // discarded: JIT and first-touch of the buffers
        for (let r = 0; r < rounds; r++) {
          // alternate which side goes first, so neither always runs on a warmer machine
          const order = r % 2 ? [...open].reverse() : open
          for (const d of order) perCallUs[d.mode].push(await once(d, calls))
        }
        if (wrong) { throw new Error(`dispatch bench: ${wrong} wrong answers (w${w}, ${payloadBytes} B): the channel is broken`) }
        const entry = {
          workers: w,
          payloadBytes,
          calls,
          rounds,
          piscina: summary(perCallUs.piscina),
          shared: summary(perCallUs.shared),
          ratio: ratios(perCallUs.piscina, perCallUs.shared) // piscina / shared: how many times slower piscina is
        }
        cases.push(entry)
        progress(
          `bench: dispatch w${w} ${payloadBytes} B: piscina ${entry.piscina.mean.toFixed(1)} µs/call, shared ${entry.shared.mean.toFixed(1)} µs/call`
        )
      }
    } finally {
      signal?.removeEventListener('abort', onAbort)
      await Promise.all(open.map((d) => d.close()))
    }
  }
  return { costMs: 0, sides: SIDES, ratioOf: 'piscina / shared per-call time', cases }
}
