// The piscina pool of the strategies that run task.js on long-lived threads (queued-threads, the pooled
// sleep variants), started so that ending a thread while it loads cannot abort the whole server.
//
// Why: piscina's worker loads its task file with require() first; on Node 20.19+ that require()s our ESM
// file (require(esm)), whose synchronous loader asserts (SIGABRT, "CreateRequiredModuleFacade ...
// InstantiateModule ... IsJust()" or "IsGraphAsync must be used on an instantiated module") when the
// thread is terminated mid-load. piscina terminates a thread whose running task is aborted, and hands a
// task to a replacement thread before it has loaded, so clients that leave under overload end loading
// threads again and again (reproduced on Node 20.20 and 24.21). With require(esm) off in the threads,
// piscina's require() fails fast and it falls back to import(), the asynchronous loader, which a
// termination simply stops.
import { Piscina } from 'piscina'

// The task file every pool runs.
const TASK_FILE = new URL('./task.js', import.meta.url).href

// Node flags of the pool threads, after the server's own: only where the runtime is Node and knows the
// flag (Bun and Deno implement worker_threads without Node's flags: Deno's threads refuse it and exit).
const REQUIRE_ESM_OFF = '--no-experimental-require-module'
const isNode = !process.versions.bun && !process.versions.deno
const knows = isNode && process.allowedNodeEnvironmentFlags?.has(REQUIRE_ESM_OFF)
export const THREAD_EXEC_ARGV = knows ? [REQUIRE_ESM_OFF] : []

// A piscina pool running task.js: `options` as piscina's own (filename and execArgv are set here).
export function taskPool (options = {}) {
  return new Piscina({ ...options, filename: TASK_FILE, execArgv: [...process.execArgv, ...THREAD_EXEC_ARGV] })
}
