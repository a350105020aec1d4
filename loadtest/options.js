// Command-line options of `npm run lab`: one defaults object, one help text, validated at the boundary.
import { parseArgs } from 'node:util'
import { basename, extname, join } from 'node:path'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { ROOT, allServerNames, catalog, serverOf, variants } from './catalog.js'
import { userCwd, userPath } from './paths.js'
import { experimentNames } from './experiments/index.js'
import { clip, describe, usageError } from './errors.js'
import {
  ARRIVALS, BOOT_TIMEOUT_MAX_MS, BOOT_TIMEOUT_MS, CONFIRM_QUICK_SEC, CONFIRM_SEC, DEFAULTS, DEFAULT_MAX_CONNECTIONS,
  MAX_GENERATORS, MAX_SHARDS,
  RATE_PER_GENERATOR, RATE_RANGE, SLO_LEAST_DEFAULT_MS, SLO_MULTIPLES, SLO_RANGE, SLO_SERVICE_MULTIPLE,
  defaultReportsDir
} from './settings.js'
import { THRESHOLD_EXIT, parseThresholds } from './report/thresholds.js'
import { TUNABLE, TuneError, parseTune } from './tune.js'
import { MixError, builtInMix, isBuiltInSpec, parseMix } from './result/mix.js'

// How far ahead --start-at may be (minutes): a shard waits for it, holding its connections.
const MAX_START_AHEAD_MIN = 60

const BOOLEANS = new Set(['json', 'list', 'quick', 'help', 'confirm'])
const MULTIPLE = new Set(['threshold'])
// The parsed options before the user's: null where not given, so that an experiment's defaults and
// --quick come before DEFAULTS (settings.js, read by run/round/load.js); flags false, lists empty.
const UNSET = Object.freeze(
  Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, BOOLEANS.has(k) || MULTIPLE.has(k) ? DEFAULTS[k] : null]))
)

