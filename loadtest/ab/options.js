// `loadlab ab A B`'s options: one defaults object, the help, and one check for the command line's
// words and the library's object alike (abCompare). A bad option is a usage error: one line, exit
// 2.
import { parseArgs } from 'node:util'
import { catalog } from '../catalog.js'
import { CompareError, clip, describe, usageError } from '../errors.js'
import { AB } from '../result/rules.js'
import { parseFailOn } from '../compare/compare.js'
import { THRESHOLD_EXIT } from '../report/thresholds.js'
import { FIGURES } from './decide.js'
import { flagNamed, optionLines, parseArgsOptions } from '../flags.js'

// Every option and its default; a block is a lab run of one arm with these load settings.
export const AB_DEFAULTS = Object.freeze({
  kind: null, // what A and B are: told by their form unless given
  server: 'simple', // the server a task, a work or a runtime runs in
  work: null, // the work of two servers or runtimes (null: each server's default)
  task: null, // the --task two servers or runtimes run
  path: '/', // a command's service: the path loaded on http://127.0.0.1:$PORT
  connections: 4,
  amount: 300, // requests of a block, after its warm-up
  warmup: 20,
  timeout: 10, // s, per request
  effect: AB.effect,
  maxTime: AB.maxTimeSec,
  seed: null, // the order's seed (null: a fresh one, kept in the report)
  failOn: []
})

// The command line's own options (the CLI writes and prints; abCompare returns the report).
export const CLI_ONLY = Object.freeze(['out', 'json'])

