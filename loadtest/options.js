// Command-line options of `npm run lab`: one defaults object, one help text, validated at the boundary.
import { parseArgs } from 'node:util'
import { basename, extname, join } from 'node:path'
import { existsSync, statSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { ROOT, allServerNames, catalog, serverOf, variants } from './catalog.js'
import { userCwd, userPath } from './paths.js'
import { experimentNames } from './experiments/index.js'
import custom from './experiments/custom.js'
import { clip, describe, usageError } from './errors.js'
import {
  ARRIVALS, BOOT_TIMEOUT_MS, DEFAULTS, DEFAULT_MAX_CONNECTIONS, MAX_GENERATORS, MAX_SHARDS,
  RATE_PER_GENERATOR, RATE_RANGE, SLO_RANGE, defaultReportsDir
} from './settings.js'
import { THRESHOLD_EXIT, parseThresholds } from './report/thresholds.js'
import { TUNABLE, TuneError, parseTune } from './tune.js'
import {
  MAX_MIX_BYTES, METHODS, MIX_BOUNDS, MixError, builtInMix, checkMix, isBuiltInSpec, parseMix
} from './result/mix.js'
import { CONFIRM, SLO } from './result/rules.js'
import { readBounded } from './report/read.js'
import { flagNamed, flagsOf, optionLines, parseArgsOptions } from './flags.js'

// How far ahead --start-at may be (minutes): a shard waits for it, holding its connections.
const MAX_START_AHEAD_MIN = 60

// What a --server, --url or --task run with no --experiment uses (the custom experiment's defaults): the
// help states these, since they, not DEFAULTS.duration and DEFAULTS.warmup, size such a run.
const RUN = custom.defaults
const QUICK = custom.quick

// The options by what they are for (loadtest/flags.js): the parser, the --help lines and
// docs/reference/options.md read this table. A default is the one a plain --server run uses (an
// experiment's own: --list); a range is what the parser accepts.
export const FLAGS = [
  {
    title: 'What to run',
    flags: [
      {
        name: 'server',
        arg: 'a,b|all',
        help: 'servers to run (see --list); overload also takes variant keys'
      },
      {
        name: 'experiment',
        arg: 'NAME',
        help: 'an experiment with its own defaults (--list); with --server: only those'
      },
      {
        name: 'work',
        arg: 'SPEC',
        help: 'work per request: loop:1e7, fib:25, render:1000, sleep:100'
      },
      {
        name: 'runtime',
        arg: 'LIST',
        help: 'run the servers under node20, node22, node24, node26, bun, deno or a binary path, one ' +
          'result each (docs/runtimes.md)'
      },
      {
        name: 'node',
        arg: '22,24|PATH',
        help: 'the same for Node only (--node 24 is --runtime node24)'
      },
      { name: 'list', help: 'list the servers and the experiments, then exit' }
    ]
  },
  {
    title: 'Load',
    doc: 'docs/lab.md',
    note: 'The defaults of a --server, --url or --task run; an experiment sets its own (--list).',
    flags: [
      {
        name: 'connections',
        short: 'c',
        arg: 'N',
        range: { min: 1, max: 10000, integer: true },
        default: `${RUN.connections}; with --rate: the cap on kept connections, rate × timeout, at most ` +
          `${DEFAULT_MAX_CONNECTIONS}`,
        help: 'concurrent connections'
      },
      {
        name: 'amount',
        short: 'a',
        arg: 'N',
        range: { min: 1, max: 10_000_000, integer: true },
        default: `${RUN.amount}; --quick ${QUICK.amount}`,
        help: 'requests per measured round, per server'
      },
      {
        name: 'duration',
        short: 'd',
        arg: 'S',
        range: { min: 0.1, max: 3600 },
        default: 'none',
        help: 'seconds per measured round, instead of --amount'
      },
      {
        name: 'timeout',
        short: 't',
        arg: 'S',
        range: { min: 0.1, max: 3600 },
        default: RUN.timeoutSec,
        help: 'per-request timeout in seconds'
      },
      {
        name: 'runs',
        arg: 'N',
        range: { min: 1, max: 50, integer: true },
        default: DEFAULTS.runs,
        help: 'rounds, each server once a round in a fresh order'
      },
      {
        name: 'baseline',
        arg: 'NAME',
        default: 'the first',
        help: 'with --runs: the server each paired ratio divides by'
      },
      {
        name: 'warmup',
        arg: 'N',
        range: { min: 0, max: 1_000_000, integer: true },
        default: `${RUN.warmup}; --quick ${QUICK.warmup}`,
        help: 'requests in the discarded warm-up round'
      },
      {
        name: 'max-body',
        arg: 'BYTES',
        range: { min: 0, max: 2 ** 30, integer: true },
        default: DEFAULTS['max-body'],
        help: 'what is kept of each response body'
      }
    ]
  },
  {
    title: 'Open loop',
    doc: 'docs/generator.md, docs/shards.md',
    flags: [
      {
        name: 'rate',
        short: 'R',
        arg: 'R',
        range: RATE_RANGE,
        help: 'an open loop: R requests/s on a schedule, sent whether or not earlier ones answered ' +
          '(autocannon\'s -R caps a closed loop instead); fanout\'s -R too'
      },
      {
        name: 'arrival',
        arg: 'KIND',
        default: DEFAULTS.arrival,
        help: `with --rate: ${ARRIVALS.join(' or ')}`
      },
      {
        name: 'seed',
        arg: 'N',
        range: { min: 0, max: 2 ** 32 - 1, integer: true },
        default: DEFAULTS.seed,
        help: 'the seed of the poisson schedule and of a mix (with --rate), and of the rounds\' orders (with --runs)'
      },
      {
        name: 'generators',
        arg: 'N',
        range: { min: 1, max: MAX_GENERATORS, integer: true },
        default: `one per ${RATE_PER_GENERATOR} requests/s, at most cores − 1`,
        help: 'with --rate: generator threads'
      },
      {
        name: 'shard',
        arg: 'I/N',
        help: 'with --url: send only slice I of N of the plan; then npm run merge'
      },
      {
        name: 'start-at',
        arg: 'ISO-TIME',
        help: `with --shard: the shards' common start, at most ${MAX_START_AHEAD_MIN} minutes ahead`
      }
    ]
  },
  {
    title: 'Capacity and decision',
    doc: 'docs/capacity.md, docs/decision.md',
    flags: [
      {
        name: 'slo',
        arg: 'MS[,MS…]',
        range: SLO_RANGE,
        default: `${SLO.multiples.join(', ')} × the service time, at least ${SLO.leastMs} ms; overload: the first`,
        help: 'the p99 targets, increasing, at most 8'
      },
      { name: 'quick', help: 'the experiment\'s small version' },
      {
        name: 'confirm',
        help: `capacity: run the winner at its plan rate (${CONFIRM.sec} s) and say if it held`
      },
      {
        name: 'tune',
        arg: 'NAME=V1,V2,…',
        help: `capacity: a sweep per value of ${Object.keys(TUNABLE).join(', ')}`
      },
      {
        name: 'capacity-from',
        arg: 'FILE',
        help: 'overload: the capacities and targets of this capacity report'
      },
      {
        name: 'threshold',
        arg: 'T',
        multiple: true,
        initial: [],
        help: 'a pass/fail bound, repeatable: \'p99<500\', \'errors==0\', \'capacity>200\', ' +
          `'queued-threads:p99<200' (docs/gates.md); a crossed one exits ${THRESHOLD_EXIT}`
      }
    ]
  },
  {
    title: 'Your own work',
    doc: 'docs/your-service.md, docs/task.md',
    flags: [
      {
        name: 'url',
        arg: 'URL',
        help: 'a service the lab did not start, its path as given (or the URL alone)'
      },
      {
        name: 'method',
        short: 'm',
        arg: 'M',
        default: DEFAULTS.method,
        help: `its request's method: ${METHODS.join(', ')}`
      },
      {
        name: 'header',
        short: 'H',
        arg: '\'K: V\'',
        multiple: true,
        initial: [],
        help: 'a header of its request (or K=V, as autocannon), repeatable'
      },
      {
        name: 'body',
        short: 'b',
        arg: 'TEXT',
        help: 'its request\'s body (-m -H -b: one kind of request, in every loop)'
      },
      {
        name: 'mix',
        arg: 'FILE|SPEC',
        help: 'a request mix: a JSON file of classes, or heavy:80,cheap:20'
      },
      {
        name: 'task',
        arg: 'PATH[#name]',
        help: 'a module exporting (input) => result, run in each server'
      },
      {
        name: 'input',
        arg: 'JSON|@FILE',
        default: 'the module\'s input export',
        help: 'with --task: the input of every call'
      }
    ]
  },
  {
    title: 'Output',
    flags: [
      { name: 'json', short: 'j', help: 'print the report JSON on stdout (npm run -s lab -- -j)' },
      {
        name: 'out',
        arg: 'DIR',
        default: 'reports/; ./loadlab-reports/ outside the lab\'s checkout',
        help: 'where reports are written'
      },
      { name: 'gzip', help: 'write the report\'s JSON compressed, as .json.gz' },
      { name: 'label', arg: 'TEXT', help: 'free text naming the machine or the run' },
      {
        name: 'no-ruler',
        help: 'do not read the machine before and after the run (about 1 s each)'
      },
      { name: 'help', short: 'h', help: 'this text' }
    ]
  }
]

// The options that may be given more than once (each value kept, in order): the library's runLab turns an
// array for one of them into the option repeated.
export const REPEATABLE = Object.freeze(flagsOf(FLAGS).filter((f) => f.multiple).map((f) => f.name))
const MULTIPLE = new Set(REPEATABLE)
// The short flags: autocannon's letters. Each means what autocannon's does but -R, an open loop at that rate
// (autocannon's -R caps a closed loop's rate); fanout's -R is the same rate (loadtest/fanout/cli.js).
export const SHORT = Object.freeze(Object.fromEntries(flagsOf(FLAGS).filter((f) => f.short)
  .map((f) => [f.name, f.short])))
const LONG = Object.fromEntries(Object.entries(SHORT).map(([long, short]) => [short, long]))
const PARSE = parseArgsOptions(FLAGS)
// The parsed options before the user's: null where not given, so that an experiment's defaults and
// --quick come before DEFAULTS (settings.js, read by run/round/load.js); flags false, lists empty.
const UNSET = Object.freeze(Object.fromEntries(Object.keys(DEFAULTS).map((k) =>
  [k, PARSE[k].type === 'boolean' || MULTIPLE.has(k) ? DEFAULTS[k] : null])))

// The --help text: examples first, then the options by what they are for (FLAGS). At most 80 lines,
// none wider than 100 columns (test/loadtest/options.test.js).
export const HELP = `Usage: npm run lab -- [options] [URL]

Boots each selected server (or loads yours), prints a table on stderr and writes a report
(.json, .md, .html) to reports/ (./loadlab-reports/ outside the lab's checkout; docs/lab.md).
With no option: a quick tour of every server (light load, about a minute). A URL alone is --url URL.

Examples:
  npm run lab -- --server simple -c 10 -d 20              one server, closed loop, 20 s
  npm run lab -- --server simple,queued-threads -R 200    open loop at 200 requests/s
  npm run lab -- --experiment capacity --quick            which strategy, at what rate
  npm run lab -- --url http://127.0.0.1:3000/api -m POST -H 'content-type: application/json' \\
    -b '{"n":1}' -R 100 -d 20                             your service, one kind of request
  npm run lab -- --url http://127.0.0.1:3000 --experiment capacity --slo 200   its capacity
  npm run lab -- --task ./render.js --experiment capacity   your own work in every strategy
  npm run lab -- --list                                   the servers and the experiments

${optionLines(FLAGS, 26)}

Environment (docs/lab.md): LOADLAB_BOOT_TIMEOUT_MS (default ${BOOT_TIMEOUT_MS}), LOADLAB_PROGRESS=1,
LOADLAB_SAMPLER=proc|ps, LOADLAB_RUNTIMES_DIR, LOADLAB_TRACE_GENERATOR=FILE, LOADLAB_CHROMIUM,
LOADLAB_NATIVE=off, LOADLAB_NATIVE_CC, LOADLAB_NATIVE_DIR, LOADLAB_STAMPS=off.
`

// Variables only the lab itself and its tests set: not in the user's --help (test/docs.test.js).
export const INTERNAL_VARIABLES = Object.freeze({
  LOADLAB_EXTRA_SERVERS: 'every DIR/NAME.js becomes a server NAME (the tests\' fixture servers)',
  LOADLAB_SAMPLE_MS: 'set by the lab on the servers it starts: how often they send their samples',
  LOADLAB_RULER: 'off: no ruler, as --no-ruler (test/run.js: the suite\'s runs would pay two readings each)',
  LOADLAB_SECRETS: 'set by loadlab fanout on each shard: its --url and -H, kept off the command line'
})

// Turn argv into validated options; throws a usage error (exit 2) naming the bad option.
export function parseOptions (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: joinNegatives(argv),
      strict: true,
      tokens: true,
      allowPositionals: true,
      options: PARSE
    })
  } catch (err) {
    const names = flagsOf(FLAGS).map((f) => (f.short ? `-${f.short}/--${f.name}` : `--${f.name}`))
    const first = err.message.split('\n')[0].replace(/\. To specify a positional argument .*$/, '')
    throw usageError(`${first} (see --help; options: ${names.join(' ')})`)
  }
  onceEach(parsed.tokens)
  return validateOptions({ ...parsed.values, ...positionalUrl(parsed.positionals, parsed.values) })
}

