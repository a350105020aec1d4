// Bodies checked as they stream (run/body-stream.js): the open loop's verifier, never keeping a body whole.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { streamingBodyCheck } from '../../../loadtest/run/body-stream.js'

test('bodies checked as they stream: split anywhere, a byte or a length off is a mismatch, only a sample kept', () => {
  const body = (check, ...chunks) => {
    const b = check.begin()
    for (const c of chunks) b.update(Buffer.from(c))
    return b.end(true)
  }
  const exact = streamingBodyCheck('{"sum":4950}')
  assert.equal(body(exact, '{"su', 'm":49', '50}'), true)
  assert.equal(body(exact, '{"sum":4951}'), false)
  assert.equal(body(exact, '{"sum":4950}', ' '), false, 'longer')
  assert.equal(body(exact, '{"sum":495'), false, 'shorter')
  const first = streamingBodyCheck(null)
  assert.equal(body(first, 'a'.repeat(5000)), true, 'the first body is the reference')
  assert.deepEqual(first.reference, { length: 5000, sha256: first.reference.sha256, from: 'first 2xx response' })
  assert.equal(body(first, 'a'.repeat(2500), 'a'.repeat(2500)), true)
  assert.equal(body(first, 'a'.repeat(4999), 'b'), false)
  const b = first.begin()
  b.update(Buffer.from('x'.repeat(300)))
  assert.equal(b.text.length, 200, 'a mismatch keeps its first 200 bytes only')
})

test('a mismatch against the expected body keeps the body\'s first bytes, matched prefix included', () => {
  const check = streamingBodyCheck('{"sum":4950}')
  const b = check.begin()
  for (const c of ['{"su', 'm":49', '99}']) b.update(Buffer.from(c))
  assert.equal(b.end(true), false)
  assert.equal(b.text, '{"sum":4999}')
})
