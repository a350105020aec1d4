// Every setting of the lab with its real value, in one place: the options' defaults (what a run uses when
// neither the user nor the experiment sets one), the defaults computed from other settings (named
// functions, never a null filled in elsewhere) and the constants several rooms share. --help, the docs,
// run/, result/, scripts/ and bench/ read them here. Below everything: imports only node.
import { availableParallelism } from 'node:os'
import { isAbsolute, relative, resolve, sep } from 'node:path'

// The arrival processes --arrival accepts.
export const ARRIVALS = ['constant', 'poisson']

// Every option of `npm run lab` with its default. null: the option is off unless given (no server list,
// no rate: the closed loop, no label…); a default computed from other settings is named by its function
// (DEFAULTS.generators: defaultGenerators), which the run calls.
export const DEFAULTS = Object.freeze({
  server: null,
  experiment: null,
  connections: 10, // closed loop; with --rate: defaultConnections
  rate: null,
  arrival: ARRIVALS[0],
  seed: 1, // the poisson schedule's, a mix's and the rounds' orders' seed
  generators: defaultGenerators,
  shard: null,
  'start-at': null,
  slo: null, // the targets: the rule book's (result/rules.js SLO), from each server's service time
  'capacity-from': null,
  tune: null,
  confirm: false,
  amount: 0, // 0: no count, the round lasts its duration (autocannon's amount: 0)
  duration: 10, // seconds per round when neither --amount nor the experiment gives its size
  timeout: 10,
  'max-body': 1 << 20, // bytes kept of each response body (run/generate/body.js)
  work: null,
  task: null,
  input: null,
  runs: 1,
  baseline: null, // --runs N: the entry the paired ratios divide by (null: the plan's first)
  warmup: 0,
  url: null,
  mix: null, // --mix: a request mix file or the built-in (result/mix.js)
  method: 'GET', // -m/-H/-b: one request, a one-class mix (options.js requestMix)
  header: [],
  body: '', // no body
  node: null,
  runtime: null,
  out: defaultReportsDir,
  gzip: false, // --gzip: the report's JSON written compressed, as <id>.json.gz (every reader takes it)
  'no-ruler': false, // the machine is read before and after every run (run/ruler/) unless --no-ruler
  label: null,
  threshold: [],
  json: false,
  list: false,
  quick: false,
  help: false
})

// The 1 s windows of a round (ms): the open loop's issue rate, goodput and the trust rules count in them.
export const WINDOW_MS = 1000

// The most connections the open loop opens unless told (--connections). Past it a request waits for a
// free connection, its latency still counted from its due time. Profiled (docs/shards.md "An open loop that keeps
// up"): at thousands of requests/s a server's hiccup made the generator open a connection per waiting
// request (8,751 at 8000 req/s, against a cap of 10,000), and connecting, not requesting, took its time:
// scheduler lag p99 206 ms at 8000 req/s with that cap, 3.7–7 ms with 64–256.
export const DEFAULT_MAX_CONNECTIONS = 256

// The default connection cap for a rate (--rate without --connections): enough for every request of one
// timeout window in flight, up to DEFAULT_MAX_CONNECTIONS.
export function defaultConnections (rate, timeoutSec = DEFAULTS.timeout) {
  return Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, Math.ceil(rate * timeoutSec)))
}

// What one generator thread keeps on schedule (requests/s): `npm run bench` measured 24,000–27,000 on
// the lab's thread against a trivial server on this 2-core machine (docs/bench.md);
// the default is a thread per this many requests/s, leaving one core to everything else.
export const RATE_PER_GENERATOR = 20000
// At most this many generator threads (--generators) and shards (--shard I/N).
export const MAX_GENERATORS = 64
export const MAX_SHARDS = 1000

// The default thread count for a rate (--rate without --generators): one per RATE_PER_GENERATOR
// requests/s, at most one per core but one (the server, the lab's main thread and the system need a core;
// on 2 cores, two generator threads beside a local server kept less than one: the bench's generator section).
export function defaultGenerators (rate, cores = availableParallelism()) {
  return Math.max(1, Math.min(cores - 1, Math.ceil(rate / RATE_PER_GENERATOR)))
}

// Where reports go without --out: reports/ of the lab's checkout (`root`) when the user's directory
// (`base`) is inside it, else ./loadlab-reports/ in the user's own project (the lab installed as a
// dependency, run with npx).
export function defaultReportsDir (base, root) {
  const rel = relative(root, resolve(base))
  const inside = !isAbsolute(rel) && rel.split(sep)[0] !== '..'
  const checkout = !root.split(sep).includes('node_modules')
  return inside && checkout ? resolve(root, 'reports') : resolve(base, 'loadlab-reports')
}

// How long the recovery request after a round may wait at least (s): a strategy still chewing through
// abandoned work answers late. The default is the request timeout when longer (defaultRecoveryTimeoutSec).
const RECOVERY_MIN_TIMEOUT_SEC = 10
export function defaultRecoveryTimeoutSec (timeoutSec) {
  return Math.max(RECOVERY_MIN_TIMEOUT_SEC, timeoutSec)
}

// How long a server may take to send its ready message and answer /health (LOADLAB_BOOT_TIMEOUT_MS), and
// the longest accepted: an hour (a timer takes at most 2^31 − 1 ms).
export const BOOT_TIMEOUT_MS = 30000
export const BOOT_TIMEOUT_MAX_MS = 3_600_000

// The range of an open-loop rate (--rate, a sweep step, a capacity read from a file; req/s) and of a
// p99 target (--slo, a target read from a file; ms).
export const RATE_RANGE = Object.freeze({ min: 0.1, max: 100000 })
export const SLO_RANGE = Object.freeze({ min: 0.1, max: 3_600_000 })