// `loadlab http://127.0.0.1:3000 -c 10 -d 5`: a URL alone is --url, as `npx autocannon URL` takes it.
// Anything else given without an option, or a URL beside --url, is refused.
function positionalUrl (positionals, values) {
  if (positionals.length === 0) return {}
  const [first] = positionals
  if (positionals.length > 1 || !/^[a-z][a-z0-9+.-]*:\/\//i.test(first)) {
    throw usageError(`unexpected argument ${describe(positionals.find((p, i) => i > 0 || !/:\/\//.test(p)))}: ` +
      'the only argument without an option is a URL (the same as --url URL)')
  }
  if (values.url !== undefined) throw usageError(`a URL given twice (${clip(first, 40)} and --url): give it once`)
  return { url: first }
}

// `--slo -1`, `-c -1`: parseArgs would read the negative number as an option; join it to its option
// (`--slo=-1`, `--connections=-1`) so that the option's own rule is checked.
function joinNegatives (argv) {
  const flag = (a) => /^--[a-z-]+$/.test(a ?? '') || (/^-[a-zA-Z]$/.test(a ?? '') && LONG[a[1]] !== undefined)
  const long = (a) => (a.startsWith('--') ? a : `--${LONG[a[1]]}`)
  return argv.flatMap((a, i) =>
    /^-\d/.test(a) && flag(argv[i - 1])
      ? []
      : flag(a) && /^-\d/.test(argv[i + 1] ?? '')
        ? [`${long(a)}=${argv[i + 1]}`]
        : [a]
  )
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
    if (values.length > 1) {
      throw usageError(`--${name} given ${values.length} times ` +
      `(${values.map((v) => clip(v, 20)).join(', ')}): give it once`)
    }
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
      `--${name}: expected ${kind === 'integer' ? 'an integer' : 'a number'} from ${min} to ${max}, got ` +
        `${describe(raw)}`
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
    throw usageError(`--slo: targets must be strictly increasing, got ${values[back - 1]} then ${values[back]} ` +
      `(${describe(raw)})`)
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

// The numeric options, parsed and bounded by their ranges in FLAGS.
function numbers (o, out) {
  const bounded = (name) => {
    const { min, max, integer } = flagNamed(FLAGS, name).range
    return (integer ? int : num)(name, o[name], min, max)
  }
  for (const name of ['connections', 'amount', 'duration', 'timeout', 'runs', 'rate', 'seed', 'warmup']) {
    out[name] = bounded(name)
  }
  out.slos = o.slo === null ? null : slosOf(o.slo)
  out.slo = out.slos?.[0] ?? null // the first target: what one-target readers use
  out.maxBody = bounded('max-body')
}

// How much load and how it is paced: the open loop's schedule options go with --rate; amount or duration.
function checkLoad (o, out) {
  if (o.arrival !== null && !ARRIVALS.includes(o.arrival)) {
    throw usageError(`--arrival: expected one of ${ARRIVALS.join(', ')}, got ${describe(o.arrival)}`)
  }
  const rounds = out.runs !== null && out.runs > 1 // --runs N: --seed draws the rounds' orders too
  if (o.arrival !== null && o.rate === null) throw usageError('--arrival goes with --rate (the open loop\'s schedule)')
  if (o.seed !== null && o.rate === null && !rounds) {
    throw usageError('--seed goes with --rate (the open loop\'s schedule) or --runs N (the rounds\' orders)')
  }
  if (o.baseline !== null && !rounds) {
    throw usageError('--baseline goes with --runs N, N >= 2: its ratios are paired round by round')
  }
  if (o.seed !== null && o.arrival !== 'poisson' && o.mix === null && !rounds) {
    throw usageError('--seed goes with --arrival poisson or --mix: the constant schedule (i/R, the default) has no ' +
      'randomness')
  }
  if (o['capacity-from'] !== null && o.experiment !== 'overload') {
    throw usageError('--capacity-from goes with --experiment overload (the capacities it starts from)')
  }
  if (o.slo !== null && !['capacity', 'overload', 'mixed'].includes(o.experiment) && o.url === null) {
    throw usageError('--slo goes with --experiment capacity, overload or mixed, or --url (the p99 target of a ' +
      'sweep, a class\'s default)')
  }
  for (const flag of ['tune', 'confirm']) {
    if (o[flag] !== null && o[flag] !== false && o.experiment !== 'capacity') {
      throw usageError(`--${flag} goes with --experiment capacity ` +
        `(${flag === 'tune' ? 'a sweep per value' : 'it runs the decision\'s winner'})`)
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
  if (out.runs !== null && out.runs > 1) {
    throw usageError('--shard excludes --runs: a shard is one round from the ' +
    'common start')
  }
  return { index, count }
}

// --start-at ISO-TIME: a full ISO date and time, not past, at most MAX_START_AHEAD_MIN ahead; with --shard.
function startAtOf (o, now = Date.now()) {
  const text = o['start-at']
  const t = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(text) ? Date.parse(text) : NaN
  if (Number.isNaN(t)) {
    throw usageError('--start-at: expected an ISO time such as 2026-11-23T01:00:00Z, got ' +
    `${describe(text)}`)
  }
  if (o.shard === null) {
    throw usageError('--start-at goes with --shard (the common start of a plan split across ' +
    'shards)')
  }
  if (t < now) throw usageError(`--start-at: ${text} is ${((now - t) / 1000).toFixed(1)} s in the past`)
  if (t > now + MAX_START_AHEAD_MIN * 60_000) {
    throw usageError(`--start-at: ${text} is more than ${MAX_START_AHEAD_MIN} minutes ahead`)
  }
  return t
}

// The open loop's scale-out: --generators (threads), --shard and --start-at (processes or machines).
function checkScaleOut (o, out) {
  out.generators = int('generators', o.generators, 1, flagNamed(FLAGS, 'generators').range.max)
  if (out.generators !== null && o.rate === null) {
    throw usageError('--generators goes with --rate (the open ' +
    'loop\'s threads)')
  }
  if (out.generators > 1 && o.experiment === 'overload') {
    throw usageError('--generators: the overload experiment counts goodput from each answer on the lab\'s own ' +
      'thread: give 1')
  }
  out.startAt = o['start-at'] === null ? null : startAtOf(o)
  out.shard = o.shard === null ? null : shardOf(o, out)
}

// --server: a comma-separated list of catalog names (or all), each built; with the overload experiment
// also variant keys with their experiment (queued-threads/deadline with overload: that variant and its base).
function serversOf (spec, known, experiment) {
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean)
  const allowed = ['all', ...known.map((s) => s.name)]
  if (names.length === 0) {
    throw usageError(`--server: expected a comma-separated list of ${allowed.join(', ')}, ` +
    `got ${describe(spec)}`)
  }
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
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw usageError('--url: expected an http:// or ' +
    `https:// URL, got ${describe(o.url)}`)
  }
  if (o.server !== null) throw usageError('--url excludes --server: it loads the one service at that URL')
  if (o.experiment !== null && !['capacity', 'overload', 'custom'].includes(o.experiment)) {
    throw usageError(`--url goes with --experiment capacity or overload (or none), not ${o.experiment}: the others ` +
      'start their own servers')
  }
  return u.href
}

// --mix: the built-in mix (heavy:80,cheap:20) or a JSON file (result/mix.js checks it; a fault is one
// line naming the entry and the key).
function mixOf (spec, cwd) {
  if (isBuiltInSpec(spec)) return builtInMix(spec)
  const path = userPath(spec, cwd)
  // a regular file of at most MAX_MIX_BYTES (not /dev/zero, not a FIFO): one line, exit 2
  const text = readBounded(path, '--mix', { max: MAX_MIX_BYTES, code: 'LAB_MIX', what: `a mix (${MIX_BOUNDS})` })
  try {
    return parseMix(text, basename(path, extname(path)))
  } catch (err) {
    if (err instanceof MixError) throw usageError(`--mix ${spec}: ${err.message}`)
    throw err
  }
}

// -m/-H/-b: one kind of request, as autocannon sends it, made a mix of one class so that every loop
// (closed, open, the capacity sweep) sends it the one way a mix is sent. Its path is the --url's (path
// and query), else the lab server's /. null when none of the three is given.
function requestMix (o, out) {
  const given = ['method', 'header', 'body'].filter((k) => (k === 'header' ? o.header.length > 0 : o[k] !== null))
  if (given.length === 0) return null
  const flags = given.map((k) => `-${SHORT[k]}`).join(' ')
  if (o.mix !== null) throw usageError(`${flags} excludes --mix: -m -H -b say one request, a mix says its classes`)
  const method = (o.method ?? DEFAULTS.method).toUpperCase()
  if (!METHODS.includes(method)) {
    throw usageError(`-m/--method: expected one of ${METHODS.join(', ')}, got ` +
    `${describe(o.method)}`)
  }
  const headers = {}
  for (const h of o.header) {
    const at = h.search(/[:=]/) // 'NAME: VALUE', or autocannon's NAME=VALUE (a name holds neither : nor =)
    const name = h.slice(0, at).trim()
    if (at < 1 || name === '') throw usageError(`-H/--header: expected 'NAME: VALUE' or NAME=VALUE, got ${describe(h)}`)
    if (Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase())) {
      throw usageError(`-H/--header: ${name} given twice: give each header once`)
    }
    headers[name] = h.slice(at + 1).trim()
  }
  const path = out.url ? new URL(out.url).pathname + new URL(out.url).search : '/'
  const request = { name: 'request', weight: 1, method, path, headers, ...(o.body !== null && { body: o.body }) }
  try {
    return checkMix({ name: 'request', requests: [request] }, 'request')
  } catch (err) {
    if (err instanceof MixError) {
      throw usageError(`${flags}: ${err.message.replace(/^requests\[0\] \(request\): /, '')}`)
    }
    throw err
  }
}

