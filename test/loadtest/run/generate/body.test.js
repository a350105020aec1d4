// run/generate/body.js: bodies verified as they stream (hash and length), what is kept of them capped.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { DEFAULTS } from '../../../../loadtest/settings.js'
import { bodyReference, createVerifier, matches, startBody } from '../../../../loadtest/run/generate/body.js'

const feed = (body, chunks) => {
  for (const c of chunks) body.update(c)
  return body.end()
}

test('body: a body streamed in chunks has the hash and length of the whole, and keeps only its head', () => {
  const whole = Buffer.alloc(10_000, 'ab')
  const ended = feed(startBody(100), [whole.subarray(0, 37), whole.subarray(37, 5000), whole.subarray(5000)])
  assert.equal(ended.bytes, 10_000)
  assert.equal(ended.sha256, createHash('sha256').update(whole).digest('hex'))
  assert.equal(ended.head.length, 100, 'only the first maxBody bytes are kept')
  assert.equal(ended.overCap, true)
  assert.ok(matches(ended, bodyReference(whole)), 'a body over the cap still matches its reference whole')
  const small = feed(startBody(100), ['héllo'])
  assert.equal(small.overCap, false)
  assert.equal(small.head, 'héllo')
  const { sha256, bytes, body } = bodyReference('héllo')
  assert.deepEqual({ sha256, bytes }, { sha256: small.sha256, bytes: 6 }, 'bytes are UTF-8 bytes, not characters')
  assert.ok(body.equals(Buffer.from('héllo')), 'the reference holds its bytes, for the in-place compare')
})

test('body: a kept head is a copy, not a view of a buffer the parser reuses', () => {
  const chunk = Buffer.from('first')
  const body = startBody(100)
  body.update(chunk)
  chunk.fill('x')
  assert.equal(body.end().head, 'first')
})

test('body: same length, other bytes, and the same bytes with one more do not match', () => {
  const ref = bodyReference('{"ok":1}')
  assert.equal(matches(feed(startBody(), ['{"ok":2}']), ref), false)
  assert.equal(matches(feed(startBody(), ['{"ok":1}', ' ']), ref), false)
  assert.equal(matches(feed(startBody(), ['{"ok"', ':1}']), ref), true)
})

test('verifier: against an expected reference, 2xx bodies are judged, non-2xx never; over-cap counted', () => {
  const v = createVerifier({ expected: bodyReference('x'.repeat(50)), maxBody: 10 })
  const body = (s) => {
    const b = v.start()
    b.update(s)
    return b
  }
  assert.equal(v.settle(body('x'.repeat(50)), 200).ok, true)
  const bad = v.settle(body('y'.repeat(60)), 200)
  assert.equal(bad.ok, false)
  assert.match(bad.sample, /^60 B \(expected 50 B, over the cap: only its head kept\): y{10}$/)
  assert.equal(v.settle(body('oops'), 503).ok, true, 'a non-2xx body is counted by its status, not as a mismatch')
  assert.equal(v.settle(null, 200).ok, false, 'an empty body is a body of 0 bytes')
  assert.deepEqual(v.figures(), { maxBytes: 10, overCap: 2, largestBytes: 60 })
})

test('verifier: without an expected body, the first 2xx body is the reference', () => {
  const v = createVerifier()
  const body = (s) => {
    const b = v.start()
    b.update(s)
    return b
  }
  assert.equal(v.settle(body('error page'), 500).ok, true)
  assert.equal(v.settle(body('first'), 200).ok, true)
  assert.equal(v.settle(body('first'), 200).ok, true)
  const other = v.settle(body('other'), 200)
  assert.equal(other.ok, false)
  assert.equal(other.sample, 'other', 'same length: the sample is the body itself')
  assert.equal(v.figures().maxBytes, DEFAULTS['max-body'])
})

test('body: against the reference\'s bytes, one different byte, a short body and a long one are caught, in any chunking', () => {
  const whole = Buffer.from('{"sum":4950,"pad":"' + 'z'.repeat(3000) + '"}')
  const ref = bodyReference(whole)
  const chunked = (buf, cuts) => {
    const b = startBody(100, ref.body)
    let at = 0
    for (const c of [...cuts, buf.length]) {
      b.update(buf.subarray(at, c))
      at = c
    }
    return b.end()
  }
  const same = chunked(whole, [1, 17, 2048])
  assert.equal(same.same, true)
  assert.equal(same.sha256, null, 'compared in place, not hashed')
  assert.ok(matches(same, ref))
  assert.equal(same.head, whole.subarray(0, 100).toString(), 'a matching body\'s head is the reference\'s')
  for (const at of [0, 9, 1500, whole.length - 1]) {
    const other = Buffer.from(whole)
    other[at] ^= 1
    const ended = chunked(other, [5, 1499, 1501])
    assert.equal(matches(ended, ref), false, `one byte changed at ${at}`)
    assert.equal(ended.headBytes.subarray(0, Math.min(100, at)).equals(whole.subarray(0, Math.min(100, at))), true)
    if (at < 100) assert.equal(ended.headBytes[at], other[at], 'a differing body keeps its own bytes as its head')
  }
  const short = chunked(whole.subarray(0, whole.length - 1), [10])
  assert.equal(short.same, true, 'every byte it had matched')
  assert.equal(matches(short, ref), false, 'but one byte short')
  assert.equal(matches(chunked(Buffer.concat([whole, Buffer.from(' ')]), [whole.length]), ref), false, 'one byte long')
  assert.equal(matches(chunked(Buffer.alloc(0), []), ref), false, 'empty')
})

test('verifier: a reference cloned to a thread (a Uint8Array) compares bytes; a first body becomes the byte reference', () => {
  const ref = structuredClone(bodyReference('{"ok":1}'))
  assert.ok(!Buffer.isBuffer(ref.body))
  const v = createVerifier({ expected: ref })
  const started = v.start()
  started.update(Buffer.from('{"ok":1}'))
  assert.equal(v.settle(started, 200).ok, true)
  const bad = v.start()
  bad.update(Buffer.from('{"ok":2}'))
  assert.deepEqual(v.settle(bad, 200), { ok: false, sample: '{"ok":2}' })
  const first = createVerifier()
  const early = first.start() // begun before any reference: hashed
  const a = first.start()
  a.update(Buffer.from([0xff, 0x00, 0x41])) // not UTF-8: the reference is its bytes, not its text
  assert.equal(first.settle(a, 200).ok, true)
  const later = first.start()
  later.update(Buffer.from([0xff, 0x00, 0x41]))
  const ended = first.settle(later, 200)
  assert.equal(ended.ok, true, 'a later body is compared with the first one\'s bytes')
  early.update(Buffer.from([0xff, 0x00, 0x42]))
  assert.equal(first.settle(early, 200).ok, false, 'a hashed body is judged by the first one\'s hash')
})
