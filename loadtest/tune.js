// --tune NAME=V1,V2,…: the server settings a capacity experiment may vary, one table, and the values a
// spec names. Each value becomes its own run, keyed `SERVER[NAME=VALUE]` (result/key.js settingKey).
// Pure; options.js turns a refusal into a usage error (exit 2).
import { availableParallelism } from 'node:os'

// The tunable settings: the server flag each sets, the servers that take it, whether `inf` (unbounded:
// the flag left out) is a value, and the values tried when the spec names none (a function of the cores).
// threads: the cores beside piscina's own default, 1.5 × the cores (maxThreads), and half the cores;
// processes: the same three.
export const TUNABLE = Object.freeze({
  threads: {
    flag: '--threads',
    servers: ['queued-threads'],
    inf: false,
    defaults: (cores) => [Math.max(1, Math.floor(cores / 2)), cores, Math.ceil(1.5 * cores)],
    help: 'pool threads (the server default: one per core; piscina\'s own default: 1.5 × the cores)'
  },
  processes: {
    flag: '--processes',
    servers: ['queued-processes'],
    inf: false,
    max: 64, // the server's own bound: each is a whole Node process
    defaults: (cores) => [Math.max(1, Math.floor(cores / 2)), cores, Math.ceil(1.5 * cores)],
    help: 'pool processes (the server default: one per core)'
  },
  workers: {
    flag: '--workers',
    servers: ['cluster', 'cluster-threads'],
    inf: false,
    max: 16, // whole processes, each a Node runtime (cluster --workers 64 alone took 4.2 GB and 10.5 s to boot)
    defaults: (cores) => [Math.max(1, Math.floor(cores / 2)), cores, 2 * cores],
    help: 'worker processes (the server default: one per core)'
  },
  'max-queue': {
    flag: '--max-queue',
    servers: ['queued-threads', 'queued-processes'],
    inf: true,
    min: 0, // --max-queue 0: never wait (a request finds a free thread or process, or 503)
    defaults: (cores) => [cores, 4 * cores, 'inf'],
    help: 'requests allowed to wait for a thread or process; past it 503 + Retry-After (inf: unbounded, the default)'
  }
})

// At most this many values in one --tune (each is a whole sweep).
const MAX_TUNE_VALUES = 8

// A refusal of a --tune spec: one line (options.js makes it a usage error).
export class TuneError extends Error {}

// The values of `--tune NAME=V1,V2,…` (or `--tune NAME`: its defaults for `cores`), checked against the
// table and the selected servers: { name, flag, values: [number | 'inf'] }; throws TuneError.
export function parseTune (spec, { servers = null, cores = availableParallelism() } = {}) {
  const m = /^([a-z][a-z-]*)(?:=(.*))?$/.exec(spec ?? '')
  const names = Object.keys(TUNABLE).join(', ')
  if (!m) {
    throw new TuneError(`--tune: expected NAME=V1,V2,… with NAME one of ${names}, ` +
    `got ${JSON.stringify(String(spec).slice(0, 40))}`)
  }
  const setting = TUNABLE[m[1]]
  if (!setting) throw new TuneError(`--tune: unknown setting \`${m[1]}\`; allowed: ${names}`)
  const values = m[2] === undefined ? setting.defaults(cores) : valuesOf(m[1], m[2], setting)
  const apart = (servers ?? []).filter((s) => !setting.servers.includes(s))
  if (servers === null || servers.length === 0 || apart.length) {
    const which = servers?.length ? `not to ${apart.join(', ')}` : 'give --server'
    throw new TuneError(`--tune ${m[1]}: applies to ${setting.servers.join(', ')} only (${which})`)
  }
  return { name: m[1], flag: setting.flag, values }
}

// The comma-separated values of one setting: whole numbers from 1 to its max (256 unless it names one;
// or `inf` where unbounded is one), each once.
function valuesOf (name, text, setting) {
  const raw = text.split(',').map((s) => s.trim())
  const min = setting.min ?? 1
  const max = setting.max ?? 256
  const rule = `whole numbers from ${min} to ${max}${setting.inf ? ' or inf' : ''}, comma-separated`
  const values = raw.map((v) => {
    if (setting.inf && v === 'inf') return 'inf'
    const n = /^\d+$/.test(v) ? Number(v) : NaN
    if (!(n >= min && n <= max)) {
      throw new TuneError(`--tune ${name}: expected ${rule}, ` +
      `got ${JSON.stringify(v.slice(0, 20))}`)
    }
    return n
  })
  if (new Set(values).size !== values.length) {
    throw new TuneError(`--tune ${name}: a value given twice ` +
    `(${text.slice(0, 40)})`)
  }
  if (values.length > MAX_TUNE_VALUES) {
    throw new TuneError(`--tune ${name}: at most ${MAX_TUNE_VALUES} values ` +
    `(each is a whole sweep), got ${values.length}`)
  }
  return values
}

// The server arguments of one value: the flag and the value, or nothing for `inf` (the server's unbounded).
export function tuneArgs (tune, value) {
  return value === 'inf' ? [] : [tune.flag, String(value)]
}
