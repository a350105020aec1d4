// Command-line options for every server: node:util parseArgs, environment fallbacks, one defaults table,
// each value validated at the boundary with a one-line message naming the flag, the rule and the value.
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { ServerError } from './errors.js'
import { parseWork } from './workloads.js'
import { DEFAULT_TIMEOUT_MS, describeTask } from './task-module.js'

// Validators: each takes the raw string and returns the value or throws with the rule it enforces.
export const integer =
  (min, max = Infinity) =>
    (raw) => {
      const n = /^\d+(e\d+)?$/.test(raw) ? Number(raw) : NaN
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        const rule =
        min === 1 && max === Infinity
          ? 'a positive integer'
          : max === Infinity
            ? `an integer >= ${min}`
            : `an integer from ${min} to ${max}`
        throw new Error(`expected ${rule}`)
      }
      return n
    }
export const oneOf =
  (...allowed) =>
    (raw) => {
      if (!allowed.includes(raw)) throw new Error(`expected one of ${allowed.join(', ')}`)
      return raw
    }
export const httpUrl = (raw) => {
  let url
  try {
    url = new URL(raw)
  } catch {
    throw new Error('expected an http:// URL')
  }
  if (url.protocol !== 'http:') throw new Error('expected an http:// URL')
  return url
}

// A host to listen on: never empty (an empty host would bind every interface, silently).
function hostName (raw) {
  if (raw.trim() === '') {
    throw new Error('expected an address such as 127.0.0.1 (an empty host would listen on ' +
    'every interface)')
  }
  return raw
}

// Whether a host is loopback only (127.0.0.0/8, ::1, localhost): anything else can be reached by others.
export function isLoopback (host) {
  return /^127(\.\d{1,3}){3}$/.test(host) || host === '::1' || host === '[::1]' || host.toLowerCase() === 'localhost'
}

// Options every server takes; `env` names the environment fallback.
const common = {
  port: { default: '3000', env: 'PORT', parse: integer(0, 65535), help: 'port to listen on (0: any free port)' },
  host: {
    default: '127.0.0.1',
    env: 'HOST',
    parse: hostName,
    help: 'address to listen on (beyond loopback: anyone can send ?work=)'
  },
  work: { env: 'WORK', help: 'work per request, NAME:ARG (docs/servers.md, "Work specs")' },
  task: { env: 'TASK', help: 'your own work instead: a module PATH[#export] (docs/task.md)' },
  input: { env: 'TASK_INPUT', help: "--task: the input each call gets, JSON or @file (default: the module's input)" },
  taskTimeout: {
    default: String(DEFAULT_TIMEOUT_MS),
    env: 'TASK_TIMEOUT',
    parse: integer(1, 3600000),
    help: '--task: ms one call may take'
  },
  telemetry: { default: 'on', parse: oneOf('on', 'off'), help: 'event-loop monitor, ELU and 1 ms tick counter' },
  workOverride: {
    default: 'on',
    parse: oneOf('on', 'off'),
    help: 'GET /?work=SPEC runs another spec for one request (off: 400)'
  },
  requestTimeout: {
    default: '10000',
    parse: integer(1, 3600000),
    help: 'ms a client may take to send a whole request (a slow body is closed, not held)'
  }
}

