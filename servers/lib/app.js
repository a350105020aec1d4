// The Fastify app every strategy serves, built apart from listening (tests use app.inject()).
// Routes: GET / (one unit of work through `handle`), GET /cheap (a small answer on the main thread, no work),
// GET /health, GET /__lab/stats, POST /__lab/stats/reset.
import { STATUS_CODES } from 'node:http'
import Fastify from 'fastify'
import { ServerError } from './errors.js'
import { parseWork } from './workloads.js'
import { STAMPS_HEADER, now, stampsValue } from './stamps.js'
import { aggregate } from './telemetry.js'
import { runtimeInfo, v8Version } from './instruments.js'

// A lab route that changes state answers the lab only: no request with an Origin (browsers send one with
// every POST; any page in the operator's browser could otherwise reset a running server's window, also
// through DNS rebinding, where the origin's host is the server's), and no body but JSON (a form or
// text/plain POST is what a page can send without asking). Runs before the body is read.
async function labRouteGuard (request) {
  const origin = request.headers.origin
  if (origin !== undefined) {
    throw new ServerError('ERR_CROSS_ORIGIN', `${request.url} answers the lab only, not a request ` +
      `from ${JSON.stringify(origin)}`)
  }
  const type = request.headers['content-type']
  const hasBody = Number(request.headers['content-length'] ?? 0) > 0 ||
    request.headers['transfer-encoding'] !== undefined
  if ((type !== undefined || hasBody) && !/^application\/json\s*(;|$)/i.test(type ?? '')) {
    throw new ServerError('ERR_MEDIA_TYPE', `${request.url} takes no body or a JSON one, ` +
      `not ${JSON.stringify(type ?? 'an untyped body')}`)
  }
}

// The body of GET /cheap (`expectedBody` of the mix's cheap class).
export const CHEAP_BODY = '{"cheap":true}'

// GET /: one unit of work (the server's own, or ?work= unless turned off) through the strategy's `handle`,
// answered with its Server-Timing and the lab's stamps; the client leaving aborts the work's signal.
function workRoute ({ work, handle, telemetry, workOverride }) {
  return async (request, reply) => {
    const receivedAt = now()
    // an own property only: a task may have set Object.prototype.work, and the query object inherits it
    const asked = Object.hasOwn(request.query, 'work') ? request.query.work : undefined
    if (Array.isArray(asked)) throw new ServerError('ERR_BAD_WORK', '?work given more than once: give one work spec')
    if (asked !== undefined && workOverride === 'off') {
      throw new ServerError(
        'ERR_BAD_WORK',
        '?work= is turned off on this server (--work-override off): it runs its own work only'
      )
    }
    const todo = asked === undefined ? work : parseWork(asked)
    // The client leaving before the answer aborts the signal; strategies that can cancel use it.
    const controller = new AbortController()
    const onClose = () => {
      if (!reply.raw.writableFinished) controller.abort()
    }
    reply.raw.once('close', onClose)
    const out = await handle(todo, { signal: controller.signal, receivedAt })
    const backAt = now()
    if (out.setupRan) telemetry.countSetup()
    const apiMs = out.apiMs ?? 0
    const timing = [
    `work;dur=${out.workMs.toFixed(2)}`,
    `queue;dur=${Math.max(0, out.startedAt - receivedAt - apiMs).toFixed(2)}`
    ]
    if (out.apiMs !== undefined) timing.push(`api;dur=${apiMs.toFixed(2)}`)
    reply.header('server-timing', timing.join(', ')).type('application/json; charset=utf-8')
    const stamps = stampsValue(receivedAt, backAt, out)
    if (stamps !== null) reply.header(STAMPS_HEADER, stamps)
    return out.body
  }
}

// Build the app. `handle(work, { signal, receivedAt })` runs the work the strategy's way and resolves to
// { body, startedAt, workMs, apiMs? }. `gauges` = { read(), reset() } of the strategy; `stats`/`resetStats`
// replace the local ones (a cluster worker asks its primary). The instance is returned without listening.
// `workOverride: 'off'` makes ?work= a 400 (a server others can reach should not let them choose the
// work); `requestTimeout` (ms) closes a connection whose request has not fully arrived by then.
export function buildApp ({
  strategy, variant, work, handle, telemetry, gauges, stats, resetStats, workOverride = 'on', requestTimeout = 10000
}) {
  // Node checks request timeouts every connectionsCheckingInterval (30 s by default): check every
  // quarter of the timeout, so a slow client is cut off close to it.
  const checkMs = Math.max(100, Math.min(30000, Math.round(requestTimeout / 4)))
  const app = Fastify({ logger: false, requestTimeout, http: { connectionsCheckingInterval: checkMs } })
  const localStats = async () =>
    aggregate({ strategy, variant, processes: [telemetry.snapshot()], gauges: gauges?.read() ?? {} })
  const localReset = async () => {
    telemetry.reset()
    gauges?.reset?.()
  }

  app.setErrorHandler((err, request, reply) => {
    const status = err.statusCode >= 400 ? err.statusCode : 500
    if (err.retryAfter) reply.header('retry-after', String(err.retryAfter))
    reply
      .code(status)
      .send({ error: STATUS_CODES[status] ?? 'Error', code: err.code ?? 'ERR_TASK_FAILED', message: err.message })
  })

  // Every answer announces the lab's endpoints (/health, /__lab/stats) by naming the strategy: a lab
  // server loaded by --url is used as one (loadtest/run/round/runner.js LAB_HEADER), any other service not.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('loadlab-strategy', strategy)
    done()
  })

  // Only answers to GET / count as requests (completed = 2xx, failed = anything else).
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === '/') telemetry.count(reply.statusCode < 300)
  })

  app.get('/health', async () => ({
    status: 'ok',
    strategy,
    ...(variant ? { variant } : {}),
    pid: process.pid,
    runtime: runtimeInfo(),
    node: process.version,
    v8: v8Version()
  }))

  app.get('/', workRoute({ work, handle, telemetry, workOverride }))

  // What a service answers on its main thread beside its heavy work (a health check, a small JSON read):
  // no work, whatever the strategy; stamped like GET / (its `run` is the handler's own few microseconds).
  app.get('/cheap', async (request, reply) => {
    const receivedAt = now()
    const stamps = stampsValue(receivedAt, receivedAt, { startedAt: receivedAt, workMs: now() - receivedAt })
    if (stamps !== null) reply.header(STAMPS_HEADER, stamps)
    return reply.type('application/json; charset=utf-8').send(CHEAP_BODY)
  })

  app.get('/__lab/stats', () => (stats ?? localStats)())
  app.post('/__lab/stats/reset', { onRequest: labRouteGuard }, async () => {
    await (resetStats ?? localReset)()
    return { status: 'reset' }
  })
  return app
}
