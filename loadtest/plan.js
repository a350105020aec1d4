// The run's plan, resolved once: the validated options (options.js, null where not given) with every
// default filled in, from the experiment's defaults, then --quick's, then settings.js (DEFAULTS and the
// defaults it computes: defaultConnections through run/round/load.js connectionsAt, defaultGenerators).
// Each layer takes the fields it needs from the plan by name; no default is merged anywhere else. Pure.
import { DEFAULTS, defaultGenerators } from './settings.js'
import { connectionsAt } from './run/round/load.js'
import { userCwd } from './paths.js'
import { allServerNames } from './catalog.js'

// The experiment a run without --experiment is: one round of the servers, the URL or the task named
// (custom), else the tour.
export function experimentNameOf ({ experiment, url, server, task }) {
  return experiment ?? (url || server || task ? 'custom' : 'tour')
}

// The experiment's own settings: its defaults, then --quick's (the one source its plan reads).
export function settingsOf (experiment, quick) {
  return { ...experiment.defaults, ...(quick ? experiment.quick : {}) }
}

// How hard each server is loaded: the user's flags, else the experiment's settings, else DEFAULTS. An
// experiment's per-entry values (its design) win later (run/round/load.js entryLoad).
export function resolveLoad (opts, settings) {
  const rate = opts.rate ?? settings.rate ?? null
  const timeoutSec = opts.timeout ?? settings.timeoutSec ?? DEFAULTS.timeout
  const load = {
    // Open loop: --connections caps the kept connections (default: enough for rate × timeout).
    connections: rate
      ? connectionsAt({ userConnections: opts.connections, timeoutSec }, rate)
      : (opts.connections ?? settings.connections ?? DEFAULTS.connections),
    rate,
    userConnections: opts.connections ?? null,
    arrival: opts.arrival ?? settings.arrival ?? DEFAULTS.arrival,
    seed: opts.seed ?? settings.seed ?? DEFAULTS.seed,
    sloMs: opts.slo ?? settings.sloMs ?? null,
    ...sizeOf(opts, settings),
    timeoutSec,
    maxBody: opts.maxBody ?? DEFAULTS['max-body'], // bytes kept of each response body (body.js)
    warmup: opts.warmup ?? settings.warmup ?? DEFAULTS.warmup,
    runs: opts.runs ?? settings.runs ?? DEFAULTS.runs,
    recovery: settings.recovery ?? true,
    recoveryTimeoutSec: settings.recoveryTimeoutSec ?? null,
    generators: 1 // a closed loop's, and a sweep's steps: the lab's thread
  }
  const mix = opts.mix ?? settings.mix ?? null
  if (mix) load.mix = mix // a request mix (result/mix.js): the classes each round sends
  // An open loop's threads (--generators) and its share of a plan split across processes (--shard,
  // --start-at: epoch ms of the common start).
  if (rate) {
    load.generators = opts.generators ?? defaultGenerators(rate)
    load.shard = opts.shard ?? null
    load.startAt = opts.startAt ?? null
  }
  return load
}

// A round's size: --amount, else --duration, else the experiment's amount, else its duration or DEFAULTS'.
function sizeOf (opts, settings) {
  if (opts.amount !== null) return { amount: opts.amount, durationSec: null }
  if (opts.duration !== null) return { amount: null, durationSec: opts.duration }
  if (settings.amount) return { amount: settings.amount, durationSec: null }
  return { amount: null, durationSec: settings.durationSec ?? DEFAULTS.duration }
}

// The servers a run loads: --server's, else every server for a --task of its own (no --experiment), else
// null (the experiment's own).
function serversOf ({ server, task, experiment }) {
  return server ?? (task && !experiment ? allServerNames() : null)
}

// The plan of a run: the experiment, its settings and load, and every other option the layers read, by
// the name they read it under. `experiment` is the experiment module of `experimentNameOf(opts)`.
export function resolvePlan (opts, experiment) {
  const settings = settingsOf(experiment, opts.quick)
  return {
    experimentName: experimentNameOf(opts),
    settings,
    load: resolveLoad(opts, settings),
    quick: opts.quick,
    servers: serversOf(opts), // null: the experiment's own
    url: opts.url,
    work: opts.work ?? settings.work ?? null, // --work, else the experiment's (null: each server's own)
    taskSpec: opts.task,
    input: opts.input,
    slos: opts.slos, // --slo's targets (null: each sweep's defaults, settings.js targetsFor)
    tune: opts.tune, // --tune: { name, flag, values } (tune.js)
    capacityFrom: opts.capacityFrom, // --capacity-from (experiment overload)
    confirm: opts.confirm,
    runtimes: opts.runtime ?? opts.node, // --runtime or --node items (run/watch/runtimes.js resolves them)
    runtimeFlag: opts.runtime ? '--runtime' : '--node',
    out: opts.out,
    ruler: !opts['no-ruler'], // --no-ruler: the machine is not read before and after the run (run/ruler/)
    label: opts.label,
    baseline: opts.baseline ?? null, // --runs N: the server the paired ratios divide by (result/paired.js)
    thresholds: opts.threshold,
    cwd: opts.cwd ?? userCwd(), // the one base of the user's relative paths (options.js sets it)
    // what the user gave, apart from the experiment's settings (an experiment that lets a flag win)
    user: {
      connections: opts.connections,
      amount: opts.amount,
      durationSec: opts.duration,
      timeoutSec: opts.timeout,
      warmup: opts.warmup,
      work: opts.work
    }
  }
}

// What an experiment's plan(), notes() and run() read: the load's fields, its settings and the plan's
// choices, `task` the described --task (run/watch/task.js) or null.
export function experimentView (plan, task = null) {
  const { load, settings, work, servers, capacityFrom, quick, slos, tune, user } = plan
  return { ...load, settings, task, work, servers, capacityFrom, quick, slos, tune, user }
}