// The --help text: the one place the options are described.
export const HELP = `Usage: npm run lab -- [options]

Boots each selected server, loads it (autocannon's closed loop, or an open loop with --rate),
watches it from inside and outside, in time, prints a table on stderr and writes
reports/<time>-<host>-<experiment>.{json,md,html} (./loadlab-reports/ when run from your own project).
Relative paths (--task, --input @FILE, --out, --runtime or --node PATH) are from the directory you run it in.
With no option: a quick tour of every server (light load, about a minute).

  --server a,b|all     servers to run (see --list); a custom run; with --experiment overload also
                       variant keys (queued-threads/deadline: that variant and its base)
  --experiment NAME    reproduce a study (see --list); with --server: only those servers
  --connections N      concurrent connections (default: the experiment's); with --rate, the cap on
                       kept connections (default: enough for rate × timeout, at most ${DEFAULT_MAX_CONNECTIONS})
  --rate R             open loop: R requests/s on a schedule, sent whether or not earlier ones have
                       answered; latency counts from each request's due time
  --arrival KIND       open loop schedule: constant (i/R, default) or poisson (exponential gaps)
  --seed N             seed of the poisson schedule (default ${DEFAULTS.seed}): the same seed, the same schedule
  --generators N       open loop: N generator threads, request i to thread i mod N, each with its own
                       connections, figures merged exactly (default: one per ${RATE_PER_GENERATOR} requests/s, at most
                       one per core but one; 1: the lab's own thread)
  --shard I/N          with --url and --rate: send only shard I's slice of the plan (request i when
                       i mod N = I − 1); run N of them (any machines), then npm run merge
  --start-at ISO-TIME  --shard: the common start (e.g. 2026-11-23T01:00:00Z), at most ${MAX_START_AHEAD_MIN} minutes ahead;
                       the shard waits for it (warm-up first) and refuses a time in the past
  --slo MS[,MS…]       capacity and overload experiments: the p99 latency targets, strictly increasing
                       (default: ${SLO_MULTIPLES.join(', ')} × the service time, at least ${SLO_LEAST_DEFAULT_MS} ms; overload uses
                       the first, default ${SLO_SERVICE_MULTIPLE} ×; they move with the calibration: give one --slo to runs
                       you will compare).
                       One sweep finds the capacity at each (docs/decision.md)
  --tune NAME=V1,V2,…  capacity experiment: one sweep per value of a server setting, each its own result
                       (SERVER[NAME=V]); ${Object.entries(TUNABLE).map(([k, t]) => `${k} (${t.servers.join(', ')})`).join(', ')};
                       max-queue takes inf; NAME alone tries its defaults (threads, processes: half the cores, the
                       cores, piscina's 1.5 × the cores)
  --confirm            capacity experiment: run the decision's winner at its plan rate (${CONFIRM_SEC} s; --quick: ${CONFIRM_QUICK_SEC} s)
                       and say whether it held the target with no backlog growth
  --capacity-from FILE overload experiment: each strategy's capacity and target from this capacity
                       report (same server, work and target) instead of a sweep in the same run
  --amount N           requests per measured round (excludes --duration)
  --duration S         seconds per measured round (excludes --amount)
  --timeout S          per-request timeout in seconds (default: the experiment's, else ${DEFAULTS.timeout})
  --max-body BYTES     what is kept of each response body (default ${DEFAULTS['max-body']}): every body is verified
                       whole by sha256 and length as it streams; a longer one is counted as over the cap
  --work SPEC          work per request, e.g. loop:1e7, fib:25, render:1000, sleep:100
  --task PATH[#name]   your own work: a module exporting (input) => result (docs/task.md);
                       every server by default, or the experiment's with --experiment capacity or
                       overload; excludes --work, --url and the other experiments
  --input JSON|@FILE   --task: the input of every call (default: the module's \`input\` export)
  --runs N             measured rounds per server; figures are the median round (default ${DEFAULTS.runs}); with the
                       capacity experiment, N whole sweeps per server: the median capacity and the spread
  --warmup N           requests in the discarded warm-up round, 0 = none
  --url URL            load a service the lab did not start, its path as given (outside sampling skipped);
                       alone, or with --experiment capacity or overload (docs/your-service.md)
  --mix FILE|SPEC      a request mix: a JSON file of classes (name, weight, method, path, headers, body,
                       sloMs, expect; docs/your-service.md), or the lab servers' built-in heavy:80,cheap:20
                       (heavy GET /, cheap GET /?work=loop:1e3); results and thresholds per class
  --runtime LIST       run the servers and the calibration under each of these runtimes: node20, node22,
                       node24, bun, deno (pinned here; installed from the npm registry on first use, or
                       npm run runtimes) or a path to a node, bun or deno binary; the load generator
                       stays on the lab's own node. One result per server per runtime
  --node 22,24|PATH    the same for Node only: majors or node paths (--node 24 is --runtime node24)
  --out DIR            where reports are written (default reports/; ./loadlab-reports/ outside the checkout)
  --label TEXT         free text naming the machine or the run
  --threshold T        a pass/fail bound on every run, repeatable: [SERVER:]METRIC OP VALUE, e.g.
                       'p99<500' (ms; p50 p75 p90 p97.5 p99 p99.9 p99.99 max, or 0.5s), 'rps>100' (req/s),
                       'errors==0' (failed requests: connection errors, timeouts, non-2xx, body mismatches), 'timeouts==0',
                       'efficiency>=80%', 'capacity>200' (req/s, capacity experiment only),
                       'goodput>0.8' (goodput at 2 × capacity as a share of it, overload experiment only),
                       'queued-threads:p99<200' (that server only); OP: < <= > >= == !=. Figures are the
                       median round's. A crossed threshold exits ${THRESHOLD_EXIT} once the report is written
  --json               print the report JSON on stdout (with npm: npm run -s lab -- --json)
  --list               list servers and experiments, then exit
  --quick              the experiment's small version
  --help               this text

Environment: LOADLAB_BOOT_TIMEOUT_MS (how long a server may take to answer /health: whole ms from 1 to
${BOOT_TIMEOUT_MAX_MS}, default ${BOOT_TIMEOUT_MS}),
LOADLAB_PROGRESS=1 (progress lines even when stderr is not a terminal), LOADLAB_EXTRA_SERVERS=DIR
(every DIR/NAME.js becomes a server NAME, for tests), LOADLAB_RUNTIMES_DIR (where --runtime installs
runtimes, default .runtimes/), LOADLAB_SAMPLER=proc|ps (the outside sampler's source; default /proc where
there is one, else ps), LOADLAB_TRACE_GENERATOR=FILE (the open loop traces one round into FILE: late
requests, GC, connection opens), LOADLAB_SAMPLE_MS (set by the lab on the servers it starts: how often they
send their samples), LOADLAB_CHROMIUM=PATH (the browser npm test and npm run screenshot use),
LOADLAB_NATIVE=off, LOADLAB_NATIVE_CC, LOADLAB_NATIVE_DIR (the dispatch experiment's native caller: off, its C
compiler, where it is built).
`

