// The pool threads' entry (servers/lib/task-pool.js). CommonJS, so that piscina's require() of it never
// goes through require(esm): task.js (ESM) is loaded by import(), the asynchronous loader, which ending
// the thread mid-load simply stops. (Node 20.19+ and 24 abort the whole process when a thread is ended
// while require(esm) instantiates a module, and piscina ends a thread for every client that leaves.)
'use strict'

let loaded = null

// The task: task.js's default export, imported once per thread.
module.exports = async function task (message) {
  loaded ??= import('./task.js')
  return (await loaded).default(message)
}
