// Calibration child: times work specs in this one long-lived process and prints the samples as JSON.
// stdin is JSON: { specs: [...], tasks: { [spec]: task }, maxCalls, totalBudgetMs } (tasks: the --task
// modules among the specs, described by servers/lib/task-module.js), or { check: task } for one checked
// call of a task module, or { coldThreads: n, spec, tasks } for n calls each in a fresh Worker thread
// (this file again, its plan as workerData, its samples posted back). Each spec gets an equal share of
// what is left of the budget, at least 2 calls while the budget lasts and 1 after. Not an entry point
// for users.
import { text } from 'node:stream/consumers'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { runWork } from '../../../servers/lib/workloads.js'
import { now } from '../../../servers/lib/task.js'
import { loadTask, prepareTask, runTask, toJson } from '../../../servers/lib/task-module.js'
import { CHECK_ANSWER_LIMIT } from './task.js'

if (!isMainThread) parentPort.postMessage(await measure(workerData))
else {
  const plan = JSON.parse(await text(process.stdin))
  const answer = ownStdout() // a task's own prints (console.log, 100 MB) are never the answer
  if (plan.check) {
    // the check's answer goes over its IPC channel (run/watch/task.js), never on stdout
    const line = answerLine(await check(plan.check))
    await new Promise((resolve) => process.send({ type: 'answer', line }, resolve))
    process.disconnect() // the channel must not keep this process alive
  } else answer(JSON.stringify(await (plan.coldThreads ? coldThreads(plan) : measure(plan))) + '\n')
}

// Take stdout for the answer alone: what anything else writes there through process.stdout (a task's
// console.log, or its 100 MB) is dropped, so the calibration's samples line is the only line on it.
// Returns the write that keeps the answer.
function ownStdout () {
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = (chunk, encoding, done) => {
    const callback = typeof encoding === 'function' ? encoding : done
    if (callback) queueMicrotask(() => callback())
    return true
  }
  return (line) => write(line)
}

// n calls of one spec, each the first and only call in a fresh Worker thread: { [spec]: samples }.
async function coldThreads ({ coldThreads: n, spec, tasks = {} }) {
  const samplesMs = []
  for (let i = 0; i < n; i++) {
    const once1 = { specs: [spec], tasks, maxCalls: 1, totalBudgetMs: 0 }
    const worker = new Worker(new URL(import.meta.url), { workerData: once1 })
    // 'exit' is listened for before the message is awaited: a thread that ends at once has its last
    // message and its 'exit' emitted in one turn, before the await below resumes, and an 'exit' listened
    // for only then never comes (the process ended with exit code 13, an unsettled top-level await).
    const exited = once(worker, 'exit')
    const [samples] = await once(worker, 'message')
    samplesMs.push(...samples[spec])
    await exited
  }
  return { [spec]: samplesMs }
}

// One call of a task module, as a server's first request would make it: { body, expectedBody, setupMs,
// firstMs } or { error: { code, message } }. The lab hears { type: 'calling' } once load and setup() are
// done, so that it bounds the call by the call's own timeout.
async function check (task) {
  try {
    const t0 = performance.now()
    await prepareTask(task)
    process.send?.({ type: 'calling' })
    const out = await runTask(task, now)
    const { expected } = await loadTask(task)
    return {
      body: out.body,
      expectedBody: expected === undefined ? null : toJson(expected),
      setupMs: performance.now() - t0 - out.workMs,
      firstMs: out.workMs
    }
  } catch (err) {
    return { error: { code: err?.code ?? null, message: String(err?.message ?? err).split('\n')[0] } }
  }
}

// The check's answer as one JSON line, or, when it would be over CHECK_ANSWER_LIMIT (or past what a
// string can hold), the error saying that the task's result is too big and how big it is.
function answerLine (answer) {
  let line = null
  try {
    line = JSON.stringify(answer)
  } catch {} // RangeError: more than a string can hold
  if (line !== null && Buffer.byteLength(line) <= CHECK_ANSWER_LIMIT) return line
  const mb = (n) => (n / 1024 / 1024).toFixed(1)
  const size = Buffer.byteLength(answer.body) + (answer.expectedBody ? Buffer.byteLength(answer.expectedBody) : 0)
  const message = `the task's result is too big: ${mb(size)} MB of ` +
    `JSON${answer.expectedBody ? ' with its expected export' : ''}, ` +
    `over the ${mb(CHECK_ANSWER_LIMIT)} MB the lab's check takes`
  return JSON.stringify({ error: { code: 'ERR_TASK_RESULT', message } })
}

async function measure ({ specs, tasks = {}, maxCalls, totalBudgetMs }) {
  const deadline = performance.now() + totalBudgetMs
  const out = {}
  for (const [i, spec] of specs.entries()) {
    const task = tasks[spec]
    if (task) await prepareTask(task) // load and setup() are not part of a call's time
    const share = (deadline - performance.now()) / (specs.length - i)
    const until = performance.now() + share
    const minCalls = performance.now() < deadline ? 2 : 1
    const samplesMs = []
    while (samplesMs.length < maxCalls) {
      const t0 = performance.now()
      await (task ? runTask(task, now) : runWork(spec))
      samplesMs.push(performance.now() - t0)
      if (performance.now() > until && samplesMs.length >= minCalls) break
    }
    out[spec] = samplesMs
  }
  return out
}
