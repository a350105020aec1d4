// run/body.js: bodies verified as they stream (hash and length), what is kept of them capped.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { DEFAULT_MAX_BODY, bodyReference, createVerifier, matches, startBody } from '../../../loadtest/run/body.js'

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
  assert.deepEqual(bodyReference('héllo'), { sha256: small.sha256, bytes: 6 }, 'bytes are UTF-8 bytes, not characters')
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
  assert.equal(v.figures().maxBytes, DEFAULT_MAX_BODY)
})
