// The hosts of a fan-out (`loadlab fanout -w`), written as pdsh's -w takes them: a comma-separated list
// whose items may hold one bracketed range (`ns[1-3]`, `node[01-04,07]`). Expanded here, in order, so
// that host k is pdsh's rank %n = k − 1 and shard k of N (pdsh keeps the order of an explicit list).
// Pure.
import { MAX_SHARDS } from '../settings.js'
import { usageError } from '../errors.js'

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

// Split at the commas outside brackets.
function items (spec) {
  const out = []
  let depth = 0
  let cur = ''
  for (const ch of spec) {
    if (ch === '[') depth++
    if (ch === ']') depth--
    if (ch === ',' && depth === 0) {
      out.push(cur)
      cur = ''
    } else {
      cur += ch
    }
  }
  out.push(cur)
  return out
}

// `a-b` or `a` inside brackets, zero-padded to the width of `a` when it starts with 0.
function rangeOf (part, spec) {
  const m = /^(\d+)(?:-(\d+))?$/.exec(part)
  if (!m) throw usageError(`-w: bad range ${JSON.stringify(part)} in ${JSON.stringify(spec)} (expected e.g. ns[1-3])`)
  const lo = Number(m[1])
  const hi = m[2] === undefined ? lo : Number(m[2])
  if (hi < lo || hi - lo >= MAX_SHARDS) throw usageError(`-w: bad range ${part} in ${JSON.stringify(spec)}`)
  const width = m[1].startsWith('0') ? m[1].length : 0
  return Array.from({ length: hi - lo + 1 }, (_, i) => String(lo + i).padStart(width, '0'))
}

// One item: a name, or a name with one bracketed list of ranges.
function expandItem (item, spec) {
  const m = /^([^[\]]*)\[([^[\]]+)\]([^[\]]*)$/.exec(item)
  const names = m ? m[2].split(',').flatMap((p) => rangeOf(p, spec)).map((n) => `${m[1]}${n}${m[3]}`) : [item]
  for (const n of names) {
    if (!NAME.test(n)) {
      throw usageError(`-w: ${JSON.stringify(n)} is not a host name (letters, digits, . _ -; ` +
        'users, files, regexes and exclusions of pdsh are not taken: list the hosts)')
    }
  }
  return names
}

// The host list of a -w spec, in order; refuses an empty list, a duplicate, or more than MAX_SHARDS.
export function expandHosts (spec) {
  if (typeof spec !== 'string' || spec.trim() === '') {
    throw usageError('-w: expected the hosts, e.g. -w ns[1-3] ' +
    'or -w a,b,c')
  }
  const hosts = items(spec.trim()).flatMap((item) => expandItem(item.trim(), spec))
  const seen = new Set()
  for (const h of hosts) {
    if (seen.has(h)) throw usageError(`-w: host ${h} given twice (one shard per host)`)
    seen.add(h)
  }
  if (hosts.length > MAX_SHARDS) {
    throw usageError(`-w: ${hosts.length} hosts, more than the ${MAX_SHARDS} shards ` +
    'a plan may have')
  }
  return hosts
}
