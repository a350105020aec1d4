// The study-003 hook and its inputs, shared by every dispatch mode (main thread and worker side).
//
// A hook module exports `resolveId(id, costMs)`. The study's hook spins the CPU for `costMs` of
// wall-clock time (performance.now(), which is monotonic and sub-millisecond; Date.now() is neither)
// and returns 'worker:' + id. Modes load a hook module by URL, so tests can swap in one that throws.
import { performance } from 'node:perf_hooks'

// The default hook module's URL (this file).
export const defaultHook = import.meta.url

// The prefix the hook puts in front of the id.
export const answerPrefix = 'worker:'

// Spin on the CPU until `ms` milliseconds of wall-clock time have passed.
export function spin (ms) {
  if (!(ms > 0)) return
  const end = performance.now() + ms
  while (performance.now() < end) {
    /* spin */
  }
}

// The study's hook: spin for costMs, then answer 'worker:' + id.
export function resolveId (id, costMs) {
  spin(costMs)
  return answerPrefix + id
}

// The study's id: "worker" repeated (and cut) to exactly `bytes` characters (ASCII, so bytes).
export function makeId (bytes) {
  return 'worker'.repeat(Math.ceil(bytes / 6)).slice(0, bytes)
}

// What a correct hook answers for `id`.
export function expectedAnswer (id) {
  return answerPrefix + id
}
