// Response bodies checked as they stream, never the whole body in memory. Against a reference that
// holds its bytes, each chunk is compared in place with the reference's bytes at the same offset (no
// copy, no hash); without one (the first 2xx body of a round, or a reference of only a hash) a sha256
// and a length. What is kept of a body (its head, for a mismatch sample) is capped; a longer body is
// flagged. A body that matches keeps nothing: its head is the reference's.
import { createHash } from 'node:crypto'
import { DEFAULTS } from '../../settings.js'

// The default cap on what is kept of one response body, in bytes (--max-body, settings.js): a body longer
// than this is still verified whole (by bytes or hash, and length), only its first bytes are kept.
const DEFAULT_MAX_BODY = DEFAULTS['max-body']

// The characters of a body shown in a result's mismatch sample.
const SAMPLE_CHARS = 200

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex')

// A Buffer over a reference's bytes (a Buffer, or the Uint8Array a thread's structured clone makes of it).
function asBuffer (bytes) {
  if (!bytes) return null
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

// The reference a body must match, from the expected body (a string or a Buffer): { sha256, bytes, body }
// (body: the bytes themselves, what the stream is compared against).
export function bodyReference (expected) {
  const src = typeof expected === 'string' ? Buffer.from(expected, 'utf8') : expected
  const body = Buffer.alloc(src.length) // its own memory (not the shared pool), so a thread's copy is small
  src.copy(body)
  return { sha256: sha256(body), bytes: body.length, body }
}

// One body as it streams: update(chunk) for each chunk, end() → { bytes, sha256, same, overCap, head }.
// With `against` (the reference's bytes) each chunk is compared in place: `same` says whether every byte
// so far matched (sha256 null); without it, `sha256` is the body's hash (same null). `head` is the body's
// first maxBody bytes (a string), overCap whether the body was longer than that.
export function startBody (maxBody = DEFAULT_MAX_BODY, against = null) {
  return new StreamedBody(maxBody, asBuffer(against))
}

class StreamedBody {
  constructor (maxBody, against) {
    this.maxBody = maxBody
    this.against = against
    this.same = against !== null
    this.hash = against === null ? createHash('sha256') : null
    this.kept = against === null ? [] : null // a matching body keeps nothing until it differs
    this.keptBytes = 0
    this.bytes = 0
  }

  update (chunk) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    const at = this.bytes
    this.bytes += buf.length
    if (this.hash !== null) this.hash.update(buf)
    else if (this.same) {
      const ref = this.against
      if (this.bytes <= ref.length && ref.compare(buf, 0, buf.length, at, this.bytes) === 0) return
      this.same = false
      this.keep(ref.subarray(0, Math.min(at, ref.length))) // the bytes so far were the reference's
    }
    this.keep(buf)
  }

  // Keep a copy of the next bytes of the head, up to maxBody (the chunk's memory may be a reused buffer).
  keep (buf) {
    if (this.kept === null) this.kept = []
    if (this.keptBytes >= this.maxBody) return
    const part = buf.subarray(0, this.maxBody - this.keptBytes)
    this.kept.push(Buffer.from(part))
    this.keptBytes += part.length
  }

  end () {
    const { bytes, maxBody } = this
    const headBytes = this.kept === null
      ? this.against.subarray(0, Math.min(bytes, maxBody)) // a view: nothing copied for a matching body
      : (this.kept.length === 1 ? this.kept[0] : Buffer.concat(this.kept))
    const sha256 = this.hash === null ? null : this.hash.digest('hex')
    return new EndedBody(bytes, sha256, this.hash === null ? this.same : null, bytes > maxBody, headBytes)
  }
}

// An ended body; its head as text is made only when read (a mismatch sample).
class EndedBody {
  constructor (bytes, sha256, same, overCap, headBytes) {
    this.bytes = bytes
    this.sha256 = sha256
    this.same = same
    this.overCap = overCap
    this.headBytes = headBytes
  }

  get head () {
    return this.headBytes.toString('utf8')
  }
}

// Whether an ended body matches a reference ({ sha256, bytes }): the same length and the same bytes (when
// compared as it streamed) or the same hash.
export function matches (body, reference) {
  if (body.bytes !== reference.bytes) return false
  return body.same === null || body.same === undefined ? body.sha256 === reference.sha256 : body.same
}

// A mismatch sample: the body's first characters, and its size and hash against the reference's when
// they differ in length (a body over the cap says so).
function mismatchSample (body, reference) {
  const head = body.head.slice(0, SAMPLE_CHARS)
  if (!reference || body.bytes === reference.bytes) return head
  const cap = body.overCap ? ', over the cap: only its head kept' : ''
  return `${body.bytes} B (expected ${reference.bytes} B${cap}): ${head}`
}

// A round's body verifier. `expected`: the reference every 2xx body must match ({ sha256, bytes, body? }),
// null (the first 2xx body becomes the reference, its bytes kept when it fits in maxBody), or false (no
// body is compared: a --url service whose answers may differ every time, a counter or a clock). start()
// begins a body (compared byte by byte when the reference's bytes are known, else hashed); settle(body,
// status) ends it (null: an empty body) → { ok, sample }: whether it matches (a non-2xx body always does:
// it is counted by its status) and, when not, a mismatch sample. figures() → { maxBytes, overCap,
// largestBytes }.
export function createVerifier ({ expected = null, maxBody = DEFAULT_MAX_BODY } = {}) {
  let reference = expected
  let against = asBuffer(expected?.body)
  const counts = { maxBytes: maxBody, overCap: 0, largestBytes: 0 }
  return {
    start: () => startBody(maxBody, against),
    settle (body, status) {
      const ended = (body ?? startBody(maxBody, against)).end()
      if (ended.overCap) counts.overCap++
      if (ended.bytes > counts.largestBytes) counts.largestBytes = ended.bytes
      if (!(status >= 200 && status < 300) || reference === false) return { ok: true, sample: null }
      if (reference === null) {
        reference = { sha256: ended.sha256, bytes: ended.bytes }
        // The first body becomes the reference; its bytes (whole, within the cap) what the rest are compared to.
        if (!ended.overCap) against = ended.headBytes
      }
      const ok = matches(ended, reference)
      return { ok, sample: ok ? null : mismatchSample(ended, reference) }
    },
    figures: () => ({ ...counts })
  }
}