// Turn argv into validated options; throws a usage error (exit 2) naming the bad option.
export function parseOptions (argv) {
  let parsed
  // `--slo -1`: parseArgs would read the negative number as an option; join it so the rule is checked.
  const args = argv.flatMap((a, i) =>
    /^-\d/.test(a) && /^--[a-z-]+$/.test(argv[i - 1] ?? '')
      ? []
      : /^--[a-z-]+$/.test(a) && /^-\d/.test(argv[i + 1] ?? '')
        ? [`${a}=${argv[i + 1]}`]
        : [a]
  )
  try {
    parsed = parseArgs({
      args,
      strict: true,
      tokens: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.keys(DEFAULTS).map((k) => [k, { type: BOOLEANS.has(k) ? 'boolean' : 'string', multiple: MULTIPLE.has(k) }])
      )
    })
  } catch (err) {
    throw usageError(
      `${err.message.split('\n')[0]} (see --help; options: ${Object.keys(DEFAULTS)
        .map((k) => '--' + k)
        .join(' ')})`
    )
  }
  onceEach(parsed.tokens)
  return validateOptions(parsed.values)
}

// An option that takes one value, given twice (`--rate 5 --rate 6`), is refused: the last would win silently.
// A flag given twice means what it says once.
function onceEach (tokens) {
  const seen = new Map()
  for (const t of tokens) {
    if (t.kind !== 'option' || MULTIPLE.has(t.name) || t.value === undefined) continue
    seen.set(t.name, [...(seen.get(t.name) ?? []), t.value])
  }
  for (const [name, values] of seen) {
    if (values.length > 1) throw usageError(`--${name} given ${values.length} times (${values.map((v) => clip(v, 20)).join(', ')}): give it once`)
  }
}

// How a number is written on the command line: decimal digits, an optional fraction and exponent (not
// 0x10, 0b1, ' 5' or '', which Number() reads too).
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i

// A numeric option within [min, max] (null when not given); `kind` is 'integer' or 'number'.
function numeric (kind, name, raw, min, max) {
  if (raw === null || raw === undefined) return null
  const n = Number(raw)
  const ok = DECIMAL.test(raw) && (kind === 'integer' ? Number.isInteger(n) : Number.isFinite(n))
  if (!ok || n < min || n > max) {
    throw usageError(
      `--${name}: expected ${kind === 'integer' ? 'an integer' : 'a number'} from ${min} to ${max}, got ${describe(raw)}`
    )
  }
  return n
}
const int = (...args) => numeric('integer', ...args)
const num = (...args) => numeric('number', ...args)

// --slo MS[,MS…]: positive numbers, strictly increasing (each a target of one sweep), at most 8.
function slosOf (raw) {
  const items = raw.split(',').map((x) => x.trim())
  const values = items.map((x) => num('slo', x, SLO_RANGE.min, SLO_RANGE.max))
  if (values.length > 8) throw usageError(`--slo: at most 8 targets, got ${values.length}`)
  const back = values.findIndex((v, i) => i > 0 && v <= values[i - 1])
  if (back > 0) {
    throw usageError(`--slo: targets must be strictly increasing, got ${values[back - 1]} then ${values[back]} (${describe(raw)})`)
  }
  return values
}

// --tune against the selected servers (the capacity experiment's six when no --server): a TuneError
// becomes a usage error.
function tuneOf (o, servers) {
  try {
    return parseTune(o.tune, { servers })
  } catch (err) {
    if (err instanceof TuneError) throw usageError(err.message)
    throw err
  }
}