// What each request does: --work (NAME:ARG; the servers' own parser checks it later, checkWork) or
// --task (with its --input), which excludes --work, --url and every experiment but capacity.
function checkWorkOrTask (o, out) {
  if (o.work !== null && !/^[a-z][a-z-]*:[0-9.e+]+(:bytes=[0-9.e+]+)?$/i.test(o.work)) {
    throw usageError(
      '--work: expected NAME:ARG[:bytes=N] such as loop:1e7, fib:25, render:1000, ssr:225, sleep:100, ' +
        'sleep-sync:100, ' +
        `loop:1e5:bytes=1e4, got ${describe(o.work)}`
    )
  }
  if (o.task !== null) {
    const clash = ['work', 'url'].find((k) => o[k] !== null)
    if (clash) throw usageError(`--task excludes --${clash}: the task module is the work, run through the servers`)
    if (o.experiment !== null && o.experiment !== 'capacity' && o.experiment !== 'overload') {
      throw usageError(`--task goes with --experiment capacity or overload only (${o.experiment} studies its own work)`)
    }
    if (o.task.trim() === '') throw usageError('--task: expected PATH[#export], got an empty value')
  } else if (o.input !== null) {
    throw usageError('--input: only with --task')
  }
}

// --node (majors or node paths) or --runtime (names or paths), comma-separated; not with --url, and
// not both (run/watch/runtimes.js resolves the items).
function runtimesOf (o) {
  const flag = o.runtime !== null ? 'runtime' : 'node'
  if (o.runtime !== null && o.node !== null) {
    throw usageError('--runtime and --node exclude each other: --node 24 ' +
    'is --runtime node24')
  }
  const items = o[flag].split(',').map((s) => s.trim())
  if (items.some((s) => s === '')) {
    throw usageError(
      flag === 'node'
        ? `--node: expected a comma-separated list of majors (20, 22, 24, 26) or node paths, got ${describe(o.node)}`
        : '--runtime: expected a comma-separated list of node20, node22, node24, node26, bun, deno or paths, got ' +
          `${describe(o.runtime)}`
    )
  }
  if (o.url !== null) {
    throw usageError(`--${flag} excludes --url: the lab runs only the servers it starts under a ` +
    'runtime')
  }
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
  out.mix = requestMix(o, out) ?? (o.mix === null ? null : mixOf(o.mix, out.cwd))
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
    throw usageError(`--threshold ${clip(JSON.stringify(t.spec))}: unknown server \`${t.server}\`; allowed: ` +
      `${servers.join(', ')}`)
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