// The kinds A and B can be, each with how its form is told apart (a command only by --kind).
export const KINDS = Object.freeze({
  url: (s) => /^https?:\/\//i.test(s),
  runtime: (s) => /^(node\d+|bun|deno)$/.test(s),
  server: (s) => catalog().some((x) => x.name === s && x.available),
  work: (s) => /^[a-z][a-z-]*:[0-9.e+]+(:bytes=[0-9.e+]+)?$/i.test(s),
  task: (s) => /\.(m|c)?[jt]s(#[\w$]+)?$/.test(s) || s.includes('/'),
  command: () => false
})

// The options (loadtest/flags.js): the parser, the help and docs/reference/options.md read them;
// each default is AB_DEFAULTS'.
const d = AB_DEFAULTS
const kinds = Object.keys(KINDS).join(', ')
export const FLAGS = [{
  title: 'What A and B are',
  note: 'Both one kind, told by the form unless --kind says: a URL (http://…), a runtime ' +
    '(node22, bun, deno), a server (simple, cluster, …), a work (NAME:ARG), a task file (a path: ' +
    '.js, .mjs, ' +
    '.cjs, .ts, #export allowed), or with --kind command a shell command that starts a service ' +
    'listening on 127.0.0.1:$PORT.',
  flags: [
    { name: 'kind', arg: 'KIND', default: 'by the form', help: `one of ${kinds}` },
    { name: 'server', arg: 'NAME', default: d.server, help: 'the server a task, work or runtime runs in' },
    { name: 'work', arg: 'SPEC', default: 'the server\'s own', help: 'the work of two servers or runtimes' },
    { name: 'task', arg: 'PATH', help: 'the task two servers or runtimes run' },
    { name: 'path', arg: 'PATH', default: d.path, help: 'a command\'s service: the path loaded' }
  ]
}, {
  title: 'A block',
  doc: 'a lab run; docs/lab.md',
  flags: [
    {
      name: 'connections',
      short: 'c',
      arg: 'N',
      default: d.connections,
      range: { min: 1, max: 1000, integer: true },
      help: 'concurrent connections'
    },
    {
      name: 'amount',
      short: 'a',
      arg: 'N',
      default: d.amount,
      range: { min: 1, max: 1_000_000, integer: true },
      help: 'requests measured per block'
    },
    {
      name: 'warmup',
      arg: 'N',
      default: d.warmup,
      range: { min: 0, max: 100_000, integer: true },
      help: 'requests discarded first'
    },
    {
      name: 'timeout',
      short: 't',
      arg: 'S',
      default: d.timeout,
      range: { min: 0.1, max: 600 },
      help: 'seconds per request'
    }
  ]
}, {
  title: 'The decision',
  doc: 'docs/ab.md',
  flags: [
    {
      name: 'effect',
      arg: 'X',
      default: d.effect,
      range: { min: 1.01, max: 100 },
      help: 'the change that matters: same is an interval inside 1/X … X'
    },
    {
      name: 'max-time',
      arg: 'S',
      default: d.maxTime,
      range: { min: 1, max: 86_400 },
      help: 'seconds: no pair starts that would end past it; a figure left is undecided'
    },
    {
      name: 'seed',
      arg: 'N',
      default: 'a fresh one, in the report',
      range: { min: 0, max: 2 ** 32 - 1, integer: true },
      help: 'the seed of the pairs\' order'
    },
    {
      name: 'fail-on',
      arg: 'BOUND',
      multiple: true,
      initial: [],
      help: `exit ${THRESHOLD_EXIT} when a figure is called worse past BOUND: compare's grammar ` +
        'on rps, p50 or p99 (\'rps:-10%\', \'p99:+20%\')'
    }
  ]
}, {
  title: 'Output',
  flags: [
    { name: 'json', short: 'j', help: 'print the report on stdout (the table goes to stderr)' },
    { name: 'out', arg: 'DIR', default: 'reports/', help: 'where the report is written' },
    { name: 'help', short: 'h', help: 'this text' }
  ]
}]

export const HELP = `usage: npm run ab -- A B [options]

Runs A and B in paired blocks, each pair in a random order (AB or BA), each block a lab run of
${d.amount} requests; after every pair it calls req/s, p50 and p99 of B against A better, worse or
the same (inside ± --effect), and stops once all three are called, or at --max-time with the
smallest change it could have seen. False alarms: at most ${AB.falseAlarms * 100} % a figure over
all its looks (docs/ab.md).

Examples:
  npm run ab -- ./old.mjs ./new.mjs --server queued-threads   two task files in one server
  npm run ab -- simple queued-threads --work loop:1e7         two servers on one work
  npm run ab -- loop:6e6 loop:8e6                             two works in simple
  npm run ab -- node22 node24 --work loop:6e6                 two runtimes
  npm run ab -- http://127.0.0.1:3000 http://127.0.0.1:3001   two running services (GET as given)
  npm run ab -- 'node app.js' 'node app2.js' --kind command   two commands that listen on $PORT

${optionLines(FLAGS, 24)}
`

const OPTIONS = parseArgsOptions(FLAGS)

const camel = (k) => k.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
const flag = (k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

// `--max-time -3`: a negative number joined to its option (`--max-time=-3`), so that the option's
// rule judges it.
function joinNegatives (argv) {
  const short = Object.fromEntries(Object.entries(OPTIONS).filter(([, f]) => f.short)
    .map(([k, f]) => [`-${f.short}`, k]))
  const name = (a) => short[a] ?? a?.replace(/^--/, '')
  const valued = (a) => OPTIONS[name(a)]?.type === 'string'
  const negative = (a) => /^-\d/.test(a ?? '')
  return argv.flatMap((a, i) => {
    if (negative(a) && valued(argv[i - 1])) return []
    if (valued(a) && negative(argv[i + 1])) return [`--${name(a)}=${argv[i + 1]}`]
    return [a]
  })
}

// The command line's words as abCompare's options ({ a, b, …, help }); a usage error for a bad
// word.
export function parseAbArgs (argv) {
  let parsed
  try {
    const args = joinNegatives(argv)
    const how = { allowPositionals: true, strict: true, tokens: true }
    parsed = parseArgs({ args, options: OPTIONS, ...how })
  } catch (err) {
    const said = err.message.split('\n')[0].replace(/\. To specify a positional .*$/, '')
    throw usageError(`${said} (see --help)`)
  }
  const once = Object.entries(OPTIONS).filter(([, o]) => !o.multiple && o.type === 'string')
    .map(([k]) => k)
  for (const name of once) {
    const given = parsed.tokens.filter((t) => t.kind === 'option' && t.name === name).length
    if (given > 1) throw usageError(`--${name} given ${given} times: give it once`)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (positionals.length !== 2) {
    const got = positionals.map((p) => clip(p, 30)).join(', ')
    throw usageError(`expected two things to compare, A and B, got ${positionals.length}` +
      `${got ? ` (${got})` : ''} (see --help)`)
  }
  const options = Object.fromEntries(Object.entries(values).map(([k, v]) => [camel(k), v]))
  return { a: positionals[0], b: positionals[1], ...options }
}

// A number option from a word or a number, within its FLAGS range (the one source of its bounds).
function numberOf (name, value) {
  const { min, max, integer = false } = flagNamed(FLAGS, name).range
  const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i
  const n = typeof value === 'string' && decimal.test(value) ? Number(value) : value
  const whole = !integer || Number.isInteger(n)
  if (typeof n !== 'number' || !Number.isFinite(n) || !whole || n < min || n > max) {
    const what = integer ? 'an integer' : 'a number'
    const got = describe(String(value))
    throw usageError(`--${name}: expected ${what} from ${min} to ${max}, got ${got}`)
  }
  return n
}

// The kind of A and B: --kind's, else both told by their form and the same; a usage error
// otherwise.
function kindOf (a, b, kind) {
  if (kind !== null) {
    if (!Object.hasOwn(KINDS, kind)) {
      const kinds = Object.keys(KINDS).join(', ')
      throw usageError(`--kind: expected one of ${kinds}, got ${describe(kind)}`)
    }
    return kind
  }
  const told = (s) => Object.keys(KINDS).find((k) => KINDS[k](s)) ?? null
  const [ka, kb] = [told(a), told(b)]
  if (!ka || !kb) {
    const what = !ka ? a : b
    const it = describe(clip(what, 40))
    throw usageError(`cannot tell what ${it} is: not a URL, runtime, server, ` +
      'work or task file (a command needs --kind command)')
  }
  if (ka !== kb) throw usageError(`A is a ${ka} and B a ${kb}: give two of one kind (or --kind)`)
  return ka
}

// --fail-on bounds in compare's grammar, on the figures ab judges.
function failOnOf (specs) {
  return specs.map((spec) => {
    const bound = typeof spec === 'string' ? parseFailOn(spec) : spec
    if (!Object.hasOwn(FIGURES, bound?.metric)) {
      throw new CompareError(`--fail-on ${clip(JSON.stringify(bound?.spec ?? spec))}: ab judges ` +
        `${Object.keys(FIGURES).join(', ')}`, 'LAB_AB_FAIL_ON')
    }
    return bound
  })
}

// The options checked, every default filled in: what abCompare runs on. Words (the command line) or
// values (the library) alike.
export function checkAbOptions (given) {
  if (given === null || typeof given !== 'object') {
    throw usageError('ab: expected an options object')
  }
  const names = ['a', 'b', ...Object.keys(AB_DEFAULTS)]
  const cli = Object.keys(given).find((k) => [...CLI_ONLY, 'help'].includes(k) && given[k])
  if (cli) {
    throw usageError(`${flag(cli)}: an option of the command line only (abCompare returns the ` +
      'report)')
  }
  const known = (k) => names.includes(k) || CLI_ONLY.includes(k) || k === 'help'
  const unknown = Object.keys(given).find((k) => !known(k))
  if (unknown) throw usageError(`${flag(unknown)}: not an option of ab (see --help)`)
  const set = Object.entries(given).filter(([k, v]) => v !== undefined && names.includes(k))
  const o = { ...AB_DEFAULTS, ...Object.fromEntries(set) }
  for (const side of ['a', 'b']) {
    if (typeof o[side] !== 'string' || o[side].trim() === '') {
      const got = describe(String(o[side]))
      throw usageError(`expected ${side.toUpperCase()} as a non-empty string, got ${got}`)
    }
  }
  const kind = kindOf(o.a, o.b, o.kind)
  if (kind === 'server' && given.server !== undefined) {
    throw usageError('--server goes with a task, a work or a runtime: A and B are the servers')
  }
  if (kind === 'work' && o.work !== null) throw usageError('--work: A and B are the works')
  if (kind === 'task' && o.task !== null) throw usageError('--task: A and B are the tasks')
  if ((kind === 'url' || kind === 'command') && (o.work !== null || o.task !== null)) {
    throw usageError(`--${o.work !== null ? 'work' : 'task'}: a ${kind} runs its own work`)
  }
  if (o.work !== null && o.task !== null) {
    throw usageError('--task excludes --work: the task is the work')
  }
  if (typeof o.path !== 'string' || !o.path.startsWith('/')) {
    throw usageError(`--path: expected a path starting with /, got ${describe(String(o.path))}`)
  }
  return {
    ...o,
    kind,
    connections: numberOf('connections', o.connections),
    amount: numberOf('amount', o.amount),
    warmup: numberOf('warmup', o.warmup),
    timeout: numberOf('timeout', o.timeout),
    effect: numberOf('effect', o.effect),
    maxTime: numberOf('max-time', o.maxTime),
    seed: o.seed === null ? null : numberOf('seed', o.seed),
    failOn: failOnOf(Array.isArray(o.failOn) ? o.failOn : [o.failOn])
  }
}
