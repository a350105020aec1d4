// A request mix (--mix): classes of requests, each with a weight, a method, a path, headers, a body, a
// latency target and what its answers must be. Plain data and pure functions: the file's text is checked
// here (every fault one line naming the entry and the key), the built-in mix of the lab's servers is
// written here, and a mix's identity (its name and hash) is made here. Reading the file is the caller's.
import { createHash } from 'node:crypto'
import { decodeHistogram, encodeHistogram, summarizeHistogram } from './histogram.js'
import { roundTo } from './stats.js'
import { isSuccess } from './requests.js'
import { SAMPLE } from './rules.js'
import { SLO_RANGE } from '../settings.js'

// The most classes a mix holds, and the longest request body (bytes) a class may send: a body is held
// in memory once per round and written with every request of its class.
export const MAX_CLASSES = 16
export const MAX_REQUEST_BODY = 64 * 1024
// The longest path, and the most bytes of a class's own header lines: what a common server reads at most
// (Node's: 16 KiB for the whole head). A longer one is refused here, not answered 414 or 431 at load.
export const MAX_PATH_BYTES = 8 * 1024
export const MAX_HEADER_BYTES = 8 * 1024

// The largest --mix file read (bytes): every class's body at its longest, escaped in JSON at up to six
// bytes a byte (\u0000), fits; a larger file is refused before it is parsed (a 50 MB body, /dev/zero).
export const MAX_MIX_BYTES = 8 * 1024 * 1024
export const MIX_BOUNDS = `at most ${MAX_CLASSES} classes, bodies of at most ${MAX_REQUEST_BODY / 1024} KiB`

// The longest closed-loop cycle (slots): weights whose exact cycle is longer are rounded to it. A class's
// share of the weights is at least one slot of it (MIN_SHARE): a smaller class would never be sent by the
// closed loop, nor reach a sample in any step of a sweep.
export const MAX_CYCLE = 1000
export const MIN_SHARE = 1 / MAX_CYCLE

// The methods a class may use. HEAD is left out: its answer announces a body it does not send.
export const METHODS = Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

// What a class is when its file leaves a key out (sloMs null: the run's own target).
export const CLASS_DEFAULTS = Object.freeze({ method: 'GET', headers: {}, body: null, sloMs: null, expect: {} })

// Headers the lab writes itself (the connection's own): a class may not set them.
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection'])
const CLASS_KEYS = ['name', 'weight', 'method', 'path', 'headers', 'body', 'sloMs', 'expect']
const EXPECT_KEYS = ['status', 'sha256', 'bodyIncludes']
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const PATH = /^\/[\x21-\x7e]*$/ // printable, no space, starting with /
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i // . or .. (or written %2e): the service would see another path

// A fault in a mix: one line; the option parser makes it a usage error (exit 2).
export class MixError extends Error {
  constructor (message) {
    // eslint-disable-next-line no-control-regex
    super(message.replace(/[\x00-\x1f\x7f]/g, (c) => JSON.stringify(c).slice(1, -1))) // one line, whatever a name holds
    this.name = 'MixError'
    this.code = 'LAB_MIX'
  }
}

