// loadlab as a library (`import { runLab } from 'loadlab'`): the engine the CLIs drive, as functions.
//   runLab(options, { signal, onProgress })  the lab's run: its report, its files written unless out: false
//   startServer(name, flags)                 one fleet server, as `node servers/NAME` starts it
//   compareReports(reports, options)         what `npm run compare` renders
//   mergeReports(reports)                    what `npm run merge` writes
//   readReport(path)                         a report file, checked against report.schema.json
//   history(folders, options)                what `loadlab history` shows: series, change points, the gate
//   abCompare(options, { signal, onBlock, onLook })  what `loadlab ab A B` decides: its report
// Options are the CLI's long options in camelCase, checked as the CLI checks them (loadtest/options.js):
// a bad one rejects with the CLI's one-line message and a `code` (LAB_USAGE). docs/api.md has an example each.
import { REPEATABLE, parseOptions } from './loadtest/options.js'
import { runLab as runPlannedLab } from './loadtest/lab.js'
import { experimentFor } from './loadtest/experiments/index.js'
import { writeReportFiles } from './loadtest/report/files.js'
import { commandText } from './loadtest/result/command.js'
import { catalog } from './loadtest/catalog.js'
import { startServer as bootServer } from './loadtest/run/watch/boot.js'
import { LabError, usageError } from './loadtest/errors.js'

export { compareReports, readReport } from './loadtest/compare/api.js'
export { mergeReports } from './loadtest/merge/api.js'
export { history } from './loadtest/history/history.js'
export { abCompare } from './loadtest/ab/ab.js'
export { LabError } from './loadtest/errors.js'

// Options of the command line only: runLab returns the report (json), and has no help or list to print.
const CLI_ONLY = new Set(['help', 'list', 'json'])
// Options that may be given more than once on the command line (threshold, header): an array gives each.
const REPEATED = new Set(REPEATABLE)

// camelCase → the long option's name: maxBody → max-body, capacityFrom → capacity-from.
const flagName = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

// What a value is, for a message: `null`, `an array`, `an invalid Date`, else its typeof.
const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v)

// --input given as a value: its JSON (a circular or BigInt value cannot be written: a usage error).
function inputJson (value) {
  try {
    return JSON.stringify(value)
  } catch (err) {
    throw usageError(`--input: cannot be written as JSON: ${String(err.message).split('\n')[0]}`)
  }
}

// --header given as an object of names and values: `Name: value` each; a value must be a string or a number.
function headerLines (value) {
  return Object.entries(value).map(([k, v]) => {
    if (typeof v !== 'string' && typeof v !== 'number') {
      throw usageError(`--header: the value of \`${k}\` must be a string or a number, got ${kindOf(v)}`)
    }
    return `${k}: ${v}`
  })
}

// One option as command-line words: true a bare flag; false, null and undefined nothing; a number or a
// Date as text; an array (server: ['simple', 'cluster'], slo: [50, 100]) comma-joined, or repeated for
// an option the CLI repeats; `input` may be the object itself, `header` an object of names and values.
// Anything else is a usage error.
function optionWords (key, value) {
  if (CLI_ONLY.has(key) && value !== undefined && value !== false) {
    throw usageError(`--${flagName(key)}: an option of the command line only (runLab returns the report)`)
  }
  const flag = `--${flagName(key)}`
  // a value that starts with a dash is joined to its flag, so that it is never read as an option
  const words = (v) => (String(v).startsWith('-') ? [`${flag}=${v}`] : [flag, String(v)])
  if (value === undefined || value === null || value === false) return []
  if (value === true) return [flag]
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return words(value)
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw usageError(`${flag}: expected a valid Date, got an invalid Date`)
    return words(value.toISOString())
  }
  if (Array.isArray(value) && value.every((v) => ['string', 'number'].includes(typeof v))) {
    return REPEATED.has(key) ? value.flatMap(words) : words(value.join(','))
  }
  if (key === 'input' && typeof value === 'object') return words(inputJson(value))
  if (key === 'header' && Array.isArray(value)) {
    throw usageError('--header: expected `Name: value` strings or one object of names and values, ' +
      `got an array holding ${kindOf(value.find((v) => typeof v !== 'string' && typeof v !== 'number'))}`)
  }
  if (key === 'header' && typeof value === 'object') return headerLines(value).flatMap(words)
  throw usageError(`--${flagName(key)}: expected a string, a number, a boolean or an array of them, ` +
    `got ${Array.isArray(value) ? 'an array' : typeof value}`)
}

