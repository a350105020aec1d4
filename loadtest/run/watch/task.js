// The lab's side of `--task PATH[#export] --input JSON|@file`: describe the module from the user's
// working directory (its spec carries hashes of its file and input, so results of different code never
// share a key), check it with one real call in a child process before any server starts (its result is
// the expected body, or its `expected` export is), and the arguments that hand it to every server.
import { loadExeca } from '../../result/lazy.js'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../../catalog.js'
import { LabError, abortError, clip, usageError } from '../../errors.js'
import { userCwd } from '../../paths.js'
import { childEndText } from '../../text/exit.js'

const CHILD = join(ROOT, 'loadtest', 'run', 'watch', 'calibrate-child.js')
// The most the check child may answer (bytes of its JSON line over IPC: the result, and its `expected`
// export when given): a bigger one says so itself, "too big", instead of being sent.
export const CHECK_ANSWER_LIMIT = 64 * 1024 * 1024
// a file URL, not the path: import() reads a path as a URL, and a checkout under "a#b" loses all after #
const taskModule = () => import(pathToFileURL(join(ROOT, 'servers', 'lib', 'task-module.js')).href)

// The directory relative paths are taken from: the user's own (npm run changes to the package root).
export { userCwd }

// Describe --task/--input (a usage error, exit 2, for a missing file or bad JSON): the servers' work
// object { name: 'task', spec, task } plus `inputArg`, the --input to pass on (an @file made absolute).
export async function describeLabTask ({ task, input, timeoutSec, cwd = userCwd() }) {
  const { describeTask } = await taskModule()
  let work
  try {
    work = describeTask({ ref: task, input, timeoutMs: Math.round(timeoutSec * 1000), cwd })
  } catch (err) {
    throw usageError(err.message)
  }
  const fromFile = typeof input === 'string' && input.startsWith('@')
  const inputArg = input == null ? null : fromFile ? '@' + resolve(cwd, input.slice(1)) : work.task.inputJson
  return { ...work, inputArg }
}

// The server arguments that run this task.
export function taskArgs (work) {
  const t = work.task
  return [
    '--task',
    t.exportName === 'default' ? t.path : `${t.path}#${t.exportName}`,
    ...(work.inputArg ? ['--input', work.inputArg] : []),
    '--task-timeout',
    String(t.timeoutMs)
  ]
}

// How long past its own bound the check child gets to report a timeout itself before it is killed.
const CHECK_GRACE_MS = 2000

// Run the check child: load and setup() bounded by `setupMs`, then (once it says { type: 'calling' }) the
// call by `callMs`; killed when either runs out. Its answer comes over IPC ({ type: 'answer', line }),
// never from stdout, which is the task's own (a console.log, or 100 MB, is dropped, not read). Resolves
// execa's result plus `timedOut` ('setup' | 'call') and `answer` (the line, or null).
function runCheck (execa, t, { signal, setupMs, callMs }) {
  const child = execa(process.execPath, [CHILD], {
    reject: false,
    cancelSignal: signal,
    ipc: true,
    stdout: 'ignore',
    input: JSON.stringify({ check: t })
  })
  let timedOut = null
  let answer = null
  const arm = (phase, ms) => setTimeout(() => {
    timedOut = phase
    child.kill('SIGKILL')
  }, ms)
  let timer = arm('setup', setupMs)
  child.on('message', (msg) => {
    if (msg?.type === 'answer' && typeof msg.line === 'string') answer = msg.line
    if (msg?.type !== 'calling') return
    clearTimeout(timer)
    timer = arm('call', callMs)
  })
  return child.then((r) => {
    clearTimeout(timer)
    return { ...r, timedOut, answer }
  })
}

// One checked call in a child process: { body, expectedBody, setupMs, firstMs }. The task's failures
// are lab errors with one line each: a module that does not load or export a function is a usage error
// (exit 2); setup() throwing, the call throwing, a result that is not JSON or never settles exit 1. The
// call is bounded by the user's --timeout (load and setup() by what a server gives them); `signal` (the
// lab's Ctrl-C, also when the terminal's SIGINT reached the child first) ends it at once: exit 130.
export async function checkTask (work, { signal } = {}) {
  const { SETUP_TIMEOUT_MS } = await taskModule()
  const t = work.task
  const setupMs = Math.max(SETUP_TIMEOUT_MS, t.timeoutMs)
  const limits = { signal, setupMs: setupMs + CHECK_GRACE_MS, callMs: t.timeoutMs + CHECK_GRACE_MS }
  const r = await runCheck(await loadExeca(), t, limits)
  const label = `--task ${t.path}${t.exportName === 'default' ? '' : '#' + t.exportName}`
  if (r.isCanceled || signal?.aborted || r.signal === 'SIGINT') throw abortError('interrupted while checking the task')
  if (r.timedOut === 'call') {
    throw new LabError('LAB_TASK', `${label}: the check call did not return within ${t.timeoutMs} ms (--timeout; ` +
      'a synchronous loop?)')
  }
  if (r.timedOut === 'setup') {
    throw new LabError('LAB_TASK', `${label}: loading it and its setup() did not finish within ${setupMs} ms`)
  }
  let out = null
  try {
    out = JSON.parse(r.answer)
  } catch {}
  if (!out) {
    const why = childEndText(r, 'the task')
    throw new LabError('LAB_TASK', `${label}: the check call failed: ${why}`)
  }
  if (out.error) {
    if (out.error.code === 'ERR_BAD_TASK') throw usageError(out.error.message)
    throw new LabError('LAB_TASK', `${label}: ${out.error.message}`)
  }
  if (out.expectedBody !== null && out.body !== out.expectedBody) {
    throw new LabError(
      'LAB_TASK',
      `${label}: the result differs from the module's \`expected\` export ` +
        `(got ${clip(out.body)}, expected ${clip(out.expectedBody)})`
    )
  }
  return out
}

// What a report records about the task (method.task): where it is, what it is, what it was given.
export function taskRecord (work, check, ref) {
  const t = work.task
  const small = t.inputJson !== null && t.inputJson.length <= 4096
  return {
    ref,
    path: t.path,
    export: t.exportName,
    spec: work.spec,
    fileSha256: t.fileSha256,
    inputFrom: work.inputArg?.startsWith('@')
      ? work.inputArg.slice(1)
      : t.inputJson !== null
        ? 'command line'
        : 'module input export',
    input: small ? JSON.parse(t.inputJson) : null,
    inputSha256: t.inputSha256,
    timeoutMs: t.timeoutMs,
    expectedFrom: check.expectedBody !== null ? 'module expected export' : 'calibration call',
    bodyBytes: Buffer.byteLength(check.body),
    setupMs: Math.round(check.setupMs * 1000) / 1000
  }
}
