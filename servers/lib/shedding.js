// Load shedding, the servers' side: the queued pool's deadline and Little's-law queue bound (`auto`
// resolved from a latency target and a service time, printed with the figures it came from), and
// @fastify/under-pressure on the inline servers. docs/overload.md says what each does under overload.
import underPressure from '@fastify/under-pressure'
import { ServerError } from './errors.js'
import { integer, oneOf } from './options.js'

// How many service times below the target `--deadline auto` lets a request wait: a request let through
// at the deadline still runs one service time, and the client's clock also holds the network and the
// generator's lag, so the deadline leaves one more service time as margin (docs/overload.md measures it).
const DEADLINE_MARGIN_SERVICES = 1

// A duration in ms (a positive number, fractions allowed) or `auto`.
const msOrAuto = (raw) => (raw === 'auto' ? 'auto' : positiveMs(raw))

function positiveMs (raw) {
  const n = /^\d+(\.\d+)?(e\d+)?$/i.test(raw) ? Number(raw) : NaN
  if (!(n > 0) || n > 3600000) throw new Error('expected a number of ms from 0 (exclusive) to 3600000')
  return n
}

// The queued pool's shedding flags (parseOptions `extra` entries).
export const QUEUE_SHEDDING = {
  maxQueue: {
    parse: (raw) => (raw === 'auto' ? 'auto' : integer(0)(raw)),
    help: "requests allowed to wait; when full, 503 + Retry-After (default unbounded; auto: Little's law, needs --slo)"
  },
  deadline: {
    parse: msOrAuto,
    help: 'ms a request may wait for a thread; past it, 503 + Retry-After without running (auto: needs --slo)'
  },
  slo: { parse: positiveMs, help: 'latency target (ms) the auto settings aim at' },
  serviceMs: { parse: positiveMs, help: 'service time (ms) for the auto settings (default: measured at start)' }
}

// The queued pools' cancellation flag (parseOptions `extra` entry).
export const QUEUE_CANCEL = {
  cancel: {
    default: 'on',
    parse: oneOf('on', 'off'),
    help: 'a client that leaves is dropped from the queue and its running task ended (off: its work runs all the ' +
      "same, as study 004's queued server did)"
  }
}

// The inline servers' shedding flag (parseOptions `extra` entry).
export const LOOP_SHEDDING = {
  shedLoopDelay: {
    parse: positiveMs,
    help: '@fastify/under-pressure: 503 + Retry-After while the mean event-loop delay is above MS'
  }
}

// Whether the queued pool's options ask for a figure only a service time gives (an `auto`).
export function needsServiceTime (options) {
  return options.maxQueue === 'auto' || options.deadline === 'auto'
}

// The queue settings from the options: { maxQueue, deadlineMs, lines } where `auto` is resolved against
// --slo and the service time (`serviceMs`: --service-ms or measured), each with a line that says how.
// Throws ERR_BAD_OPTION (one line) when an auto has no target or the work does not fit in it.
export function resolveQueue ({ options, threads, serviceMs, measured = null }) {
  const out = { maxQueue: options.maxQueue, deadlineMs: options.deadline, lines: [] }
  if (!needsServiceTime(options)) return out
  const flag = options.maxQueue === 'auto' ? '--max-queue' : '--deadline'
  if (options.slo === undefined) {
    throw new ServerError('ERR_BAD_OPTION', `${flag} auto: needs --slo MS, the ` +
    'latency target it aims at')
  }
  const slo = options.slo
  const s = figure(serviceMs)
  const from = `--slo ${slo} ms, service time ${s} ms ${measured ? `(${measured})` : '(--service-ms)'}`
  if (!(serviceMs < slo)) {
    throw new ServerError('ERR_BAD_OPTION', `${flag} auto: the service time ${s} ms is not below --slo ${slo} ms: ` +
      'no wait fits the target')
  }
  if (options.maxQueue === 'auto') {
    out.maxQueue = Math.floor((threads * (slo - serviceMs)) / serviceMs)
    out.lines.push(`max-queue auto: ${out.maxQueue} = floor(${threads} threads × (${slo} − ${s}) / ${s}) ` +
      `(Little's law; ${from})`)
  }
  if (options.deadline === 'auto') {
    const d = slo - (1 + DEADLINE_MARGIN_SERVICES) * serviceMs
    if (!(d > 0)) {
      throw new ServerError('ERR_BAD_OPTION', `--deadline auto: --slo ${slo} ms leaves no wait ` +
        `after ${1 + DEADLINE_MARGIN_SERVICES} service times of ${s} ms`)
    }
    out.deadlineMs = round1(d)
    out.lines.push(`deadline auto: ${out.deadlineMs} ms = ${slo} − ${1 + DEADLINE_MARGIN_SERVICES} × ${s} (the ` +
      `target less the service time and a service time of margin; ${from})`)
  }
  return out
}

