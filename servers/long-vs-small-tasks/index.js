// long-vs-small-tasks: study 001. The work (default ssr:5625, the study's 25 steps of 225 renders)
// runs on the main thread either in one go (--mode long) or in --steps steps, each scheduled with
// setImmediate after the previous one (--mode small) so other requests get a turn in between. With
// --api on, each request first calls a slow API: --api-url, or an emulator this server starts as its
// own child process and ends with itself. Only ssr work is split (a --task is refused in small mode);
// inline work cannot be cancelled.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { Agent, get } from 'node:http'
import { ServerError } from '../lib/errors.js'
import { httpUrl, integer, oneOf, parseOptions } from '../lib/options.js'
import { inline } from '../lib/inline.js'
import { main, start } from '../lib/serve.js'
import { now, timedRun } from '../lib/task.js'
import { runWork } from '../lib/workloads.js'

main(async () => {
  const options = parseOptions({
    strategy: 'long-vs-small-tasks',
    work: 'ssr:5625',
    extra: {
      mode: { default: 'long', parse: oneOf('long', 'small'), help: 'render in one go, or in steps' },
      steps: { default: '25', parse: integer(1, 10000), help: 'small mode: steps the work is split into' },
      api: { default: 'off', parse: oneOf('off', 'on'), help: 'call a slow API before rendering' },
      apiUrl: { parse: httpUrl, help: 'the API to call (default: start the emulator, api.js)' },
      apiTimeout: {
        default: '5000',
        parse: integer(1, 600000),
        help: 'ms the API may take before the request answers 504'
      }
    }
  })
  if (options.work.task && options.mode === 'small') {
    // An opaque function cannot be cut into steps from outside: only the task itself could yield.
    throw new ServerError(
      'ERR_BAD_OPTION',
      '--mode small: cannot split a --task into steps (it is one opaque call); ' +
        'use --mode long, or yield inside the task (await new Promise(setImmediate))'
    )
  }
  if (options.apiUrl && options.api === 'off') {
    throw new ServerError('ERR_BAD_OPTION', `--api-url: needs --api on, got "${options.apiUrl}" with --api off`)
  }
  const emulator = options.api === 'on' && !options.apiUrl ? await startEmulator() : null
  const apiUrl = options.apiUrl ?? (emulator && `http://127.0.0.1:${emulator.port}/`)
  const agent = new Agent({ keepAlive: true })
  let closing = false

  async function run (work) {
    let apiMs
    if (apiUrl) {
      const t = now()
      await callApi(apiUrl, agent, options.apiTimeout).catch((err) => {
        throw closing ? new ServerError('ERR_SHUTTING_DOWN', 'server is shutting down', { cause: err }) : err
      })
      apiMs = now() - t
    }
    if (work.task) return { ...(await timedRun(work)), apiMs }
    const startedAt = now()
    const result =
      options.mode === 'small' && work.name === 'ssr' ? await inSteps(work.arg, options.steps) : await runWork(work)
    return { body: JSON.stringify(result), startedAt, workMs: now() - startedAt, apiMs }
  }

  await start({
    strategy: 'long-vs-small-tasks',
    variant: `${options.mode}${apiUrl ? '+api' : ''}`,
    options,
    ...inline(run),
    close: async () => {
      closing = true
      agent.destroy()
      if (emulator) await emulator.stop()
    }
  })
})

// ssr:N as `steps` renders of about N/steps each, each step after a setImmediate; same total bytes.
async function inSteps (n, steps) {
  let bytes = 0
  for (let i = 0; i < steps; i++) {
    const size = Math.floor(n / steps) + (i < n % steps ? 1 : 0)
    await new Promise(setImmediate)
    if (size > 0) bytes += runWork({ name: 'ssr', arg: size }).bytes
  }
  return { bytes }
}

// GET the API; rejects with ERR_API_FAILED (an error or a non-200) or ERR_API_TIMEOUT (no whole answer
// within timeoutMs: the request is destroyed, its socket freed).
function callApi (url, agent, timeoutMs) {
  return new Promise((resolve, reject) => {
    let done = false
    const fail = (err) => {
      if (!done) {
        done = true
        reject(err)
      }
    }
    const req = get(url, { agent }, (res) => {
      res.resume().once('end', () => {
        if (done) return
        done = true
        clearTimeout(timer)
        res.statusCode === 200
          ? resolve()
          : reject(new ServerError('ERR_API_FAILED', `API ${url}: status ${res.statusCode}`))
      })
    })
    const timer = setTimeout(() => {
      fail(new ServerError('ERR_API_TIMEOUT', `API ${url}: no answer within ${timeoutMs} ms (--api-timeout)`))
      req.destroy()
    }, timeoutMs)
    req.once('error', (err) => {
      clearTimeout(timer)
      fail(new ServerError('ERR_API_FAILED', `API ${url}: ${err.message}`))
    })
  })
}

// Fork api.js with an IPC channel (so it exits if we die), wait for its port.
async function startEmulator () {
  const child = fork(new URL('./api.js', import.meta.url), ['--port', '0'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc']
  })
  const exited = once(child, 'exit')
  const [msg] = await Promise.race([
    once(child, 'message'),
    exited.then(([code]) => {
      throw new Error(`the API emulator exited with code ${code} before listening`)
    })
  ])
  return {
    port: msg.port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGTERM')
      await exited
    }
  }
}
