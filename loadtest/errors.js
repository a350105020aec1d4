// The lab side's errors, one family: every class here is a LabError, told apart with `instanceof`, each
// with a code and the exit status it leads to. (The servers have their own: ServerError.)
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { termText } from './text/escape.js'

// An error a user caused or the lab must stop for: one line of message, a code, an exit status.
export class LabError extends Error {
  constructor (code, message, { exitCode = 1, cause } = {}) {
    super(message, cause ? { cause } : undefined)
    this.name = 'LabError'
    this.code = code
    this.exitCode = exitCode
  }
}

// A refusal of `npm run compare` (bad file, bad flag, nothing in common): one line, exit 2.
export class CompareError extends LabError {
  constructor (message, code) {
    super(code, message, { exitCode: 2 })
    this.name = 'CompareError'
  }
}

// An error of the hook-call channels (loadtest/channels/: main, piscina, shared memory), code LAB_CHANNEL_*.
export class ChannelError extends LabError {
  constructor (code, message, options) {
    super(code, message, { cause: options?.cause })
    this.name = 'ChannelError'
  }
}

// A malformed --threshold (report/thresholds.js): the lab's option parser and compare's turn it into
// their own usage error (exit 2).
export class ThresholdError extends LabError {
  constructor (message) {
    super('LAB_THRESHOLD', message, { exitCode: 2 })
    this.name = 'ThresholdError'
  }
}

// How every CLI (lab, compare, merge, bin/loadlab.js) says an error: one line on stderr, `prog: ` before
// a message that does not start with it already, made safe for a terminal; a bug (not a LabError) keeps
// its stack. Returns the exit code it leads to: a LabError's own, else 1.
function printError (prog, err) {
  const known = err instanceof LabError
  const text = known ? termText(err.message) : String(err?.stack ?? err)
  process.stderr.write(`${text.startsWith(`${prog}: `) ? text : `${prog}: ${text}`}\n`)
  return known ? err.exitCode : 1
}

// How every CLI ends: main() resolves the exit code; an error is printed (printError) and gives its code.
export function runCli (prog, main) {
  return Promise.resolve().then(main).catch((err) => printError(prog, err))
}

// Whether the module at `url` (its import.meta.url) is the script node was started with (through a link
// too: npx and node_modules/.bin start bin/loadlab.js by a symlink).
export function isMain (url, script = process.argv[1]) {
  if (!script) return false
  const real = (p) => {
    try {
      return realpathSync(p)
    } catch {
      return resolve(p)
    }
  }
  return real(script) === real(fileURLToPath(url))
}

// How every CLI ends: when the module at `url` is the script node started, main(argv) runs through runCli
// and its code becomes the exit code; imported (by a test, by bin/loadlab.js), nothing runs.
export function runMain (url, prog, main) {
  if (!isMain(url)) return
  runCli(prog, () => main(process.argv.slice(2))).then((code) => {
    process.exitCode = code
  })
}

// A bad command-line option: exit 2 before anything starts.
export function usageError (message) {
  return new LabError('LAB_USAGE', message, { exitCode: 2 })
}

// A command-line option's number (`text` as given), at least `min` and whole where `integer`; else a usage error
// that names the option and what it got.
export function numberOption (name, text, { min, integer = false }) {
  const n = Number(text)
  if (text === undefined || text === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw usageError(`--${name}: expected ${integer ? 'a whole number' : 'a number'} >= ${min}, got ` +
      `${JSON.stringify(text)}`)
  }
  return n
}

// A server that could not be started, never became healthy, or died.
export function serverError (message, details = {}) {
  const err = new LabError('LAB_SERVER', message)
  Object.assign(err, details)
  return err
}

// The run was interrupted (SIGINT): whatever was measured is still reported.
export function abortError (reason = 'interrupted') {
  return new LabError('LAB_ABORTED', reason, { exitCode: 130 })
}

// Describe a value for an error message the way execa/piscina do: `-1` (number); a long one is clipped.
export function describe (value) {
  return `\`${clip(String(value))}\` (${typeof value})`
}

// Text of a user's value for a one-line message: at most `max` characters, a longer one cut with its
// length said (a 100 kB argument is not echoed whole).
export function clip (text, max = 80) {
  const s = String(text)
  return s.length <= max ? s : `${s.slice(0, max - 1)}… (${s.length} characters)`
}

// A response that breaks HTTP/1.1 (RFC 9112): the open loop's client fails the request with it and closes
// the connection; the round counts it in `protocolErrors`.
export function protocolError (message) {
  return new LabError('LAB_HTTP_PROTOCOL', `protocol error: ${message}`)
}

// Ctrl-C (or SIGTERM) once: abort the run and still write what was measured; twice: quit now. `say` writes
// the line that says so (the lab's and ab's CLIs).
export function interruptions (say = (sig) => process.stderr.write(
  `\ninterrupted (${sig}): stopping the current run and the server, writing what was measured (Ctrl-C again to ` +
    'quit now)\n'
)) {
  const controller = new AbortController()
  let exitCode = null
  const on = (sig) => {
    if (exitCode !== null) process.exit(exitCode)
    exitCode = sig === 'SIGTERM' ? 143 : 130
    say(sig)
    controller.abort(sig)
  }
  process.on('SIGINT', on)
  process.on('SIGTERM', on)
  return {
    signal: controller.signal,
    get exitCode () {
      return exitCode
    },
    off () {
      process.off('SIGINT', on)
      process.off('SIGTERM', on)
    }
  }
}