// The numeric options, parsed and bounded.
function numbers (o, out) {
  out.connections = int('connections', o.connections, 1, 10000)
  out.amount = int('amount', o.amount, 1, 10_000_000)
  out.duration = num('duration', o.duration, 0.1, 3600)
  out.timeout = num('timeout', o.timeout, 0.1, 3600)
  out.runs = int('runs', o.runs, 1, 50)
  out.rate = num('rate', o.rate, RATE_RANGE.min, RATE_RANGE.max)
  out.seed = int('seed', o.seed, 0, 2 ** 32 - 1)
  out.slos = o.slo === null ? null : slosOf(o.slo)
  out.slo = out.slos?.[0] ?? null // the first target: what one-target readers use
  out.warmup = int('warmup', o.warmup, 0, 1_000_000)
  out.maxBody = int('max-body', o['max-body'], 0, 2 ** 30)
}

// How much load and how it is paced: the open loop's schedule options go with --rate; amount or duration.
function checkLoad (o, out) {
  if (o.arrival !== null && !ARRIVALS.includes(o.arrival)) {
    throw usageError(`--arrival: expected one of ${ARRIVALS.join(', ')}, got ${describe(o.arrival)}`)
  }
  if ((o.arrival !== null || o.seed !== null) && o.rate === null) {
    throw usageError(`--${o.arrival !== null ? 'arrival' : 'seed'} goes with --rate (the open loop's schedule)`)
  }
  if (o.seed !== null && o.arrival !== 'poisson' && o.mix === null) {
    throw usageError('--seed goes with --arrival poisson or --mix: the constant schedule (i/R, the default) has no randomness')
  }
  if (o['capacity-from'] !== null && o.experiment !== 'overload') {
    throw usageError('--capacity-from goes with --experiment overload (the capacities it starts from)')
  }
  if (o.slo !== null && !['capacity', 'overload', 'mixed'].includes(o.experiment) && o.url === null) {
    throw usageError('--slo goes with --experiment capacity, overload or mixed, or --url (the p99 target of a sweep, a class\'s default)')
  }
  for (const flag of ['tune', 'confirm']) {
    if (o[flag] !== null && o[flag] !== false && o.experiment !== 'capacity') {
      throw usageError(`--${flag} goes with --experiment capacity (${flag === 'tune' ? 'a sweep per value' : 'it runs the decision\'s winner'})`)
    }
  }
  if (out.amount !== null && out.duration !== null) {
    throw usageError('--amount and --duration exclude each other: give one of them')
  }
  if (out.rate === null && out.amount !== null && out.connections !== null && out.amount < out.connections) {
    throw usageError(`--amount: must be at least --connections (${out.connections}), got ${describe(o.amount)}`)
  }
}

// --shard I/N: 1 ≤ I ≤ N; goes with --url, --rate and --start-at, and one round.
function shardOf (o, out) {
  const m = /^(\d+)\/(\d+)$/.exec(o.shard)
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [0, 0]
  if (!m || index < 1 || count > MAX_SHARDS || index > count) {
    throw usageError(`--shard: expected I/N with 1 <= I <= N <= ${MAX_SHARDS}, e.g. 2/4, got ${describe(o.shard)}`)
  }
  const missing = ['url', 'rate', 'start-at'].find((k) => o[k] === null)
  if (missing) throw usageError(`--shard needs --${missing} (shards load one --url at one --rate from one --start-at)`)
  if (out.runs !== null && out.runs > 1) throw usageError('--shard excludes --runs: a shard is one round from the common start')
  return { index, count }
}

// --start-at ISO-TIME: a full ISO date and time, not past, at most MAX_START_AHEAD_MIN ahead; with --shard.
function startAtOf (o, now = Date.now()) {
  const text = o['start-at']
  const t = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(text) ? Date.parse(text) : NaN
  if (Number.isNaN(t)) throw usageError(`--start-at: expected an ISO time such as 2026-11-23T01:00:00Z, got ${describe(text)}`)
  if (o.shard === null) throw usageError('--start-at goes with --shard (the common start of a plan split across shards)')
  if (t < now) throw usageError(`--start-at: ${text} is ${((now - t) / 1000).toFixed(1)} s in the past`)
  if (t > now + MAX_START_AHEAD_MIN * 60_000) {
    throw usageError(`--start-at: ${text} is more than ${MAX_START_AHEAD_MIN} minutes ahead`)
  }
  return t
}

