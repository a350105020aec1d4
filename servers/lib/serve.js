// Listening, the ready line, graceful shutdown, and the top-level error exit every server shares.
import { buildApp } from './app.js'
import { createTelemetry } from './telemetry.js'
import { loadTask } from './task-module.js'
import { ServerError } from './errors.js'
import { isLoopback } from './options.js'
import { startSampling } from './sampling.js'
import { checkInstruments, runtimeInfo, v8Version } from './instruments.js'

const GRACE_MS = 2000
const SHUTDOWN_LIMIT_MS = 5000

// Say that the server is ready: the line on stdout for people, and — when started with an IPC channel
// (by the lab, bench or tests: loadtest/run/watch/boot.js) — the same facts as a message, so nothing parses
// the line. `work` is the parsed work ({ spec }). The message also names the runtime (bun, deno, node
// and its own version) and what its event-loop instruments can be trusted with (instruments.js), so it
// waits for their check.
export async function announceReady ({ host, port, strategy, work }) {
  const instruments = await checkInstruments()
  if (!isLoopback(host)) process.stderr.write(exposedWarning(host))
  console.log(readyLine({ host, port, strategy, work }))
  const h = host.includes(':') ? `[${host}]` : host
  process.send?.({
    type: 'ready',
    url: `http://${h}:${port}`,
    pid: process.pid,
    strategy,
    work: work.spec,
    runtime: runtimeInfo(),
    instruments,
    node: process.version,
    v8: v8Version()
  })
}

// The one line a server prints on stdout when it is ready.
function readyLine ({ host, port, strategy, work }) {
  const h = host.includes(':') ? `[${host}]` : host
  return `listening on http://${h}:${port} (${strategy}, ${work.spec}, pid ${process.pid})`
}

// The one-line warning for a server listening beyond loopback: whoever reaches it chooses the work.
export function exposedWarning (host) {
  return (
    `warning: listening on ${host}, beyond loopback: anyone who reaches it can send ?work= and choose ` +
    'how much CPU a request takes (--work-override off refuses that)\n'
  )
}

// Build the app for `strategy` (see buildApp), listen and announce; `close` ends the strategy's
// threads/children on shutdown; `extend(app)` adds to the app before it listens (a shedding plugin).
// Returns { app, port, telemetry }.
export async function start ({
  strategy,
  variant,
  options,
  handle,
  gauges,
  stats,
  resetStats,
  close,
  announce,
  role,
  extend,
  telemetry = createTelemetry({ enabled: options.telemetry === 'on', role })
}) {
  // A task module that does not load or export a function stops the server here (exit 2), not per request.
  if (options.work.task) await loadTask(options.work.task)
  await telemetry.ready // its instruments checked before any request can fall into their window
  const app = buildApp({
    strategy,
    variant,
    work: options.work,
    handle,
    telemetry,
    gauges,
    stats,
    resetStats,
    workOverride: options.workOverride,
    requestTimeout: options.requestTimeout
  })
  extend?.(app)
  const stopSampling = startSampling({ app, gauges })
  const port = await serve({
    app,
    options,
    strategy,
    announce,
    close: async () => {
      stopSampling()
      await close?.()
      telemetry.close()
    }
  })
  return { app, port, telemetry }
}

// Listen on options.port/host; print the ready line unless `announce` is false (cluster workers);
// on SIGTERM/SIGINT/IPC disconnect close the app (stop accepting, let in-flight answer) while `close()`
// ends the strategy's threads/children. Resolves to the port really listened on.
async function serve ({ app, options, strategy, close = async () => {}, announce = true }) {
  await app.listen({ port: options.port, host: options.host })
  const { port } = app.server.address()
  onShutdown(async () => {
    const closing = app.close() // stop accepting; in-flight requests may still answer
    await close() // end threads/children: their requests answer 503
    // Inline work cannot be failed (an async sleep, say): give it GRACE_MS, then drop its connection.
    const grace = setTimeout(() => app.server.closeAllConnections(), GRACE_MS)
    await closing
    clearTimeout(grace)
  })
  if (announce) await announceReady({ host: options.host, port, strategy, work: options.work })
  return port
}

// Run `stop` once on SIGTERM, SIGINT or (when started with an IPC channel) its disconnection, then exit
// 0; if `stop` has not finished SHUTDOWN_LIMIT_MS later, say so and exit 1.
export function onShutdown (stop) {
  let stopping = false
  const run = (why) => {
    if (stopping) return
    stopping = true
    setTimeout(() => {
      process.stderr.write(`shutdown (${why}): still running after ${SHUTDOWN_LIMIT_MS} ms, exiting\n`)
      process.exit(1)
    }, SHUTDOWN_LIMIT_MS).unref()
    // Exit explicitly: an abandoned inline timer (sleep work) must not keep the process alive.
    Promise.resolve()
      .then(stop)
      .then(
        () => process.exit(0),
        (err) => {
          process.stderr.write(`shutdown (${why}) failed: ${err.stack}\n`)
          process.exit(1)
        }
      )
  }
  process.once('SIGTERM', () => run('SIGTERM'))
  process.once('SIGINT', () => run('SIGINT'))
  if (process.send) process.once('disconnect', () => run('IPC channel closed'))
}

// Top level of a server: run `start`; a start-up error prints one line (a stack for bugs) and exits
// with its code (2 for bad options or work).
export function main (start) {
  start().catch((err) => {
    process.stderr.write((err instanceof ServerError || err.code ? err.message : err.stack) + '\n')
    process.exit(err.exitCode ?? 1)
  })
}
