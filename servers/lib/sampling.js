// Push samples of this process to the lab over the IPC channel the lab started it with, every
// LOADLAB_SAMPLE_MS ms (off when unset or without a channel): requests in flight on GET /, the
// strategy's queue and busy gauges, event-loop delay (max over the interval) and utilisation (each null
// where this runtime's instrument failed its check at start: instruments.js).
// A message costs nothing on the HTTP path and needs no request, so a busy server is not asked for
// anything: a blocked loop simply sends late, and its delay says how late. `npm run bench` measures it.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { RESOLUTION, checkInstruments } from './instruments.js'

// The interval asked for by the lab, or null.
function samplingInterval (env = process.env) {
  const ms = Number(env.LOADLAB_SAMPLE_MS)
  return Number.isInteger(ms) && ms >= 10 && ms <= 60000 && typeof process.send === 'function' ? ms : null
}

const COUNTED = Symbol('counted in flight')

// Send a sample every interval; returns stop(). In flight is the strategy's own `inFlight` gauge when it
// has one (work started and not finished, which outlives a client that left), else the GET / requests
// between arrival and answer or abort, counted here.
export function startSampling ({ app, gauges, intervalMs = samplingInterval() }) {
  if (intervalMs === null) return () => {}
  let requests = 0
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === '/') {
      request[COUNTED] = true
      requests++
    }
  })
  const done = async (request) => {
    if (request[COUNTED]) {
      request[COUNTED] = false
      requests--
    }
  }
  app.addHook('onResponse', done)
  app.addHook('onRequestAbort', done)
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION })
  delay.enable()
  let elu = performance.eventLoopUtilization()
  let trusted = null // the instruments' check (null until it is done: no figure before)
  checkInstruments().then((c) => { trusted = c })
  const timer = setInterval(() => {
    const g = gauges?.read?.() ?? {}
    const nextElu = performance.eventLoopUtilization()
    const sample = {
      lab: 'sample',
      pid: process.pid,
      t: Date.now(),
      inFlight: typeof g.inFlight === 'number' ? g.inFlight : requests,
      ...(typeof g.queueLength === 'number' ? { queueLength: g.queueLength } : {}),
      ...(typeof g.threadsBusy === 'number' ? { threadsBusy: g.threadsBusy } : {}),
      eventLoopMaxMs: delay.count > 0 && trusted?.eventLoopDelay.trusted
        ? Math.max(0, delay.max / 1e6 - trusted.eventLoopDelay.offsetMs)
        : null,
      elu: trusted?.elu.trusted ? performance.eventLoopUtilization(nextElu, elu).utilization : null
    }
    elu = nextElu
    delay.reset()
    if (process.connected) process.send(sample)
  }, intervalMs).unref()
  return () => {
    clearInterval(timer)
    delay.disable()
  }
}
