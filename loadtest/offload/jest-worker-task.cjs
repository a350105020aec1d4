// A jest-worker child (process or thread): jest-worker require()s this file, so it is CommonJS and
// loads the ES module task on first call.
'use strict'

let task
const load = () => (task ??= import('./task.js'))

// One execution: { body, innerMs }.
exports.run = async (spec) => (await load()).run(spec)

// Which worker answered.
exports.ready = async () => (await load()).ready()