// Parse argv for `strategy` with its own `extra` options ({ name: { default, parse, help } });
// `work` is the default work spec (or a function of the other parsed values giving it). Returns plain
// values (work parsed); throws ServerError ERR_BAD_OPTION/ERR_BAD_WORK.
// --help prints the usage and exits 0.
// `work: null` (the API emulator) leaves out --work and --telemetry.
export function parseOptions ({ strategy, work, extra = {}, argv = process.argv.slice(2), env = process.env }) {
  const base = work === null ? { port: common.port, host: common.host } : common
  const taskOnly = ['task', 'input', 'taskTimeout']
  const spec = { ...base, ...extra }
  if (work !== null) spec.work = { ...common.work, default: typeof work === 'function' ? undefined : work }
  const values = readArgv(strategy, spec, argv)
  if (values.help) {
    process.stdout.write(usage(strategy, spec) + '\n')
    process.exit(0)
  }
  const out = {}
  for (const [name, opt] of Object.entries(spec)) {
    const flag = `--${kebab(name)}`
    const raw = values[kebab(name)] ?? (opt.env ? env[opt.env] : undefined) ?? opt.default
    if (name === 'work' || name === 'task' || name === 'input') continue
    if (raw === undefined) {
      out[name] = undefined
      continue
    }
    try {
      out[name] = opt.parse(raw)
    } catch (err) {
      const from =
        values[kebab(name)] === undefined && opt.env && env[opt.env] !== undefined ? ` (from ${opt.env})` : ''
      throw new ServerError('ERR_BAD_OPTION', `${flag}: ${err.message}, got ${JSON.stringify(clip(raw))}${from}`)
    }
  }
  if (work === null) return out
  const task = values.task ?? env.TASK
  if (task !== undefined) {
    if (values.work !== undefined) {
      throw new ServerError(
        'ERR_BAD_OPTION',
        `--work: excludes --task (the task module is the work), got ${values.work}`
      )
    }
    out.work = describeTask({ ref: task, input: values.input ?? env.TASK_INPUT, timeoutMs: out.taskTimeout })
  } else {
    for (const name of taskOnly.slice(1)) {
      if (values[kebab(name)] !== undefined) {
        throw new ServerError('ERR_BAD_OPTION', `--${kebab(name)}: only ` +
        'with --task')
      }
    }
    out.work = parseWork(values.work ?? env.WORK ?? (typeof work === 'function' ? work(out) : work))
  }
  return out
}

// The environment variables the servers read as fallbacks: the lab starts its servers without them, so a
// stray WORK= or PORT= in a user's shell never changes what the lab measures.
export const ENV_FALLBACKS = Object.values(common)
  .map((o) => o.env)
  .filter(Boolean)

// The core count the defaults use (workers, threads).
export const cores = availableParallelism()

// The flags as parseArgs reads them (every option takes one string; --help is a flag). An option given
// twice is refused: parseArgs keeps the last silently, and `--port 1 --port 2` is a mistake either way.
function readArgv (strategy, spec, argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      tokens: true,
      options: Object.fromEntries([
        ...Object.keys(spec).map((k) => [kebab(k), { type: 'string' }]),
        ['help', { type: 'boolean', short: 'h' }]
      ])
    })
  } catch (err) {
    throw argvError(strategy, spec, err)
  }
  const given = new Map()
  for (const t of parsed.tokens) {
    if (t.kind === 'option' && t.value !== undefined) given.set(t.name, [...(given.get(t.name) ?? []), clip(t.value)])
  }
  for (const [name, values] of given) {
    if (values.length > 1) {
      throw new ServerError('ERR_BAD_OPTION', `--${name} given ${values.length} times ` +
      `(${values.join(', ')}): give it once`)
    }
  }
  return parsed.values
}

// parseArgs' refusal as one line naming the flag.
function argvError (strategy, spec, err) {
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new ServerError(
      'ERR_BAD_OPTION',
      `${strategy}: unexpected argument ${clip(/'([^']*)'/.exec(err.message)?.[1] ?? '')} (options are --flags, ` +
        'see --help)'
    )
  }
  const flag = /'(-[^' ]+)/.exec(err.message)?.[1] ?? ''
  const reason =
    err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? `unknown option (valid: ${Object.keys(spec)
          .map((k) => '--' + kebab(k))
          .join(', ')}, --help)`
      : err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
        ? (/ambiguous/.test(err.message)
            ? 'expected a value, got one that starts with "-" (read as an option: no negative value is accepted)'
            : 'expected a value')
        : err.message.split('\n')[0]
  return new ServerError('ERR_BAD_OPTION', `${clip(flag) || strategy}: ${reason}`)
}

// A value for a message: a long one (a 100 kB argument) is cut, with its length.
function clip (text, max = 80) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}… (${text.length} characters)`
}

function kebab (name) {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
}

function usage (strategy, spec) {
  const lines = Object.entries(spec).map(([name, opt]) => {
    const def = opt.default === undefined ? '' : ` (default ${opt.default})`
    const env = opt.env ? ` [env ${opt.env}]` : ''
    return `  --${kebab(name)}`.padEnd(34) + opt.help + def + env
  })
  return `usage: node servers/${strategy} [options]\n\n${lines.join('\n')}\n` + '  --help'.padEnd(34) + 'this text'
}
