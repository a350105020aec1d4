// The load of each plan entry: the plan's load (plan.js resolveLoad), with the experiment's per-entry
// values (its design) winning. Pure; a bad combination is a usage error.
import { usageError } from '../../errors.js'
import { defaultConnections, defaultRecoveryTimeoutSec } from '../../settings.js'

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
      `${entry.key ?? entry.server}: amount ${out.amount} is below connections ${out.connections} (autocannon ` +
        'needs at least one request per connection)'
    )
  }
  return out
}

// The kept connections of an open-loop round at `rate` (the run's, a sweep's step, --confirm's round):
// --connections when given, else enough for rate × timeout (settings.js defaultConnections).
export function connectionsAt ({ userConnections, timeoutSec }, rate) {
  return userConnections ?? defaultConnections(rate, timeoutSec)
}

// How long the recovery request after a round may wait: the entry's own, else settings.js's default.
export function recoveryTimeoutSec (load) {
  return load.recoveryTimeoutSec ?? defaultRecoveryTimeoutSec(load.timeoutSec)
}
