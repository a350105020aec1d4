// The trust rules: when a run's figures are not to be taken at face value, and the limits behind them.
// Pure: the report shows these reasons, compare and the thresholds read the verdict.
import { roundTo } from './stats.js'

// Above this share of one core the load generator is saturated and the run is untrusted.
export const SATURATED = 0.9
// The open loop's own health: a scheduler lag p99 above this (ms), or an issue rate off the schedule's
// by more than this share, marks the run untrusted (the generator, not the server, set the pace).
export const LAG_P99_LIMIT_MS = 5
export const SEND_RATE_TOLERANCE = 0.02
// Noise limits (reports/README.md "noise"): past any of these a round or sweep step is `disturbed`.
// stealPct: the host took more than this share of the machine's CPU time (/proc/stat steal);
// foreignCores: processes other than the lab and the server's tree used more than this many cores;
// workInflation: the server's median Server-Timing work time exceeded the calibrated service time by
// more than this factor (the work itself ran slower than when it was calibrated).
export const NOISE_LIMITS = { stealPct: 5, foreignCores: 0.2, workInflation: 1.3 }
// The calibration checked again after a server (run/calibrate.js recheckCalibration) may move by this share
// of the service time the run used; past it the run is untrusted.
export const CALIBRATION_DRIFT = 0.1
// A capacity or efficiency above this share of the ideal is beyond what the cores allow: the report says why.
export const ABOVE_IDEAL = 1.05

// Whether one generator (a round's, or one of its threads) fell behind its schedule: lag, issue rate.
function behindSchedule (o, who) {
  const out = []
  if (o.lag?.p99 > LAG_P99_LIMIT_MS) out.push(`${who} lagged: scheduler lag p99 ${o.lag.p99} ms > ${LAG_P99_LIMIT_MS} ms`)
  if (o.sendRateError !== null && o.sendRateError !== undefined && Math.abs(o.sendRateError) > SEND_RATE_TOLERANCE) {
    out.push(`${who} off schedule: sent ${o.sendRate} req/s for ${o.scheduledRate} scheduled (${roundTo(o.sendRateError * 100, 1)} %)`)
  }
  return out
}

// What disturbed a round (empty: nothing past the limits): noise past NOISE_LIMITS, or the generator
// falling behind its schedule (its lag is in every latency from the due time).
export function disturbances (fig) {
  const out = []
  const n = fig?.noise
  if (n?.stealPct > NOISE_LIMITS.stealPct) out.push(`steal ${n.stealPct} % > ${NOISE_LIMITS.stealPct} %`)
  if (n?.foreignCores > NOISE_LIMITS.foreignCores) {
    out.push(`other processes used ${n.foreignCores} cores > ${NOISE_LIMITS.foreignCores}`)
  }
  if (n?.workInflation > NOISE_LIMITS.workInflation) {
    out.push(`the work ran ${n.workInflation} × its calibrated time > ${NOISE_LIMITS.workInflation} ×`)
  }
  if (fig?.open) out.push(...behindSchedule(fig.open, 'load generator'))
  return out
}

// Reasons not to take a run's figures at face value (empty: trusted).
export function untrustedReasons (fig, { failure, interrupted } = {}) {
  const out = []
  if (failure) out.push(`failed: ${failure.reason}`)
  if (interrupted) out.push('interrupted: the round was cut short')
  if (!fig) return out
  const r = fig.requests
  if (r.errors) out.push(`${r.errors} connection errors`)
  if (r.protocolErrors) out.push(`${r.protocolErrors} protocol errors (responses that broke HTTP/1.1, each connection closed)`)
  if (r.timeouts) out.push(`${r.timeouts} timeouts`)
  if (r.non2xx) out.push(`${r.non2xx} non-2xx responses`)
  if (r.mismatches) out.push(`${r.mismatches} body mismatches`)
  // A --duration round stops with up to one request in flight per connection: that is not a fault.
  const inFlightAtStop = fig.loop !== 'open' && fig.mode === 'duration' ? (fig.connections ?? 0) : 0
  if (r.unanswered > inFlightAtStop && !interrupted) { out.push(`${r.unanswered} requests unanswered at the end of the round`) }
  if (r.completed === 0) out.push('no response')
  if (fig.open) out.push(...behindSchedule(fig.open, 'load generator'))
  for (const [k, g] of (fig.open?.generators ?? []).entries()) {
    out.push(...behindSchedule(g, `load generator thread ${k + 1}/${fig.open.generators.length}`))
  }
  const lg = fig.outside?.loadGenerator
  if (lg?.saturated) out.push(`load generator saturated (${Math.round(lg.utilisation * 100)}% CPU)`)
  if (fig.probe?.failed) out.push(`${fig.probe.failed} failed /health probes`)
  const noise = disturbances({ noise: fig.noise }) // the generator's own lag is named above
  if (noise.length) out.push(`disturbed: ${noise.join(', ')}`)
  return out
}
