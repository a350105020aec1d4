// The catalog of runnable servers: name → entry file, what it shows, its extra flags.
import { existsSync, readdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runName } from './result/key.js'
import { STRATEGIES } from './result/strategies.js'

// The repository root (servers/ and node_modules/ are found from here).
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))

// The servers of servers/, in the order the tour runs them: the CPU strategies, then the servers of one study
// each, with their traits from the strategy table (result/strategies.js: cpu, starts, spread, pool).
const SERVERS = [
  ['simple', 'one process, one thread, work inline'],
  ['cluster', 'node:cluster, one worker process per core, work inline'],
  ['child-process', 'child_process.fork per request'],
  ['worker-per-request', 'a new worker_threads Worker per request'],
  ['cluster-threads', 'cluster, each worker process starts a Worker per request'],
  ['queued-threads', 'a piscina pool of long-lived threads with a FIFO queue'],
  ['queued-processes', 'a pool of long-lived forked processes with a FIFO queue'],
  ['sleep-variants', 'async/sync sleep, pooled/unpooled (--variant)'],
  ['long-vs-small-tasks', 'renderToString as one long task or chunked (--mode)']
].map(([name, description]) => ({ name, ...STRATEGIES[name], description }))

// The variants: a server of SERVERS with flags, keyed `server/variant`, and the experiment that runs
// them beside their server: the shedding variants (docs/overload.md) in overload, study 004's queued pool
// as it was (no cancellation) in heavy-cpu. argsFor({ sloMs, serviceMs }) gives the flags once the lab
// knows the target and the calibrated service time: `auto` is resolved by the server itself from --slo
// and --service-ms, and prints how.
const VARIANTS = [
  {
    server: 'queued-threads',
    variant: 'deadline',
    experiment: 'overload',
    description: 'a request that waited past the deadline answers 503 unrun (--deadline auto)',
    argsFor: (t) => ['--deadline', 'auto', ...targetArgs(t)]
  },
  {
    server: 'queued-processes',
    variant: 'deadline',
    experiment: 'overload',
    description: 'the process pool: a request that waited past the deadline answers 503 unrun (--deadline auto)',
    argsFor: (t) => ['--deadline', 'auto', ...targetArgs(t)]
  },
  {
    server: 'queued-threads',
    variant: 'max-queue',
    experiment: 'overload',
    description: "the queue bounded by Little's law (--max-queue auto)",
    argsFor: (t) => ['--max-queue', 'auto', ...targetArgs(t)]
  },
  {
    server: 'simple',
    variant: 'under-pressure',
    experiment: 'overload',
    description: '@fastify/under-pressure, 503 above a mean event-loop delay (--shed-loop-delay)',
    argsFor: (t) => ['--shed-loop-delay', String(loopDelayBudget(t))]
  },
  {
    server: 'cluster',
    variant: 'under-pressure',
    experiment: 'overload',
    description: '@fastify/under-pressure in each worker (--shed-loop-delay)',
    argsFor: (t) => ['--shed-loop-delay', String(loopDelayBudget(t))]
  },
  {
    server: 'queued-threads',
    variant: 'cancel-off',
    experiment: 'heavy-cpu',
    description: "study 004's queued pool: a client that leaves is still worked on (--cancel off)",
    argsFor: () => ['--cancel', 'off']
  }
]

function targetArgs ({ sloMs, serviceMs }) {
  return ['--slo', String(sloMs), '--service-ms', String(serviceMs)]
}

// The loop delay under-pressure sheds above: the wait a request can afford, the deadline's budget
// (the target less two service times, servers/lib/shedding.js), at least 1 ms.
function loopDelayBudget ({ sloMs, serviceMs }) {
  return Math.max(1, Math.round((sloMs - 2 * serviceMs) * 10) / 10)
}

// Every variant: { key, server, variant, experiment, description, argsFor }; `servers` keeps those of
// the servers named, `experiment` those that experiment runs.
export function variants (servers = null, experiment = null) {
  const kept = (v) => (!servers || servers.includes(v.server)) && (!experiment || v.experiment === experiment)
  return VARIANTS.filter(kept).map((v) => ({ key: runName(v), ...v }))
}

// The server a name runs: itself, or a shedding variant's key's server (`queued-threads/deadline` →
// `queued-threads`), as variants() builds the keys.
export function serverOf (name) {
  return name.split('/')[0]
}

// Extra servers for tests: every NAME.js in the directory named by LOADLAB_EXTRA_SERVERS.
function extraServers () {
  const dir = process.env.LOADLAB_EXTRA_SERVERS
  if (!dir) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => ({
      name: basename(f, '.js'),
      description: `extra server ${f}`,
      entry: join(resolve(dir), f),
      extra: true
    }))
}

// Every server the lab knows: { name, description, entry, available, extra }.
export function catalog () {
  const servers = SERVERS.map((s) => {
    const entry = join(ROOT, 'servers', s.name, 'index.js')
    return { ...s, entry, available: existsSync(entry), extra: false }
  })
  return [...servers, ...extraServers().map((s) => ({ ...s, available: existsSync(s.entry) }))]
}

// The names `--server all` selects: the strategies of servers/ (test extras only by name).
export function allServerNames () {
  return SERVERS.map((s) => s.name)
}

// The CPU strategies' names (the table above filtered), in the tour's order.
export function cpuStrategyNames () {
  return SERVERS.filter((s) => s.cpu).map((s) => s.name)
}

// One catalog entry by name, or undefined.
export function findServer (name) {
  return catalog().find((s) => s.name === name)
}