// The options object as the command line that means the same (out: false gives no --out); `what` names
// the object in a refusal ('runLab: expected an options object').
function optionsToArgv (options = {}, what = 'runLab: expected an options object') {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw usageError(`${what}, got ${kindOf(options)}`)
  }
  return Object.entries(options).flatMap(([key, value]) => optionWords(key, value))
}

// The lab's run for `options` (the CLI's long options in camelCase: { server: ['simple'], amount: 20 });
// resolves the report (loadlab/report.schema.json). Unless `out: false` its files are written as the CLI
// writes them (into `out`, default ./loadlab-reports/), then onProgress hears { type: 'written', dir, id,
// paths, errors }. `signal` stops the run: the report then holds what was measured (status 'partial').
// A bad option rejects before anything starts, with the CLI's message and code LAB_USAGE.
export async function runLab (options = {}, { signal, onProgress = () => {} } = {}) {
  // a signal that is not one would reach the run's listeners and crash it (an unhandled 'error' event)
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw usageError(`runLab: expected signal to be an AbortSignal, got ${kindOf(signal)}`)
  }
  if (typeof onProgress !== 'function') {
    throw usageError(`runLab: expected onProgress to be a function, got ${kindOf(onProgress)}`)
  }
  const argv = optionsToArgv(options)
  const opts = parseOptions(argv)
  if (options.out === false) opts.out = null
  const command = commandText(['loadlab'], argv)
  const report = await runPlannedLab(opts, { signal, onProgress, command })
  if (opts.out) {
    const experiment = await experimentFor(report.experiment)
    const out = await writeReportFiles(report, { dir: opts.out, experiment, gzip: opts.gzip })
    onProgress({ type: 'written', dir: out.dir, id: out.id, paths: out.paths, errors: out.errors })
  }
  return report
}

// One server of the fleet, started as `node servers/NAME --port 0 --host 127.0.0.1 ...flags` (flags: the
// server's own, as an array of words or an options object: { work: 'loop:1e5', threads: 2 }); resolves
// once it answers /health: { name, url, pid, strategy, work, stop() }. stop() ends it (SIGTERM, then
// SIGKILL after 8 s) and every process it started, and resolves { exit, forced, leftovers } once they
// have exited. A server this process does not stop ends with it (its IPC channel closes).
export async function startServer (name, flags = []) {
  if (typeof name !== 'string') {
    throw usageError(`startServer: expected the server's name as a string, got ${kindOf(name)}`)
  }
  if (flags === null || typeof flags !== 'object') {
    throw usageError(`startServer: expected flags as an object or an array of words, got ${kindOf(flags)}`)
  }
  const servers = catalog().filter((s) => s.available)
  const entry = servers.find((s) => s.name === name)?.entry
  if (!entry) {
    throw usageError(`startServer: unknown server \`${name}\`; ` +
    `allowed: ${servers.map((s) => s.name).join(', ')}`)
  }
  const what = 'startServer: expected flags as an object'
  const args = Array.isArray(flags) ? flags.map(String) : optionsToArgv(flags, what)
  const server = await bootServer({ entry, args, cwd: process.cwd() }).catch((err) => {
    // the server's own one line (a bad flag: exit 2) says more than "exited before it was ready"
    const said = err.failure?.stderrTail?.filter((l) => l.trim() !== '').at(-1)
    const usage = err.failure?.exitCode === 2
    const code = usage ? 'LAB_USAGE' : err.code ?? 'LAB_SERVER'
    const error = new LabError(code, `startServer: ${said ?? err.message}`, { exitCode: usage ? 2 : 1, cause: err })
    throw Object.assign(error, { failure: err.failure })
  })
  return {
    name,
    url: server.url,
    pid: server.pid,
    strategy: server.strategy,
    work: server.work,
    stop: () => server.stop()
  }
}
