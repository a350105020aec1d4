// The user's own work (`--task PATH[#export] --input JSON|@file`): describing a task module (path made
// absolute from the working directory, file and input hashed into its work spec), loading it in any
// process or thread, running setup() once there, and one timed, bounded, JSON-checked call per request.
// Contract (docs/task.md): the module (ESM or CommonJS) exports a function
// `(input) => result | Promise<result>` as default or under `#name`; optional `input`, `setup()`, `expected`.
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ServerError } from './errors.js'

// setup() may load big modules: it gets this long (or the call timeout, if longer) before it counts as hung.
export const SETUP_TIMEOUT_MS = 60000
// The largest --input @file read (bytes): the input is parsed by every server process and thread.
export const MAX_INPUT_BYTES = 16 * 1024 * 1024

// Per-call bound when none is given (servers: --task-timeout; the lab passes its --timeout).
export const DEFAULT_TIMEOUT_MS = 30000

// After a call's own bound, how long its thread/child gets to report the timeout before it is ended.
export const KILL_GRACE_MS = 500

// The codes of a task module's failures; a thread or child reports them with its answer, a pool's caller
// gets them back from unpooled() (errors lose their code crossing to the main thread).
export const TASK_CODES = new Set(['ERR_BAD_TASK', 'ERR_TASK_SETUP', 'ERR_TASK_RESULT', 'ERR_TASK_TIMEOUT'])

const sha256 = (data) => createHash('sha256').update(data).digest('hex')

// Split `PATH[#export]`: a `#` counts only when an identifier follows it (so `a#b.js` is a path).
function splitTaskRef (ref) {
  const at = ref.lastIndexOf('#')
  const name = ref.slice(at + 1)
  if (at > 0 && /^[A-Za-z_$][\w$]*$/.test(name)) return { file: ref.slice(0, at), exportName: name }
  return { file: ref, exportName: 'default' }
}