const SHOWN_CHARS = 40
const SHOWN_DEPTH = 32
// A value as a fault shows it: its JSON, clipped; a value nested past SHOWN_DEPTH, its kind (whether a runtime's
// JSON.stringify would overflow its stack on it or not: the words are the same on every Node line).
const show = (v) => {
  const s = nestedPast(v, SHOWN_DEPTH)
    ? `${Array.isArray(v) ? 'an array' : 'an object'} nested too deep to show`
    : typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v) ?? String(v)
  return s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS - 3)}...` : s
}

// Whether v nests objects or arrays more than `depth` deep (an iterative walk: no stack to overflow).
function nestedPast (v, depth) {
  const stack = [[v, 0]]
  while (stack.length) {
    const [x, d] = stack.pop()
    if (x === null || typeof x !== 'object') continue
    if (d >= depth) return true
    for (const y of Object.values(x)) stack.push([y, d + 1])
  }
  return false
}

// One class checked, its defaults filled in. `at` names it in a fault: `requests[1] (heavy)`.
function checkClass (raw, i) {
  const label = typeof raw?.name === 'string' ? `requests[${i}] (${raw.name})` : `requests[${i}]`
  const fault = (key, rule, got) => new MixError(`${label}: ${key}: ${rule}, got ${show(got)}`)
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MixError(`${label}: expected an ` +
    `object, got ${show(raw)}`)
  }
  const unknown = Object.keys(raw).find((k) => !CLASS_KEYS.includes(k))
  if (unknown) throw new MixError(`${label}: ${unknown}: unknown key; a class takes ${CLASS_KEYS.join(', ')}`)
  for (const k of ['name', 'weight', 'path']) if (!(k in raw)) throw new MixError(`${label}: ${k}: required`)
  if (typeof raw.name !== 'string' || !NAME.test(raw.name)) {
    throw fault('name', 'expected letters, digits, . _ - ' +
    '(at most 32)', raw.name)
  }
  if (typeof raw.weight !== 'number' || !(raw.weight > 0)) throw fault('weight', 'expected a number > 0', raw.weight)
  if (!Number.isFinite(raw.weight)) {
    throw fault('weight', 'expected a finite number (past 1.8e308 JSON ' +
    'reads Infinity)', raw.weight)
  }
  const wrong = pathFault(raw.path)
  if (wrong) throw fault('path', wrong, raw.path)
  const c = { ...CLASS_DEFAULTS, name: raw.name, weight: raw.weight, path: raw.path }
  if ('method' in raw) {
    if (!METHODS.includes(raw.method)) throw fault('method', `expected one of ${METHODS.join(', ')}`, raw.method)
    c.method = raw.method
  }
  if ('headers' in raw) c.headers = checkHeaders(raw.headers, fault)
  if ('body' in raw) c.body = checkBody(raw.body, fault)
  if ('sloMs' in raw) {
    if (typeof raw.sloMs !== 'number' || !(raw.sloMs > 0)) {
      throw fault('sloMs', 'expected a number of ms > 0', raw.sloMs)
    }
    if (raw.sloMs < SLO_RANGE.min || raw.sloMs > SLO_RANGE.max) {
      throw fault('sloMs', `expected ms from ${SLO_RANGE.min} to ${SLO_RANGE.max} (as --slo)`, raw.sloMs)
    }
    c.sloMs = raw.sloMs
  }
  if ('expect' in raw) c.expect = checkExpect(raw.expect, fault)
  return c
}

// Why a class's path cannot be sent as written to --url's origin, or null. It is sent exactly as written
// (the request line's target, with its query), so it must be one the service reads as that path on that
// host: not a URL of another host (http://h/x, //h/x, or /\\h/x, which URL parsers read as //h/x), not a
// fragment (never sent), not a . or .. segment (which moves it elsewhere), printable ASCII on one line.
function pathFault (path) {
  if (typeof path !== 'string') return 'expected a string starting with /'
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return 'expected a path starting with /, not a URL (the host is --url\'s)'
  if (!path.startsWith('/')) return 'expected a path starting with /'
  if (!PATH.test(path)) return 'expected printable ASCII without spaces or line breaks'
  if (path.length > MAX_PATH_BYTES) return `expected at most ${MAX_PATH_BYTES} bytes`
  if (path.startsWith('//') || path.includes('\\')) {
    return 'a path starting with // or holding \\ names another ' +
    'host to a URL parser'
  }
  if (path.includes('#')) return 'a fragment (#) is never sent; leave it out'
  const segments = path.split('?')[0].split('/')
  if (segments.some((seg) => DOT_SEGMENT.test(seg))) {
    return 'a . or .. segment (or %2e) moves the path; write the ' +
    'path it stands for'
  }
  return null
}

function checkHeaders (headers, fault) {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw fault('headers', 'expected an object of name: value', headers)
  }
  const out = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw fault('headers', 'expected header names that are tokens', name)
    if (OWN_HEADERS.has(name.toLowerCase())) {
      throw fault(`headers.${name}`, 'set by the lab itself (host, ' +
      'content-length, transfer-encoding, connection)', value)
    }
    if (typeof value !== 'string' || !/^[\t\x20-\x7e]*$/.test(value)) {
      throw fault(`headers.${name}`, 'expected printable ASCII on one line', value)
    }
    out[name] = value
  }
  const bytes = Object.entries(out).reduce((a, [n, v]) => a + n.length + v.length + 4, 0) // "name: value\r\n"
  if (bytes > MAX_HEADER_BYTES) {
    throw fault('headers', `expected at most ${MAX_HEADER_BYTES} bytes of ` +
    'header lines', `${bytes} bytes`)
  }
  return out
}

// A body is a string (sent as its UTF-8 bytes) of at most MAX_REQUEST_BODY bytes: its length is known
// before the request is written (a Content-Length, never a stream).
function checkBody (body, fault) {
  if (typeof body !== 'string') throw fault('body', 'expected a string (JSON goes in as its text)', body)
  const bytes = Buffer.byteLength(body)
  if (bytes > MAX_REQUEST_BODY) throw fault('body', `expected at most ${MAX_REQUEST_BODY} bytes`, `${bytes} bytes`)
  return body
}

function checkExpect (expect, fault) {
  if (expect === null || typeof expect !== 'object' || Array.isArray(expect)) {
    throw fault('expect', 'expected an object', expect)
  }
  const unknown = Object.keys(expect).find((k) => !EXPECT_KEYS.includes(k))
  if (unknown) throw fault(`expect.${unknown}`, `unknown key; expect takes ${EXPECT_KEYS.join(', ')}`, expect[unknown])
  const out = {}
  if ('status' in expect) {
    // a 2xx: any other answer is counted by its status already (non2xx), never as a mismatch
    if (!isSuccess(expect.status)) {
      throw fault('expect.status', 'expected a 2xx status', expect.status)
    }
    out.status = expect.status
  }
  if ('sha256' in expect) {
    if (typeof expect.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(expect.sha256)) {
      throw fault('expect.sha256', 'expected 64 hex digits', expect.sha256)
    }
    out.sha256 = expect.sha256.toLowerCase()
  }
  if ('bodyIncludes' in expect) {
    if (typeof expect.bodyIncludes !== 'string' || expect.bodyIncludes === '') {
      throw fault('expect.bodyIncludes', 'expected a non-empty string', expect.bodyIncludes)
    }
    out.bodyIncludes = expect.bodyIncludes
  }
  return out
}

// A mix's identity: the first 12 hex digits of the sha256 of its classes as checked (defaults filled in).
function hashOf (requests) {
  return createHash('sha256').update(JSON.stringify(requests)).digest('hex').slice(0, 12)
}

// Check a mix (the parsed JSON of a --mix file, `name` its default name: the file's base name) →
// { name, hash, builtIn: false, requests: [class…] }; throws a MixError naming the entry and the key.
export function checkMix (json, name) {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new MixError('expected an object { ' +
    `"requests": [...] }, got ${show(json)}`)
  }
  const unknown = Object.keys(json).find((k) => k !== 'requests' && k !== 'name')
  if (unknown) throw new MixError(`${unknown}: unknown key; a mix takes name, requests`)
  if ('name' in json && (typeof json.name !== 'string' || !NAME.test(json.name))) {
    throw new MixError(`name: expected letters, digits, . _ - (at most 32), got ${show(json.name)}`)
  }
  const list = json.requests
  if (!Array.isArray(list) || list.length === 0) {
    throw new MixError('requests: expected a non-empty array, ' +
    `got ${show(list)}`)
  }
  if (list.length > MAX_CLASSES) throw new MixError(`requests: at most ${MAX_CLASSES} classes, got ${list.length}`)
  const requests = list.map(checkClass)
  const shares = sharesOf(requests)
  for (const [i, c] of requests.entries()) {
    if (shares[i] < MIN_SHARE) {
      throw new MixError(`requests[${i}] (${c.name}): weight: ${show(c.weight)} is under 1/${MAX_CYCLE} of the ` +
        'mix\'s weights; a class needs at least that share')
    }
  }
  const seen = new Set()
  for (const [i, c] of requests.entries()) {
    if (seen.has(c.name)) {
      throw new MixError(`requests[${i}] (${c.name}): name: given twice; each class has ` +
      'its own name')
    }
    seen.add(c.name)
  }
  return { name: json.name ?? name, hash: hashOf(requests), builtIn: false, requests }
}

// Parse a --mix file's text: JSON (after a byte-order mark, if any), then checkMix.
export function parseMix (text, name) {
  let json
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, '')) // a byte-order mark some editors write first
  } catch (err) {
    throw new MixError(`not JSON: ${err.message.split('\n')[0]}`)
  }
  return checkMix(json, name)
}

// The built-in classes for the lab's own servers: `heavy` is GET / (the strategy's work), `cheap` a
// route every lab server answers on its main thread without the work (GET /cheap, servers/lib/app.js), as
// a service answers a health check or a small read beside its heavy routes.
export const BUILT_IN_CLASSES = Object.freeze({
  heavy: { path: '/' },
  cheap: { path: '/cheap' }
})

// Whether a --mix value is the built-in mix (`heavy:80,cheap:20`): NAME:WEIGHT pairs of built-in classes.
export function isBuiltInSpec (spec) {
  return /^[a-z]+:[0-9.e+]+(,[a-z]+:[0-9.e+]+)*$/i.test(spec) &&
    spec.split(',').every((p) => Object.hasOwn(BUILT_IN_CLASSES, p.split(':')[0]))
}

// The built-in mix from its spec (`heavy:80,cheap:20`), checked like a file's.
export function builtInMix (spec) {
  const requests = spec.split(',').map((pair) => {
    const [name, weight] = pair.split(':')
    return { name, weight: Number(weight), ...BUILT_IN_CLASSES[name] }
  })
  return { ...checkMix({ requests }, spec.replace(/[:,]/g, '-')), builtIn: true }
}

const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b))

// Each class's share of the mix (0 to 1, summing to 1): its weight over the sum, taken over the largest
// weight first, so that weights near the largest number (two of 1e308) never sum to Infinity.
export function sharesOf (requests) {
  const top = Math.max(...requests.map((c) => c.weight))
  const scaled = requests.map((c) => c.weight / top)
  const sum = scaled.reduce((a, w) => a + w, 0)
  return scaled.map((w) => w / sum)
}

// The closed loop's sequence of class indexes (autocannon cycles its `requests` in order, not by
// weight): smooth weighted round robin, each class's share exact when the weights are integers whose
// sum over their gcd fits MAX_CYCLE (80:20 is 4:1, five slots), else as close as MAX_CYCLE slots allow;
// the classes interleaved rather than in runs.
export function weightedCycle (requests) {
  const weights = requests.map((c) => c.weight)
  const sum = weights.reduce((a, w) => a + w, 0)
  const exact = weights.every(Number.isSafeInteger) && Number.isSafeInteger(sum) ? sum / weights.reduce(gcd) : Infinity
  const length = Math.min(exact, MAX_CYCLE)
  // integer weights in exact arithmetic; any others as shares (1e308 twice never sums to Infinity)
  const [step, total] = Number.isSafeInteger(sum) ? [weights, sum] : [sharesOf(requests), 1]
  const current = requests.map(() => 0)
  const out = []
  for (let k = 0; k < length; k++) {
    let best = 0
    for (let i = 0; i < requests.length; i++) {
      current[i] += step[i]
      if (current[i] > current[best]) best = i
    }
    current[best] -= total
    out.push(best)
  }
  return out
}

// A class's latency target: its own sloMs, else the run's.
export function classTarget (cls, runSloMs) {
  return cls.sloMs ?? runSloMs ?? null
}

// A round's figures per class (the raw round's `classes`, run/generate/classes.js): its counts, req/s
// over the round's `durationMs`, its latency summary (timed-out requests in at the timeout: `censored`)
// and its histogram, encoded, so shards and rounds add up exactly. null without a mix.
export function classFigures (rawClasses, durationMs) {
  if (!rawClasses) return null
  return rawClasses.map((c) => {
    const h = typeof c.latency === 'string' ? decodeHistogram(c.latency) : c.latency
    const s = summarizeHistogram(h)
    const { sent, completed, ok, non2xx, errors, timeouts, mismatches } = c
    return {
      name: c.name,
      sloMs: c.sloMs ?? null, // its own target (null: the run's)
      requests: { sent, completed, ok, non2xx, errors, timeouts, mismatches },
      rps: durationMs > 0 ? roundTo((completed / durationMs) * 1000, 3) : null,
      latency: {
        count: s.count, p50: s.p50, p97_5: s.p97_5, p99: s.p99, p99_9: s.p99_9, max: s.max, censored: timeouts
      },
      histogram: typeof c.latency === 'string' ? c.latency : encodeHistogram(h),
      mismatchSample: c.mismatchSample ?? null
    }
  })
}

// Each class's figures with its latency target (its own sloMs, else the run's) beside them.
export function withTargets (classes, mix, runSloMs) {
  if (!classes || !mix) return classes ?? null
  return classes.map((c, k) => ({ ...c, sloMs: classTarget(mix.requests[k] ?? {}, runSloMs) }))
}

// A class's figures in a round's shape, for the step rule (result/capacity.js judgeStep): its own counts
// (unanswered: sent and not ended), percentiles and histogram; the backlog is the round's, judged whole.
function classRound (c) {
  const q = c.requests
  const unanswered = Math.max(0, q.sent - q.completed - q.errors - q.timeouts)
  const histograms = { latency: c.histogram }
  return { requests: { ...q, unanswered }, latency: c.latency, histograms, backlog: null, open: null }
}

const SEVERITY = { fail: 2, undecided: 1, pass: 0 }

// A mixed step's verdict: every class against its own target (its sloMs, else the run's `sloMs`) by
// `judge` (judgeStep's rule for one round), and the round whole for its backlog. The step is the worst
// class's verdict (a failure before an undecided, the larger share over its target first), named:
// `cls` the class that decided it, `classes` each class's call, and (a failure) `why`: { code: 'class-fail',
// cls, sloMs, fault, failed } (text/reasons.js says it).
export function judgeByClass (fig, sloMs, judge) {
  const whole = judge({ ...fig, classes: null }, sloMs)
  if (whole.fault === 'backlog') return { ...whole, cls: null, classes: null }
  const calls = fig.classes.map((c) => {
    const target = c.sloMs ?? sloMs
    return { name: c.name, sloMs: target, ...judge(classRound(c), target) }
  })
  const share = (v) => (v.n > 0 && typeof v.over === 'number' ? v.over / v.n : 0)
  const worse = (v, a) =>
    SEVERITY[v.call] > SEVERITY[a.call] || (SEVERITY[v.call] === SEVERITY[a.call] && share(v) > share(a))
  const worst = calls.reduce((a, v) => (worse(v, a) ? v : a))
  const { name, sloMs: target, ...verdict } = worst
  return {
    ...verdict,
    why: verdict.call === 'fail'
      ? { code: 'class-fail', cls: name, sloMs: target, fault: verdict.fault ?? null, failed: verdict.failed ?? null }
      : null,
    cls: name,
    classes: calls.map((v) => ({ name: v.name, call: v.call, sloMs: v.sloMs }))
  }
}

// How many times a step's requests a mix needs so that its smallest class (its weight over the total)
// reaches the sample that can show its p99 (SAMPLE.classMargin over its share): 1 without a mix.
export function requestFactor (mix) {
  if (!mix || mix.requests.length < 2) return 1
  return SAMPLE.classMargin / Math.min(...sharesOf(mix.requests))
}

// What limits a mixed capacity: the lowest failing step above the capacity (or, none held, the lowest
// failing step) and the class that decided it: { name, rate, why (the step's, in words), backlogGrew }, name
// null and backlogGrew true when the mix failed whole (its backlog grew); null when no step failed.
export function limitingClass (result) {
  const steps = result?.capacity?.steps ?? []
  const rps = result?.capacity?.capacity?.rps ?? 0
  const failed = steps.filter((s) => s.call === 'fail' && (s.rate ?? 0) > rps).sort((a, b) => a.rate - b.rate)
  const s = failed[0]
  if (!s) return null
  const backlogGrew = !s.why && Boolean(s.backlog?.growing)
  return { name: s.cls ?? null, rate: roundTo(s.rate, 1), why: s.why ?? null, backlogGrew }
}

const rateOf = (c, durationMs) => (durationMs > 0 ? (c.requests.completed * 1000) / durationMs : 0)

// Shards' figures per class as one (npm run merge): classes matched by name, counts summed, histograms
// added, rates from each shard's answers over its own duration (`durationsMs`, one per list), the first
// shard's targets; null when the shards carry none. The merge checked that every shard has its mix's classes.
export function mergeClasses (lists, durationsMs) {
  if (!lists.length || lists.some((l) => !Array.isArray(l))) return null
  return lists[0].map((c) => {
    const all = lists.map((l) => l.find((x) => x.name === c.name))
    if (all.some((x) => !x)) throw new RangeError(`class ${c.name} is not in every shard`)
    const h = decodeHistogram(all[0].histogram)
    for (const x of all.slice(1)) h.add(decodeHistogram(x.histogram))
    const sum = (f) => all.reduce((a, x) => a + x.requests[f], 0)
    const requests = Object.fromEntries(Object.keys(c.requests).map((f) => [f, sum(f)]))
    const s = summarizeHistogram(h)
    return {
      ...c,
      requests,
      rps: roundTo(all.reduce((a, x, k) => a + rateOf(x, durationsMs[k]), 0), 3),
      latency: {
        count: s.count, p50: s.p50, p97_5: s.p97_5, p99: s.p99, p99_9: s.p99_9, max: s.max, censored: requests.timeouts
      },
      histogram: encodeHistogram(h),
      mismatchSample: all.map((x) => x.mismatchSample).find(Boolean) ?? null,
      ...(c.phases !== undefined ? { phases: null } : {}) // each shard's own: figures do not add up (result/phases.js)
    }
  })
}
