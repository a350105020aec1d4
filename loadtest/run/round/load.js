// How hard each server is loaded: experiment defaults, then --quick, then the user's flags; an
// experiment's per-entry values (its design) win. Pure; a bad combination is a usage error.
import { usageError } from '../../errors.js'
import { DEFAULTS, defaultConnections, defaultGenerators, defaultRecoveryTimeoutSec } from '../../settings.js'

// Settings for this run from the parsed options and the experiment module.
export function resolveLoad (opts, experiment) {
  const base = { ...experiment.defaults, ...(opts.quick ? experiment.quick : {}) }
  const rate = opts.rate ?? base.rate ?? null
  const timeoutSec = opts.timeout ?? base.timeoutSec ?? DEFAULTS.timeout
  const load = {
    // Open loop: --connections caps the kept connections (default: enough for rate × timeout).
    connections:
      opts.connections ?? (rate ? defaultConnections(rate, timeoutSec) : (base.connections ?? DEFAULTS.connections)),
    rate,
    userConnections: opts.connections ?? null,
    arrival: opts.arrival ?? base.arrival ?? DEFAULTS.arrival,
    seed: opts.seed ?? base.seed ?? DEFAULTS.seed,
    sloMs: opts.slo ?? base.sloMs ?? null,
    amount: null,
    durationSec: null,
    timeoutSec,
    maxBody: opts.maxBody ?? DEFAULTS['max-body'], // bytes kept of each response body (body.js)
    warmup: opts.warmup ?? base.warmup ?? DEFAULTS.warmup,
    runs: opts.runs ?? base.runs ?? DEFAULTS.runs,
    recovery: base.recovery ?? true,
    recoveryTimeoutSec: base.recoveryTimeoutSec ?? null
  }
  const mix = opts.mix ?? base.mix ?? null
  if (mix) load.mix = mix // a request mix (result/mix.js): the classes each round sends
  if (opts.amount !== null) load.amount = opts.amount
  else if (opts.duration !== null) load.durationSec = opts.duration
  else if (base.amount) load.amount = base.amount
  else load.durationSec = base.durationSec ?? DEFAULTS.duration
  // An open loop's threads (--generators) and its share of a plan split across processes (--shard,
  // --start-at: epoch ms of the common start).
  if (rate) {
    load.generators = opts.generators ?? defaultGenerators(rate)
    load.shard = opts.shard ?? null
    load.startAt = opts.startAt ?? null
  }
  return load
}

// The load of one plan entry: its own connections/amount/durationSec/timeoutSec/warmup win.
export function entryLoad (entry, load) {
  const out = { ...load }
  if (entry.connections) out.connections = entry.connections
  if (entry.amount) {
    out.amount = entry.amount
    out.durationSec = null
  }
  if (entry.durationSec) {
    out.durationSec = entry.durationSec
    out.amount = null
  }
  if (entry.timeoutSec) out.timeoutSec = entry.timeoutSec
  if (entry.warmup !== undefined && entry.warmup !== null) out.warmup = entry.warmup
  if (entry.recovery !== undefined && entry.recovery !== null) out.recovery = entry.recovery
  if (entry.recoveryTimeoutSec) out.recoveryTimeoutSec = entry.recoveryTimeoutSec
  out.recoveryTimeoutSec = recoveryTimeoutSec(out)
  if (!out.rate && out.amount !== null && out.amount < out.connections) {
    throw usageError(
      `${entry.key ?? entry.server}: amount ${out.amount} is below connections ${out.connections} (autocannon needs at least one request per connection)`
    )
  }
  return out
}

// How long the recovery request after a round may wait: the entry's own, else settings.js's default.
export function recoveryTimeoutSec (load) {
  return load.recoveryTimeoutSec ?? defaultRecoveryTimeoutSec(load.timeoutSec)
}
