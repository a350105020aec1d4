// Checking a response body as it streams in, never keeping it whole: against a known expected body,
// chunk by chunk (bytes and length); without one, the first 2xx body's SHA-256 and length become the
// reference and every later body is hashed as it arrives. Only the first SAMPLE_BYTES of a body are kept,
// for the report's example of a mismatch. (The open loop's verifier: one object per check, one per body.)
import { createHash } from 'node:crypto'

// How much of a body is kept for the report's mismatch example.
export const SAMPLE_BYTES = 200

// A body check: begin() → a per-body state with update(chunk) and end() → true when the body matches.
// `expected`: the body every answer must have (a string), or null to take the first 2xx body's digest.
export function streamingBodyCheck (expected = null) {
  const check = { reference: null, begin: null }
  if (expected !== null) {
    const bytes = Buffer.from(expected)
    check.reference = { length: bytes.length, sha256: digest(bytes), from: 'expected' }
    check.begin = () => new ExactBody(bytes)
  } else {
    check.begin = () => new HashedBody(check)
  }
  return check
}

function digest (bytes) {
  return createHash('sha256').update(bytes).digest('hex')
}

// The first SAMPLE_BYTES of a body, kept across chunks.
function keepSample (state, chunk) {
  if (state.sampleLength >= SAMPLE_BYTES) return
  const part = chunk.subarray(0, SAMPLE_BYTES - state.sampleLength)
  state.sample.push(Buffer.from(part)) // a copy: the chunk's memory is not held past the body
  state.sampleLength += part.length
}

// Against known bytes: each chunk compared in place with the expected bytes at its offset.
class ExactBody {
  constructor (bytes) {
    this.bytes = bytes
    this.length = 0
    this.same = true
    this.sample = []
    this.sampleLength = 0
  }

  // Nothing is copied while the body matches: on its first difference, the sample starts with the
  // expected bytes it matched so far (they are the body's own).
  update (chunk) {
    const end = this.length + chunk.length
    if (this.same) {
      this.same = end <= this.bytes.length && this.bytes.compare(chunk, 0, chunk.length, this.length, end) === 0
      if (!this.same) keepSample(this, this.bytes.subarray(0, this.length))
    }
    if (!this.same) keepSample(this, chunk)
    this.length = end
  }

  // Whether the body was the expected one (`ok2xx` is ignored: the expected body is fixed).
  end () {
    return this.same && this.length === this.bytes.length
  }

  get text () {
    return Buffer.concat(this.sample).toString('utf8')
  }
}

// Against the first 2xx body's digest: every body hashed as it streams.
class HashedBody {
  constructor (check) {
    this.check = check
    this.hash = createHash('sha256')
    this.length = 0
    this.sample = []
    this.sampleLength = 0
  }

  update (chunk) {
    keepSample(this, chunk)
    this.hash.update(chunk)
    this.length += chunk.length
  }

  // Whether the body matches the reference; the first 2xx body (ok2xx) becomes it.
  end (ok2xx = true) {
    const sha256 = this.hash.digest('hex')
    if (this.check.reference === null) {
      if (ok2xx) this.check.reference = { length: this.length, sha256, from: 'first 2xx response' }
      return true
    }
    return this.length === this.check.reference.length && sha256 === this.check.reference.sha256
  }

  get text () {
    return Buffer.concat(this.sample).toString('utf8')
  }
}
