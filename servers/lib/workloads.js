// The work one request does, named by a spec string `NAME:ARG`, optionally `NAME:ARG:bytes=N`: the work
// takes an input of N bytes, handed to it by the server's main thread (portable, task.js: carried into the
// thread or process that runs it), and answers a result that carries them back (`data`), so that the cost
// of moving data across a thread or process boundary shows against the work (docs/attribution.md). Pure
// and deterministic, so every way of running it (inline, piscina task, Worker, forked child) goes through
// runWork and gives the same body.
import { createRequire } from 'node:module'
import { isMainThread } from 'node:worker_threads'
import { ServerError } from './errors.js'

// React is loaded on first use, so a child forked for loop work does not pay for it.
const require = createRequire(import.meta.url)
let reactLib
const react = () => (reactLib ??= { ...require('react'), ...require('react-dom/server') })

const kinds = {
  // sum += i for i < N: N(N-1)/2, exact while below 2^53 (N up to ~1.3e8)
  loop: { arg: 'N', min: 1, max: 1e9, run: (n) => ({ sum: loop(n) }) },
  // naive recursive Fibonacci
  fib: { arg: 'N', min: 1, max: 45, run: (n) => ({ fib: fib(n) }) },
  // React renderToString of N button-and-link blocks (study 000)
  render: { arg: 'N', min: 1, max: 100000, run: (n) => ({ html: render(n) }) },
  // N sequential renderToString of a five-item list, total bytes rendered (study 001)
  ssr: { arg: 'N', min: 1, max: 20000, run: (n) => ({ bytes: ssr(n) }) },
  // promise-wrapped setTimeout (study 002)
  sleep: { arg: 'MS', min: 0, max: 60000, waits: true, run: (ms) => sleep(ms) },
  // Atomics.wait on a private SharedArrayBuffer: blocks the thread (study 002)
  'sleep-sync': { arg: 'MS', min: 0, max: 60000, waits: true, run: (ms) => sleepSync(ms) },
  // diagnostic: ends the worker thread (or pool process) it runs on with exit code CODE, as a crashing
  // native addon would (process.exit in a thread ends that thread only); on a server's main thread it throws
  crash: { arg: 'CODE', min: 0, max: 255, run: (code) => crash(code) },
  // diagnostic: runs loop:N, then throws "requested failure" (to exercise the 500 path)
  fail: {
    arg: 'N',
    min: 0,
    max: 1e9,
    run: (n) => {
      loop(n)
      throw new Error(`requested failure (fail:${n})`)
    }
  }
}

// The workload names, in the order the help text lists them.
export const WORKLOADS = Object.keys(kinds)

// The largest input (and result) a work spec may ask for with `:bytes=N`: 16 MiB, as a task's --input.
export const MAX_WORK_BYTES = 16 * 1024 * 1024

const valid = WORKLOADS.map((k) => `${k}:${kinds[k].arg} (${kinds[k].min}..${fmt(kinds[k].max)})`).join(', ') +
  `, each optionally followed by :bytes=N (0..${MAX_WORK_BYTES}: an input and a result of N bytes)`

const NUMBER = '(\\d+(?:\\.\\d+)?(?:e\\d+)?)'
const SPEC = new RegExp(`^([a-z-]+):${NUMBER}(?::bytes=${NUMBER})?$`, 'i')

// Parse `NAME:ARG[:bytes=N]` (numbers may be written 1e8) into { name, arg, spec } and, when given,
// `bytes`; throws ServerError ERR_BAD_WORK.
export function parseWork (spec) {
  if (typeof spec === 'object' && spec !== null) spec = spec.spec ?? `${spec.name}:${spec.arg}`
  const match = SPEC.exec(String(spec ?? '').trim())
  const kind = match && Object.hasOwn(kinds, match[1]) ? kinds[match[1]] : null // not `constructor`, `toString` …
  const arg = match ? Number(match[2]) : NaN
  const bytes = match?.[3] === undefined ? 0 : Number(match[3])
  if (!kind || !Number.isInteger(arg) || arg < kind.min || arg > kind.max || !Number.isInteger(bytes) ||
    bytes > MAX_WORK_BYTES) {
    throw new ServerError('ERR_BAD_WORK', `bad work spec ${JSON.stringify(String(spec))}: expected ${valid}`)
  }
  if (match[3] === undefined) return { name: match[1], arg, spec: `${match[1]}:${match[2]}` }
  return { name: match[1], arg, spec: `${match[1]}:${match[2]}:bytes=${match[3]}`, bytes }
}