// The open loop's scale-out: --generators (threads), --shard and --start-at (processes or machines).
function checkScaleOut (o, out) {
  out.generators = int('generators', o.generators, 1, MAX_GENERATORS)
  if (out.generators !== null && o.rate === null) throw usageError('--generators goes with --rate (the open loop\'s threads)')
  if (out.generators > 1 && o.experiment === 'overload') {
    throw usageError('--generators: the overload experiment counts goodput from each answer on the lab\'s own thread: give 1')
  }
  out.startAt = o['start-at'] === null ? null : startAtOf(o)
  out.shard = o.shard === null ? null : shardOf(o, out)
}

// --server: a comma-separated list of catalog names (or all), each built; with the overload experiment
// also variant keys with their experiment (queued-threads/deadline with overload: that variant and its base).
function serversOf (spec, known, experiment) {
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean)
  const allowed = ['all', ...known.map((s) => s.name)]
  if (names.length === 0) { throw usageError(`--server: expected a comma-separated list of ${allowed.join(', ')}, got ${describe(spec)}`) }
  const keys = variants().map((v) => v.key)
  const variant = variants().find((v) => names.includes(v.key))
  if (variant && experiment !== variant.experiment) {
    throw usageError(`--server ${variant.key}: this variant goes with --experiment ${variant.experiment}`)
  }
  const bad = names.find((n) => !allowed.includes(n) && !keys.includes(n))
  if (bad) throw usageError(`--server: unknown server \`${bad}\`; allowed: ${[...allowed, ...keys].join(', ')}`)
  const servers = [...new Set(names.flatMap((n) => (n === 'all' ? allServerNames() : [n])))]
  const missing = servers.filter((n) => !known.find((s) => s.name === serverOf(n)).available)
  if (missing.length) throw usageError(`--server: ${missing.join(', ')} not built (no servers/<name>/index.js)`)
  return servers
}

