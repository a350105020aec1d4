// Histograms read back (result/histogram.js): the lab's own round-trip exactly, and an encoded string
// past DECODE_LIMITS (too many significant digits, a range needing millions of counts, a payload that
// inflates without end) is refused with a RangeError before anything big is allocated (issue 19, item 16).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deflateSync, inflateSync } from 'node:zlib'
import {
  COARSE_DIGITS, createHistogram, DECODE_LIMITS, decodeHistogram, encodeHistogram, mergeEncoded, recordMs
} from '../../../loadtest/result/histogram.js'

function sample (digits) {
  const h = createHistogram({ digits })
  for (let ms = 0.01; ms < 7_200_000; ms *= 1.7) recordMs(h, ms) // 10 µs to two hours (past the initial hour)
  return h
}

// A real encoding with its inflated payload changed by `edit` and `extra` bytes appended, re-wrapped.
function crafted (edit, extra = Buffer.alloc(0)) {
  const bytes = Buffer.from(encodeHistogram(sample(3)), 'base64')
  const raw = inflateSync(bytes.subarray(8))
  edit(raw)
  const z = deflateSync(Buffer.concat([raw, extra]))
  const head = Buffer.alloc(8)
  head.writeInt32BE(bytes.readInt32BE(0), 0)
  head.writeInt32BE(z.length, 4)
  return Buffer.concat([head, z]).toString('base64')
}

test("the lab's histograms (both precisions, values past an hour) decode and merge exactly", () => {
  for (const digits of [3, COARSE_DIGITS]) {
    const h = sample(digits)
    const back = decodeHistogram(encodeHistogram(h))
    assert.equal(back.totalCount, h.totalCount)
    assert.equal(back.getValueAtPercentile(99), h.getValueAtPercentile(99))
    assert.equal(mergeEncoded([encodeHistogram(h), encodeHistogram(h)]).totalCount, 2 * h.totalCount)
  }
})

test('a histogram past the decode limits is a RangeError naming the bound, before it is allocated', () => {
  const refused = (text, why) => assert.throws(() => decodeHistogram(text), (err) => {
    assert.ok(err instanceof RangeError, err.stack)
    assert.match(err.message, why)
    return true
  })
  refused(crafted((raw) => raw.writeInt32BE(6, 12)), /6 significant digits \(0 to 5\)/)
  refused(crafted((raw) => { raw.writeInt32BE(5, 12); raw.writeBigInt64BE(2n ** 62n, 24) }), /would hold \d+ counts, over 1048576/)
  const bomb = crafted(() => {}, Buffer.alloc(DECODE_LIMITS.inflatedBytes * 4))
  assert.ok(bomb.length < 200_000, `a ${bomb.length}-character string`)
  refused(bomb, /inflates past 8388608 bytes/)
  refused('x'.repeat(DECODE_LIMITS.chars + 1), /characters, over/)
  refused('AAAAAAAAAAAA', /no V2 compressed cookie/)
  assert.throws(() => mergeEncoded([encodeHistogram(sample(3)), bomb]), RangeError)
})