// Refuse --slo/--service-ms when nothing is auto (they would silently do nothing).
export function checkQueueFlags (options) {
  if (needsServiceTime(options)) return
  for (const [name, flag] of [['slo', '--slo'], ['serviceMs', '--service-ms']]) {
    if (options[name] !== undefined) {
      throw new ServerError('ERR_BAD_OPTION', `${flag}: only with --max-queue auto ` +
      'or --deadline auto')
    }
  }
}

// The median work time of `runs` calls of `run()` (each resolving { workMs }): the service time the
// auto settings use when --service-ms is not given.
export async function measureServiceMs (run, runs = 3) {
  const times = []
  for (let i = 0; i < runs; i++) times.push((await run()).workMs)
  times.sort((a, b) => a - b)
  return { serviceMs: times[Math.floor(times.length / 2)], measured: `median of ${runs} runs at start` }
}

// The variant a queued pool's options make (shedding, and --cancel off) (its key's `/variant`), or undefined.
export function queueVariant (options) {
  const parts = [
    options.deadline !== undefined && 'deadline',
    options.maxQueue === 'auto' && 'max-queue',
    options.cancel === 'off' && 'cancel-off'
  ]
  return parts.filter(Boolean).join('+') || undefined
}

// The inline servers' variant: 'under-pressure' with --shed-loop-delay, else undefined.
export function loopVariant (options) {
  return options.shedLoopDelay === undefined ? undefined : 'under-pressure'
}

// Register @fastify/under-pressure on `app` when --shed-loop-delay is given: GET / answers 503 with
// Retry-After while the plugin's last sample of the mean event-loop delay is above it. The lab's own
// routes (/health, /__lab/*) pass, so the lab still reads what happened.
export function shedOnLoopDelay (app, options) {
  if (options.shedLoopDelay === undefined) return
  const retryAfter = 1
  app.register(underPressure, {
    maxEventLoopDelay: options.shedLoopDelay,
    retryAfter,
    pressureHandler: (request, reply, type, value) => {
      if (request.url !== '/' && !request.url.startsWith('/?')) return undefined // lab routes pass
      reply.code(503).header('retry-after', String(retryAfter))
      return {
        error: 'Service Unavailable',
        code: 'FST_UNDER_PRESSURE',
        message: `under pressure: ${type} ${reading(value)} > --shed-loop-delay ${figure(options.shedLoopDelay)} ms`
      }
    }
  })
}

// The plugin's reading as the message writes it: Infinity is its sample with no tick of the 10 ms timer, the
// loop blocked through the whole second.
function reading (value) {
  if (value === Infinity) return 'over the whole 1 s sample (the loop never ran)'
  return `${typeof value === 'number' ? figure(value) : value} ms`
}

function round1 (x) {
  return Math.round(x * 10) / 10
}

// A figure in ms as the servers' lines write it: one decimal from 1 ms up, two significant digits below
// (a service time of 0.04 ms is not "0", which would make the queue bound's formula divide by zero).
function figure (x) {
  return x >= 1 ? round1(x) : Number(x.toPrecision(2))
}