// --url: an http(s) URL of a server the lab did not start; it excludes choosing servers.
function urlOf (o) {
  let u
  try {
    u = new URL(o.url)
  } catch {
    throw usageError(`--url: expected an http:// URL, got ${describe(o.url)}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') { throw usageError(`--url: expected an http:// or https:// URL, got ${describe(o.url)}`) }
  if (o.server !== null) throw usageError('--url excludes --server: it loads the one service at that URL')
  if (o.experiment !== null && !['capacity', 'overload', 'custom'].includes(o.experiment)) {
    throw usageError(`--url goes with --experiment capacity or overload (or none), not ${o.experiment}: the others start their own servers`)
  }
  return u.href
}

// --mix: the built-in mix (heavy:80,cheap:20) or a JSON file (result/mix.js checks it; a fault is one
// line naming the entry and the key).
function mixOf (spec, cwd) {
  if (isBuiltInSpec(spec)) return builtInMix(spec)
  const path = userPath(spec, cwd)
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw usageError(`--mix: cannot read ${spec}: ${err.code ?? err.message} (a JSON file, or a built-in mix such as heavy:80,cheap:20)`)
  }
  try {
    return parseMix(text, basename(path, extname(path)))
  } catch (err) {
    if (err instanceof MixError) throw usageError(`--mix ${spec}: ${err.message}`)
    throw err
  }
}

// What each request does: --work (NAME:ARG; the servers' own parser checks it later, checkWork) or
// --task (with its --input), which excludes --work, --url and every experiment but capacity.
function checkWorkOrTask (o, out) {
  if (o.work !== null && !/^[a-z][a-z-]*:[0-9.e+]+$/i.test(o.work)) {
    throw usageError(
      `--work: expected NAME:ARG such as loop:1e7, fib:25, render:1000, ssr:225, sleep:100, sleep-sync:100, got ${describe(o.work)}`
    )
  }
  if (o.task !== null) {
    const clash = ['work', 'url'].find((k) => o[k] !== null)
    if (clash) throw usageError(`--task excludes --${clash}: the task module is the work, run through the servers`)
    if (o.experiment !== null && o.experiment !== 'capacity' && o.experiment !== 'overload') {
      throw usageError(`--task goes with --experiment capacity or overload only (${o.experiment} studies its own work)`)
    }
    if (o.task.trim() === '') throw usageError('--task: expected PATH[#export], got an empty value')
    if (o.experiment === null) out.server ??= allServerNames()
  } else if (o.input !== null) {
    throw usageError('--input: only with --task')
  }
}

// --node (majors or node paths) or --runtime (names or paths), comma-separated; not with --url, and
// not both (run/watch/runtimes.js resolves the items).
function runtimesOf (o) {
  const flag = o.runtime !== null ? 'runtime' : 'node'
  if (o.runtime !== null && o.node !== null) throw usageError('--runtime and --node exclude each other: --node 24 is --runtime node24')
  const items = o[flag].split(',').map((s) => s.trim())
  if (items.some((s) => s === '')) {
    throw usageError(
      flag === 'node'
        ? `--node: expected a comma-separated list of majors (20, 22, 24) or node paths, got ${describe(o.node)}`
        : `--runtime: expected a comma-separated list of node20, node22, node24, bun, deno or paths, got ${describe(o.runtime)}`
    )
  }
  if (o.url !== null) throw usageError(`--${flag} excludes --url: the lab runs only the servers it starts under a runtime`)
  return items
}

// Where the report goes (absolute, from the user's directory) and what it is called.
function checkOutput (o, out) {
  if (o.out !== null && o.out.trim() === '') throw usageError('--out: expected a directory, got an empty value')
  out.out = o.out === null ? defaultReportsDir(out.cwd, ROOT) : userPath(o.out, out.cwd)
  if (o.out !== null && existsSync(out.out) && !statSync(out.out).isDirectory()) {
    throw usageError(`--out: ${o.out} exists and is not a directory`)
  }
  if (o.label !== null && (o.label.length > 200 || /[\n\r]/.test(o.label))) {
    throw usageError('--label: expected one line of at most 200 characters')
  }
}

// Check each option against its rule; returns the options with numbers parsed and servers split.
function validateOptions (values) {
  const o = { ...UNSET, ...values }
  const out = { ...o, cwd: userCwd() } // the one base of the user's relative paths
  numbers(o, out)
  checkLoad(o, out)
  checkScaleOut(o, out)
  const known = catalog()
  if (o.server !== null) out.server = serversOf(o.server, known, o.experiment)
  if (o.experiment !== null && !experimentNames().includes(o.experiment)) {
    throw usageError(`--experiment: unknown experiment \`${o.experiment}\`; allowed: ${experimentNames().join(', ')}`)
  }
  if (o.url !== null) out.url = urlOf(o)
  out.mix = o.mix === null ? null : mixOf(o.mix, out.cwd)
  checkWorkOrTask(o, out)
  if (o.node !== null || o.runtime !== null) out[o.runtime !== null ? 'runtime' : 'node'] = runtimesOf(o)
  checkOutput(o, out)
  out.capacityFrom = o['capacity-from'] === null ? null : userPath(o['capacity-from'], out.cwd)
  out.threshold = thresholdsOf(o.threshold, o.url === null ? known.map((s) => s.name) : null)
  out.tune = o.tune === null ? null : tuneOf(o, out.server)
  return out
}

// Parse --threshold values (usage error naming the threshold and the grammar); a server qualifier must
// name a catalog server (unless `servers` is null: a --url run, whose server name comes from /health).
function thresholdsOf (specs, servers) {
  let parsed
  try {
    parsed = parseThresholds(specs ?? [])
  } catch (err) {
    if (err.code === 'LAB_THRESHOLD') throw usageError(err.message)
    throw err
  }
  for (const t of parsed) {
    if (servers === null || t.server === null || servers.includes(serverOf(t.server))) continue
    throw usageError(`--threshold ${clip(JSON.stringify(t.spec))}: unknown server \`${t.server}\`; allowed: ${servers.join(', ')}`)
  }
  return parsed
}

// Check a work spec with the servers' own parser (servers/lib/workloads.js), as a usage error.
export async function checkWork (spec, name = 'work') {
  const path = join(ROOT, 'servers', 'lib', 'workloads.js')
  if (!existsSync(path)) return
  const { parseWork } = await import(pathToFileURL(path).href) // a URL: a path with # or % is not one
  try {
    parseWork(spec)
  } catch (err) {
    throw usageError(`--${name}: ${err.message.split('\n')[0]}`)
  }
}
