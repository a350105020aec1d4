// The piscina pool of the strategies that run task.js on long-lived threads (queued-threads, the pooled
// sleep variants), started so that ending a thread while it loads cannot abort the whole server.
//
// Why: piscina's worker loads its task file with require() first; on Node 20.19+ that require()s an ESM
// file (require(esm)), whose synchronous loader asserts (SIGABRT, "CreateRequiredModuleFacade ...
// InstantiateModule ... IsJust()" or "IsGraphAsync must be used on an instantiated module") when the
// thread is terminated mid-load. piscina terminates a thread whose running task is aborted, and hands a
// task to a replacement thread before it has loaded, so clients that leave under overload end loading
// threads again and again (reproduced on Node 20.20 and 24.21). The pool's entry is therefore a CommonJS
// file (task-entry.cjs) that import()s task.js: the asynchronous loader, which a termination simply stops.
// (A thread flag turning require(esm) off did the same on Node 20 and 22, but Node 24 refuses it in a
// Worker's execArgv, and Deno refuses Node flags there.)
import { Piscina } from 'piscina'

// The file every pool's threads load.
export const ENTRY_FILE = new URL('./task-entry.cjs', import.meta.url).href

// A piscina pool running task.js: `options` as piscina's own (filename is set here).
export function taskPool (options = {}) {
  return new Piscina({ ...options, filename: ENTRY_FILE })
}
