// A run's key: what makes it comparable across reports. One structured key, one string form:
//
//   SERVER[/VARIANT][[SETTING]][@WORK][#QUALIFIER][#RUNTIME][#capacity | #open:RATE/s]
//
// `setting` is a server setting the run chose with --tune (`threads=3`, `workers=4`, `max-queue=inf`);
// `work` is the work spec (`loop:1e8`, or a task's `task:NAME[#EXPORT]@HASH`); `task` is that spec's
// parts when it names a task; `qualifier` a setting the experiment varies besides the work (`c4`,
// `t10-i1000`); `runtime` the runtime label under --node/--runtime (`node22`, `bun`); `loop` how the run
// was loaded: null (closed), 'capacity', or 'open:RATE/s'. Pure: used by run, report, compare, experiments.

const LOOP = /^(capacity|overload|open:[^#]+)$/
// Runtime labels (run/watch/runtimes.js): node + major or whole version, and the other runtimes by name.
const RUNTIME = /^(node\d[\w.-]*|bun[\w.-]*|deno[\w.-]*)$/
const TASK = /^task:([^#@]*)(?:#([^@]*))?@([0-9a-f]+)/

// A structured key from its fields (missing ones null).
export function runKey ({
  server, variant = null, setting = null, work = null, qualifier = null, runtime = null, loop = null
}) {
  return { server, variant, setting, work, task: taskOf(work), qualifier, runtime, loop }
}

// A --tune setting's key part from its name and value: `threads=3` (the one builder; settingParts reads it).
export function settingKey (name, value) {
  return `${name}=${value}`
}

// A setting's key part back into { name, value } (value a string: `inf` stays a word); null for none.
export function settingParts (setting) {
  const m = typeof setting === 'string' ? /^([a-z][a-z-]*)=(.+)$/.exec(setting) : null
  return m ? { name: m[1], value: m[2] } : null
}

// The parts of a task's work spec ({ name, export, hash }), or null for a built-in work.
export function taskOf (work) {
  const m = typeof work === 'string' ? TASK.exec(work) : null
  return m ? { name: m[1], export: m[2] ?? 'default', hash: m[3] } : null
}

// The key's string form (see the head of this file).
export function formatKey (key) {
  let out = `${key.server}${key.variant ? '/' + key.variant : ''}${key.setting ? `[${key.setting}]` : ''}`
  if (key.work !== null && key.work !== undefined) out += `@${key.work}`
  for (const part of [key.qualifier, key.runtime, key.loop]) if (part) out += `#${part}`
  return out
}

// A result's name in every output: its strategy, server or server/variant (the key's head, without its
// setting); a result without a server, its key.
export function runName (r) {
  return r?.server ? formatKey({ server: r.server, variant: r.variant ?? null }) : String(r?.key ?? '?')
}

// A key string back into its fields. The server is what precedes the first '/' or '@'; a task's work
// keeps its own '#EXPORT'; of the '#' parts, the last may be the loop, the one before it the runtime.
export function parseKey (text) {
  const s = String(text)
  const at = s.indexOf('@')
  const head = at < 0 ? s.split('#')[0] : s.slice(0, at)
  const bracket = /\[([^\]]*)\]$/.exec(head)
  const setting = bracket ? bracket[1] : null
  const name = bracket ? head.slice(0, bracket.index) : head
  const slash = name.indexOf('/')
  const server = slash < 0 ? name : name.slice(0, slash)
  const variant = slash < 0 ? null : name.slice(slash + 1)
  let rest = s.slice(head.length + (at < 0 ? 0 : 1))
  let work = null
  if (at >= 0) {
    const task = TASK.exec(rest)
    work = task ? task[0] : rest.split('#')[0]
    rest = rest.slice(work.length)
  }
  const parts = rest.split('#').slice(1)
  const loop = parts.length && LOOP.test(parts.at(-1)) ? parts.pop() : null
  const runtime = parts.length && RUNTIME.test(parts.at(-1)) ? parts.pop() : null
  return runKey({ server, variant, setting, work, qualifier: parts.length ? parts.join('#') : null, runtime, loop })
}

// How a run was loaded, as the key's loop part: the overload experiment, a capacity sweep, an open loop
// at a rate, or closed.
export function loopOf ({ sweep = null, rate = null, overload = null }) {
  if (overload) return 'overload'
  if (sweep) return 'capacity'
  if (rate) return `open:${rate}/s`
  return null
}

// The key string of an HTTP run from its plan entry (server, variant, the experiment's qualifier, runtime,
// rate or sweep) and the work its server ran ('default' when nothing names it).
// A request mix (entry.mix, result/mix.js) is part of the key: the work of a run that names none (a
// --url service: `HOST@mix:NAME:HASH`), else a qualifier beside the work (`mix:HASH`).
export function httpKey (entry, work) {
  const named = work ?? entry.work ?? null
  const mix = entry.mix ? `mix:${entry.mix.name}:${entry.mix.hash}` : null
  const qualifier = [entry.qualifier, named !== null && mix ? `mix:${entry.mix.hash}` : null].filter(Boolean).join('#')
  return formatKey(runKey({
    server: entry.server,
    variant: entry.variant ?? null,
    setting: entry.setting ? settingKey(entry.setting.name, entry.setting.value) : null,
    work: named ?? mix ?? 'default',
    qualifier: qualifier || null,
    runtime: entry.runtime?.label ?? null,
    loop: loopOf(entry)
  }))
}

// The same key without its runtime: how runs of one report line up across runtimes.
export function withoutRuntime (text) {
  return formatKey({ ...parseKey(text), runtime: null })
}

// The report's calibration key of a work spec: the spec, or under --node `SPEC#LABEL` for a runtime label.
export function calibrationKey (spec, runtimeLabel = null) {
  return runtimeLabel ? `${spec}#${runtimeLabel}` : spec
}
