// The experiment registry: name → its module, loaded only when a run asks for it.
//
// An experiment module's default export:
//   { name, study, title, description,
//     defaults: { connections, amount | durationSec, timeoutSec, warmup, runs?, work?,
//                 recovery? (false: no recovery request, stats read at once), recoveryTimeoutSec? },
//     quick: { ...overrides of defaults for --quick },
//     plan (opts) → [{ server, variant, args: [...flags], work, key?,
//                      connections?, amount?, durationSec?, timeoutSec?, warmup?, recovery?,
//                      recoveryTimeoutSec?, study? }],            (HTTP experiments)
//     run (opts, { signal, progress, note }) → Promise<results[]>, (in-process experiments, instead of plan;
//                                                  note(text) adds a line to the report's notes)
//     table? (report) → { head: [...], rows: [[...strings]] },
//     notes? (opts) → [strings] }
// opts = the resolved load ({ connections, amount, durationSec, timeoutSec, warmup, runs, recovery,
// recoveryTimeoutSec }) plus { work: --work, else the settings' work, else null; servers: --server list or null,
// quick, user:
// { the user's own flags, null when not given } }. Precedence: defaults < quick < the user's flags <
// an entry's own values (its design). An entry's
// `study` is copied into its result; `key` defaults to server[/variant]@work (the reported work).

const registry = {
  tour: './tour.js',
  'heavy-cpu': './heavy-cpu.js',
  sleep: './sleep.js',
  'long-vs-small': './long-vs-small.js',
  'ssr-offload': './ssr-offload.js',
  dispatch: './dispatch.js',
  capacity: './capacity.js',
  overload: './overload.js',
  mixed: './mixed.js'
}

// The names of the experiments.
export function experimentNames () {
  return Object.keys(registry)
}

// The experiment module for a run: 'custom' (what --server or --url without --experiment means) or a
// registered one.
export async function experimentFor (name) {
  if (name === 'custom') return (await import('./custom.js')).default
  return loadExperiment(name)
}

// Load one experiment module's default export (throws when it is not registered or absent).
export async function loadExperiment (name) {
  if (!registry[name]) throw new Error(`unknown experiment ${name}`)
  const mod = await import(registry[name])
  return mod.default
}