// Describe a task from the command line, without loading it: { name: 'task', spec, task } where task is
// { path (absolute), exportName, fileSha256, inputJson (null: the module's `input`), inputSha256, timeoutMs }.
// Relative paths (task and @input file) resolve from `cwd`. Throws ServerError ERR_BAD_TASK (exit 2).
export function describeTask ({ ref, input, timeoutMs = DEFAULT_TIMEOUT_MS, cwd = process.cwd() }) {
  if (typeof ref !== 'string' || ref.trim() === '') {
    throw new ServerError('ERR_BAD_TASK', '--task: expected PATH[#export], got an empty value')
  }
  const { file, exportName } = splitTaskRef(ref)
  const path = resolve(cwd, file)
  let source
  try {
    if (!statSync(path).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' })
    source = readFileSync(path)
  } catch (err) {
    const why =
      err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'not a file' : (err.code ?? err.message)
    throw new ServerError('ERR_BAD_TASK', `--task: cannot read ${path}: ${why}`)
  }
  const inputJson = input === undefined || input === null ? null : readInput(input, cwd)
  const fileSha256 = sha256(source)
  const inputSha256 = inputJson === null ? null : sha256(inputJson)
  const name = basename(path).replace(/[\s,]+/g, '_')
  const hash = fileSha256.slice(0, 10) + (inputSha256 ? '.' + inputSha256.slice(0, 8) : '')
  const spec = `task:${name}${exportName === 'default' ? '' : '#' + exportName}@${hash}`
  const task = { spec, path, exportName, fileSha256, inputJson, inputSha256, timeoutMs }
  return { name: 'task', arg: null, spec, task }
}

// The text of an --input @file: a regular file (not a device, FIFO or directory: /dev/zero never ends) of
// at most MAX_INPUT_BYTES, read with that bound whatever its size says; throws ERR_BAD_TASK.
function readInputFile (path) {
  const bad = (why) => new ServerError('ERR_BAD_TASK', `--input: cannot read ${path}: ${why}`)
  let fd
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK) // a FIFO must not block the open
  } catch (err) {
    throw bad(err.code === 'ENOENT' ? 'no such file' : (err.code ?? err.message))
  }
  try {
    if (!fstatSync(fd).isFile()) throw bad('not a regular file')
    const chunks = []
    let size = 0
    for (let n = -1; n !== 0 && size <= MAX_INPUT_BYTES; size += n) {
      const chunk = Buffer.allocUnsafe(1 << 16)
      n = readSync(fd, chunk, 0, chunk.length, null)
      chunks.push(chunk.subarray(0, n))
    }
    if (size > MAX_INPUT_BYTES) throw bad(`larger than ${MAX_INPUT_BYTES} bytes`)
    return Buffer.concat(chunks).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

// `--input JSON|@file` → compact JSON text (what every process/thread parses); throws ERR_BAD_TASK.
function readInput (raw, cwd) {
  let text = raw
  let from = '--input'
  if (raw.startsWith('@')) {
    const path = resolve(cwd, raw.slice(1))
    from = `--input ${path}`
    text = readInputFile(path)
  }
  try {
    return JSON.stringify(JSON.parse(text))
  } catch (err) {
    throw new ServerError('ERR_BAD_TASK', `${from}: not JSON (${err.message.split('\n')[0]})`)
  }
}

// Import the module and pick its function: { fn, input, expected, setup } (input parsed from inputJson
// when given, else the module's `input` export). Throws ServerError ERR_BAD_TASK for a file that does not load
// or does not export a function.
export async function loadTask (task) {
  let mod
  try {
    mod = await import(pathToFileURL(task.path).href)
  } catch (err) {
    throw new ServerError('ERR_BAD_TASK', `task ${task.path} does not load: ${oneLine(err)}`, { cause: err })
  }
  // CommonJS: module.exports = fn arrives as `default`; exports.name as a named export (or on default).
  const fn = task.exportName === 'default' ? mod.default : (mod[task.exportName] ?? mod.default?.[task.exportName])
  if (typeof fn !== 'function') {
    const has = Object.keys(mod).filter((k) => typeof mod[k] === 'function')
    const hint = has.length ? ` (functions exported: ${has.join(', ')}; pick one with PATH#name)` : ''
    const what = `export ${task.exportName} is ${kindOf(fn)}, not a function`
    throw new ServerError('ERR_BAD_TASK', `task ${task.path}: ${what}${hint}`)
  }
  const pick = (k) => mod[k] ?? (mod.default && typeof mod.default === 'object' ? mod.default[k] : undefined)
  const setup = pick('setup')
  if (setup !== undefined && typeof setup !== 'function') {
    throw new ServerError('ERR_BAD_TASK', `task ${task.path}: export setup is ${kindOf(setup)}, not a function`)
  }
  const input = task.inputJson === null ? pick('input') : JSON.parse(task.inputJson)
  return { fn, input, expected: pick('expected'), setup }
}

const prepared = new Map() // spec → Promise<{ fn, input }>, one per process/thread; a failure is kept

// Load the task and run its setup() once in this process/thread (exported for the lab's calibration).
// Resolves { fn, input, setupRan }: setupRan is true for the one call that ran setup() (the server counts it).
export async function prepareTask (task) {
  let first = false
  if (!prepared.has(task.spec)) {
    first = true
    prepared.set(
      task.spec,
      (async () => {
        const loaded = await loadTask(task)
        if (loaded.setup) {
          try {
            await bounded(loaded.setup(), Math.max(SETUP_TIMEOUT_MS, task.timeoutMs), 'setup() did not settle')
          } catch (err) {
            throw new ServerError('ERR_TASK_SETUP', `task setup() failed: ${oneLine(err)}`, { cause: err })
          }
        }
        return { ...loaded, hasSetup: Boolean(loaded.setup) }
      })()
    )
  }
  const p = await prepared.get(task.spec)
  return { fn: p.fn, input: p.input, setupRan: first && p.hasSetup }
}

// One call of the task: { body, startedAt, workMs, setupRan } (startedAt after setup). Rejects with
// ServerError ERR_TASK_FAILED (it threw), ERR_TASK_RESULT (not JSON) or ERR_TASK_TIMEOUT (did not settle).
export async function runTask (task, now) {
  const { fn, input, setupRan } = await prepareTask(task)
  const startedAt = now()
  let result
  try {
    result = await bounded(fn(input), task.timeoutMs, 'did not settle')
  } catch (err) {
    if (err?.code === 'ERR_TASK_TIMEOUT') throw err // a task may reject with anything, null included
    throw new ServerError('ERR_TASK_FAILED', `task threw: ${oneLine(err)}`, { cause: err })
  }
  const workMs = now() - startedAt
  return { body: toJson(result), startedAt, workMs, setupRan }
}

// The body for a result, or ServerError ERR_TASK_RESULT saying why it is not JSON.
export function toJson (result) {
  let body
  try {
    body = JSON.stringify(result)
  } catch (err) {
    throw new ServerError('ERR_TASK_RESULT', `task result is not JSON-serialisable: ${oneLine(err)}`)
  }
  if (typeof body !== 'string') {
    throw new ServerError('ERR_TASK_RESULT', `task result is not JSON-serialisable: got ${kindOf(result)}`)
  }
  return body
}

// A pool task's answer for a task module's failure: { failed: { code, message } } (see unpooled).
export function pooledFailure (err) {
  if (!TASK_CODES.has(err?.code) && err?.code !== 'ERR_TASK_FAILED') throw err
  return { failed: { code: err.code, message: err.message } }
}

// A pool's answer back on the main thread: the answer, or the task module's failure thrown with its code.
export function unpooled (out) {
  if (out?.failed) throw new ServerError(out.failed.code, out.failed.message)
  return out
}

// For a pool (piscina): a signal that aborts a task module's call KILL_GRACE_MS after its own bound,
// so a call that never returns (a synchronous loop) has its thread ended and replaced; null for built-in work.
export function taskDeadline (work) {
  return work.task ? AbortSignal.timeout(work.task.timeoutMs + KILL_GRACE_MS) : null
}

// The error for a call its thread/child was ended for (`how`: what was done to it).
export function endedError (work, what, how = 'was ended') {
  const message = `task did not settle within ${work.task.timeoutMs} ms (its ${what} ${how})`
  return new ServerError('ERR_TASK_TIMEOUT', message)
}

// A value or promise raced against `ms` (the timer is cleared as soon as it settles).
function bounded (value, ms, what) {
  if (!(value instanceof Promise) && typeof value?.then !== 'function') return value
  let timer
  const limit = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new ServerError('ERR_TASK_TIMEOUT', `task ${what} within ${ms} ms`)), ms)
  })
  return Promise.race([value, limit]).finally(() => clearTimeout(timer))
}

function kindOf (v) {
  if (v === undefined) return 'undefined'
  if (typeof v === 'function') return 'a function'
  if (typeof v === 'bigint') return 'a bigint'
  if (typeof v === 'symbol') return 'a symbol'
  return v === null ? 'null' : `a ${typeof v}`
}

function oneLine (err) {
  return String(err?.message ?? err).split('\n')[0]
}