// The input of a work that asks for `bytes` (the same N bytes everywhere, so the answer can be checked).
export function workInput (bytes) {
  return 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(bytes / 36)).slice(0, bytes)
}

// Run one unit of work: a plain object for CPU work, a Promise of one for `sleep`. A spec with bytes takes
// `input` (the string it was handed; made here when none was: inline work holds its input already) and
// answers it back as `data`.
export function runWork (spec, input = null) {
  const { name, arg, bytes = 0 } = parseWork(spec)
  const out = kinds[name].run(arg)
  if (!bytes) return out
  const data = input ?? workInput(bytes)
  if (typeof data !== 'string' || data.length !== bytes) {
    throw new ServerError('ERR_BAD_WORK', `work ${spec.spec ?? spec} expected an input of ${bytes} bytes`)
  }
  return out instanceof Promise ? out.then((r) => ({ ...r, data })) : { ...out, data }
}

// How long a waiting kind (the sleeps: their service time is the wait itself, on no core) takes, in ms;
// null for work that computes, or for a spec that is not a work (a task).
export function waitMs (spec) {
  try {
    const { name, arg } = parseWork(spec)
    return kinds[name].waits ? arg : null
  } catch {
    return null
  }
}

const bodies = new Map()

// The exact HTTP body a server answers for this spec (memoised; the sleep kinds do not sleep).
export function expectedBody (spec) {
  const work = parseWork(spec)
  if (!bodies.has(work.spec)) {
    const result = kinds[work.name].waits
      ? { hello: 'world', ...(work.bytes ? { data: workInput(work.bytes) } : {}) }
      : runWork(work)
    bodies.set(work.spec, JSON.stringify(result))
  }
  return bodies.get(work.spec)
}

let processMayEnd = false

// Let crash:CODE end this process: called by a pool process's entry (process-entry.js), never by a server.
export function crashEndsProcess () {
  processMayEnd = true
}

function crash (code) {
  if (!isMainThread || processMayEnd) process.exit(code)
  throw new Error(`crash:${code} ends worker threads and pool processes only; on a main thread it throws`)
}

function loop (n) {
  let sum = 0
  for (let i = 0; i < n; i++) sum += i
  return sum
}

function fib (n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2)
}

// Colours come from the index (a multiplicative hash), so the HTML is the same on every run.
function colour (i, salt) {
  return '#' + (((Math.imul(i + 1, 2654435761) ^ salt) >>> 8) & 0xffffff).toString(16).padStart(6, '0')
}

function render (n) {
  const { createElement, Fragment, renderToString } = react()
  const blocks = []
  for (let i = 0; i < n; i++) {
    blocks.push(
      createElement(
        'div',
        { key: i },
        createElement('button', { style: { color: colour(i, 0) } }, 'Button'),
        createElement('a', { style: { backgroundColor: colour(i, 0x5bd1e9) } }, "I'm a link")
      )
    )
  }
  return renderToString(createElement(Fragment, null, blocks))
}

function ssr (n) {
  const { createElement, renderToString } = react()
  const items = [1, 2, 3, 4, 5].map((i) => createElement('li', { key: i }, 'text'))
  let bytes = 0
  for (let i = 0; i < n; i++) {
    bytes += Buffer.byteLength(renderToString(createElement('div', null, createElement('ul', null, items))))
  }
  return bytes
}

function sleep (ms) {
  return new Promise((resolve) => setTimeout(() => resolve({ hello: 'world' }), ms))
}

function sleepSync (ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
  return { hello: 'world' }
}

function fmt (n) {
  return n >= 1e6 ? `1e${Math.log10(n)}` : String(n)
}
