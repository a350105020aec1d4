// A request mix (loadtest/result/mix.js): the file's checks, its defaults, its identity, the closed
// loop's weighted cycle and the figures per class.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  CLASS_DEFAULTS, MAX_REQUEST_BODY, MixError, builtInMix, checkMix, classFigures, isBuiltInSpec, parseMix, weightedCycle
} from '../../../loadtest/result/mix.js'
import { createHistogram, recordMs } from '../../../loadtest/result/histogram.js'
import { ROOT } from '../../../loadtest/catalog.js'

const cheap = { name: 'cheap', weight: 80, path: '/api/items?id=7' }

test('a mix file: required keys, every default filled in, a name and a hash', () => {
  const mix = parseMix(readFileSync(join(ROOT, 'test', 'fixtures', 'mixes', 'two-classes.json'), 'utf8'), 'two-classes')
  assert.equal(mix.name, 'two-classes')
  assert.match(mix.hash, /^[0-9a-f]{12}$/)
  assert.deepEqual(mix.requests[0], { ...CLASS_DEFAULTS, name: 'cheap', weight: 80, path: '/api/items?id=7', sloMs: 50 })
  assert.equal(mix.requests[1].method, 'POST')
  assert.deepEqual(mix.requests[1].expect, { status: 200 })
  // the hash is the classes' own: a change of any of them changes it, the file's name does not
  const again = checkMix({ requests: [cheap] }, 'a')
  assert.equal(checkMix({ requests: [cheap] }, 'b').hash, again.hash)
  assert.notEqual(checkMix({ requests: [{ ...cheap, weight: 79 }] }, 'a').hash, again.hash)
})

test('every fault in a mix is one line naming the entry and the key', () => {
  const cases = [
    [{ requests: [{ ...cheap, colour: 'red' }] }, /^requests\[0\] \(cheap\): colour: unknown key/],
    [{ requests: [{ ...cheap, weight: 0 }] }, /^requests\[0\] \(cheap\): weight: expected a number > 0, got 0$/],
    [{ requests: [{ ...cheap, weight: -3 }] }, /weight: expected a number > 0, got -3/],
    [{ requests: [{ ...cheap, method: 'FETCH' }] }, /^requests\[0\] \(cheap\): method: expected one of GET, POST/],
    [{ requests: [{ ...cheap, method: 'HEAD' }] }, /method: expected one of/],
    [{ requests: [{ ...cheap, path: 'api/items' }] }, /^requests\[0\] \(cheap\): path: expected a path starting with \//],
    [{ requests: [{ ...cheap, body: 'x'.repeat(MAX_REQUEST_BODY + 1) }] }, /body: expected at most 65536 bytes, got "65537 bytes"/],
    [{ requests: [{ ...cheap, body: { rows: 1 } }] }, /body: expected a string/],
    [{ requests: [{ ...cheap, headers: { 'content-length': '5' } }] }, /headers\.content-length: set by the lab itself/],
    [{ requests: [{ ...cheap, headers: { 'x-a': 'one\r\ntwo' } }] }, /headers\.x-a: expected printable ASCII on one line/],
    [{ requests: [{ ...cheap, expect: { status: 500 } }] }, /expect\.status: expected a 2xx status, got 500/],
    [{ requests: [{ ...cheap, expect: { sha256: 'abc' } }] }, /expect\.sha256: expected 64 hex digits/],
    [{ requests: [{ ...cheap, expect: { body: 'x' } }] }, /expect\.body: unknown key/],
    [{ requests: [{ ...cheap, sloMs: 0 }] }, /sloMs: expected a number of ms > 0/],
    [{ requests: [cheap, { ...cheap, weight: 1 }] }, /^requests\[1\] \(cheap\): name: given twice/],
    [{ requests: [{ weight: 1, path: '/' }] }, /^requests\[0\]: name: required$/],
    [{ requests: [{ name: 'x', path: '/' }] }, /^requests\[0\] \(x\): weight: required$/],
    [{ requests: [] }, /^requests: expected a non-empty array/],
    [{ classes: [] }, /^classes: unknown key/]
  ]
  for (const [json, expected] of cases) {
    assert.throws(() => checkMix(json, 'm'), (err) => {
      assert.ok(err instanceof MixError)
      assert.match(err.message, expected)
      assert.doesNotMatch(err.message, /\n/)
      return true
    }, JSON.stringify(json).slice(0, 80))
  }
  assert.throws(() => parseMix('{ "requests": [', 'm'), { message: /^not JSON: / })
})

test('the built-in mix: heavy is GET / (the strategy\'s work), cheap a request of almost none', () => {
  assert.ok(isBuiltInSpec('heavy:80,cheap:20'))
  assert.ok(!isBuiltInSpec('mix.json'))
  assert.ok(!isBuiltInSpec('heavy:80,other:20'))
  const mix = builtInMix('heavy:80,cheap:20')
  assert.equal(mix.builtIn, true)
  assert.deepEqual(mix.requests.map((c) => [c.name, c.weight, c.method, c.path]), [
    ['heavy', 80, 'GET', '/'], ['cheap', 20, 'GET', '/cheap']
  ])
})

test('the closed loop\'s cycle: exact shares for integer weights, interleaved', () => {
  const cycle = weightedCycle([{ weight: 80 }, { weight: 20 }])
  assert.deepEqual(cycle, [0, 0, 1, 0, 0]) // 4:1 in five slots, the light class not at an end
  const three = weightedCycle([{ weight: 1 }, { weight: 2 }, { weight: 3 }])
  assert.equal(three.length, 6)
  assert.deepEqual([0, 1, 2].map((k) => three.filter((x) => x === k).length), [1, 2, 3])
  const odd = weightedCycle([{ weight: 0.3 }, { weight: 0.7 }]) // not integers: MAX_CYCLE slots
  assert.equal(odd.filter((x) => x === 0).length, 300)
})

test('figures per class: counts, rate over the round, percentiles, histogram', () => {
  const latency = createHistogram()
  for (let i = 1; i <= 100; i++) recordMs(latency, i)
  const raw = [{ name: 'cheap', sent: 100, completed: 100, ok: 99, non2xx: 1, errors: 0, timeouts: 0, mismatches: 0, latency }]
  const [c] = classFigures(raw, 2000)
  assert.equal(c.rps, 50)
  assert.equal(c.latency.count, 100)
  assert.ok(Math.abs(c.latency.p99 - 99) < 0.2, `p99 ${c.latency.p99}`)
  assert.equal(typeof c.histogram, 'string')
  assert.equal(classFigures(null, 1), null)
})
