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

export const HELP = `usage: npm run ab -- A B [options]

Runs A and B in paired blocks, each pair in a random order (AB or BA), each block a lab run of
${AB_DEFAULTS.amount} requests; after every pair it calls req/s, p50 and p99 of B against A better,
worse or the same (inside ± --effect), and stops once all three are called, or at --max-time
with the smallest change it could have seen.
False alarms: at most ${AB.falseAlarms * 100} % a figure over all its looks (docs/ab.md).

Examples:
  npm run ab -- ./old.mjs ./new.mjs --server queued-threads   two task files in one server
  npm run ab -- simple queued-threads --work loop:1e7         two servers on one work
  npm run ab -- loop:6e6 loop:8e6                             two works in simple
  npm run ab -- node22 node24 --work loop:6e6                 two runtimes
  npm run ab -- http://127.0.0.1:3000 http://127.0.0.1:3001   two running services (GET as given)
  npm run ab -- 'node app.js' 'node app2.js' --kind command   two commands that listen on $PORT

What A and B are (both one kind, told by the form unless --kind says):
  a URL (http://…), a runtime (node22, bun, deno), a server (simple, cluster, …), a work
  (NAME:ARG), a task file (a path, .js/.mjs/.cjs/.ts, #export allowed), or with --kind command
  a shell command that starts a service listening on 127.0.0.1:$PORT.
  --kind KIND           ${Object.keys(KINDS).join(', ')}
  --server NAME         the server a task, a work or a runtime runs in
                        (default ${AB_DEFAULTS.server})
  --work SPEC           the work of two servers or runtimes (default: the server's own)
  --task PATH           the task two servers or runtimes run
  --path PATH           a command's service: the path loaded (default ${AB_DEFAULTS.path})

A block (a lab run; docs/lab.md):
  -c, --connections N   default ${AB_DEFAULTS.connections}
  -a, --amount N        requests measured per block (default ${AB_DEFAULTS.amount})
  --warmup N            requests discarded first (default ${AB_DEFAULTS.warmup})
  -t, --timeout S       per request (default ${AB_DEFAULTS.timeout})

The decision (docs/ab.md, docs/rules.md#ab):
  --effect X            the change that matters: same is inside 1/X … X (default ${AB_DEFAULTS.effect})
  --max-time S          stop undecided past this many seconds (default ${AB_DEFAULTS.maxTime})
  --seed N              the seed of the pairs' order (default: a fresh one, in the report)
  --fail-on BOUND       exit ${THRESHOLD_EXIT} when a figure is called worse past BOUND, repeatable:
                        compare's grammar on rps, p50 or p99: 'rps:-10%', 'p99:+20%'

Output:
  -j, --json            print the report on stdout (the table goes to stderr)
  --out DIR             where the report is written (default reports/)
  -h, --help            this text
`

const FLAGS = {
  kind: { type: 'string' },
  server: { type: 'string' },
  work: { type: 'string' },
  task: { type: 'string' },
  path: { type: 'string' },
  connections: { type: 'string', short: 'c' },
  amount: { type: 'string', short: 'a' },
  warmup: { type: 'string' },
  timeout: { type: 'string', short: 't' },
  effect: { type: 'string' },
  'max-time': { type: 'string' },
  seed: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  out: { type: 'string' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' }
}

const camel = (k) => k.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
const flag = (k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

// `--max-time -3`: a negative number joined to its option (`--max-time=-3`), so that the option's
// rule judges it.
function joinNegatives (argv) {
  const short = Object.fromEntries(Object.entries(FLAGS).filter(([, f]) => f.short)
    .map(([k, f]) => [`-${f.short}`, k]))
  const name = (a) => short[a] ?? a?.replace(/^--/, '')
  const valued = (a) => FLAGS[name(a)]?.type === 'string'
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
    parsed = parseArgs({ args, options: FLAGS, allowPositionals: true, strict: true, tokens: true })
  } catch (err) {
    const said = err.message.split('\n')[0].replace(/\. To specify a positional .*$/, '')
    throw usageError(`${said} (see --help)`)
  }
  const once = Object.keys(FLAGS).filter((k) => !FLAGS[k].multiple && FLAGS[k].type === 'string')
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

// A number option from a word or a number, within [min, max] (integer when `integer`).
function numberOf (name, value, min, max, integer = false) {
  const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i
  const n = typeof value === 'string' && decimal.test(value) ? Number(value) : value
  const whole = !integer || Number.isInteger(n)
  if (typeof n !== 'number' || !Number.isFinite(n) || !whole || n < min || n > max) {
    const what = integer ? 'an integer' : 'a number'
    const got = describe(String(value))
    throw usageError(`${flag(name)}: expected ${what} from ${min} to ${max}, got ${got}`)
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
  const names = ['a', 'b', 'help', ...Object.keys(AB_DEFAULTS)]
  const unknown = Object.keys(given).find((k) => !names.includes(k))
  if (unknown) throw usageError(`${flag(unknown)}: not an option of ab (see --help)`)
  const set = Object.entries(given).filter(([, v]) => v !== undefined)
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
    connections: numberOf('connections', o.connections, 1, 1000, true),
    amount: numberOf('amount', o.amount, 1, 1_000_000, true),
    warmup: numberOf('warmup', o.warmup, 0, 100_000, true),
    timeout: numberOf('timeout', o.timeout, 0.1, 600),
    effect: numberOf('effect', o.effect, 1.01, 100),
    maxTime: numberOf('maxTime', o.maxTime, 1, 86_400),
    seed: o.seed === null ? null : numberOf('seed', o.seed, 0, 2 ** 32 - 1, true),
    failOn: failOnOf(Array.isArray(o.failOn) ? o.failOn : [o.failOn])
  }
}
