// Response bodies checked as they stream: a sha256 and a length against the reference, never the whole
// body in memory. What is kept of a body (its head, for a sample) is capped; a longer body is flagged.
import { createHash } from 'node:crypto'

// The default cap on what is kept of one response body, in bytes (--max-body): a body longer than this is
// still verified whole (by hash and length), only its first bytes are kept.
export const DEFAULT_MAX_BODY = 1 << 20

// The characters of a body shown in a result's mismatch sample.
const SAMPLE_CHARS = 200

// The reference a body must match, from the expected body (a string or a Buffer): { sha256, bytes }.
export function bodyReference (expected) {
  const buf = typeof expected === 'string' ? Buffer.from(expected, 'utf8') : expected
  return { sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length }
}

// One body as it streams: update(chunk) for each chunk, end() → { bytes, sha256, overCap, head } where
// head is its first maxBody bytes (a string) and overCap says the body was longer than that.
export function startBody (maxBody = DEFAULT_MAX_BODY) {
  const hash = createHash('sha256')
  const kept = []
  let bytes = 0
  let keptBytes = 0
  return {
    update (chunk) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
      hash.update(buf)
      bytes += buf.length
      if (keptBytes < maxBody) {
        const part = buf.subarray(0, maxBody - keptBytes)
        kept.push(Buffer.from(part)) // a copy: the chunk's memory may be a parser's reused buffer
        keptBytes += part.length
      }
    },
    end () {
      return { bytes, sha256: hash.digest('hex'), overCap: bytes > maxBody, head: Buffer.concat(kept).toString('utf8') }
    }
  }
}

// Whether an ended body matches a reference ({ sha256, bytes }): the same length and the same hash.
export function matches (body, reference) {
  return body.bytes === reference.bytes && body.sha256 === reference.sha256
}

// A mismatch sample: the body's first characters, and its size and hash against the reference's when
// they differ in length (a body over the cap says so).
export function mismatchSample (body, reference) {
  const head = body.head.slice(0, SAMPLE_CHARS)
  if (!reference || body.bytes === reference.bytes) return head
  const cap = body.overCap ? ', over the cap: only its head kept' : ''
  return `${body.bytes} B (expected ${reference.bytes} B${cap}): ${head}`
}

// A round's body verifier. `expected`: the reference every 2xx body must match ({ sha256, bytes }), or
// null (the first 2xx body becomes the reference). start() begins a body; settle(body, status) ends it
// (null: an empty body) → { ok, sample }: whether it matches (a non-2xx body always does: it is counted
// by its status) and, when not, a mismatch sample. figures() → { maxBytes, overCap, largestBytes }.
export function createVerifier ({ expected = null, maxBody = DEFAULT_MAX_BODY } = {}) {
  let reference = expected
  const counts = { maxBytes: maxBody, overCap: 0, largestBytes: 0 }
  return {
    start: () => startBody(maxBody),
    settle (body, status) {
      const ended = (body ?? startBody(maxBody)).end()
      if (ended.overCap) counts.overCap++
      counts.largestBytes = Math.max(counts.largestBytes, ended.bytes)
      if (!(status >= 200 && status < 300)) return { ok: true, sample: null }
      reference ??= { sha256: ended.sha256, bytes: ended.bytes }
      const ok = matches(ended, reference)
      return { ok, sample: ok ? null : mismatchSample(ended, reference) }
    },
    figures: () => ({ ...counts })
  }
}
