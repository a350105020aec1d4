// Options accepted without a word before (issue 19, item 12): hexadecimal numbers, --slo outside the
// capacity experiment, --seed with constant arrivals, an option given twice, an infinite threshold, a
// bare efficiency of 80 (8000 %), and a 100 kB value echoed whole. Each is a usage error (exit 2) in
// one line of bounded length; the forms that mean what they say still parse.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseOptions } from '../../loadtest/options.js'
import { parseFailOn } from '../../loadtest/compare/compare.js'

function refused (argv, why) {
  assert.throws(() => parseOptions(argv), (err) => {
    assert.equal(err.exitCode, 2, `${argv.join(' ')}: ${err.stack}`)
    assert.match(err.message, why)
    assert.ok(err.message.length < 600, `${err.message.length} characters`)
    assert.doesNotMatch(err.message, /\n/)
    return true
  }, argv.join(' ').slice(0, 80))
}

test('numbers are decimal: --rate 0x10, 0b1, " 5" and "" are refused; 16, 1e2 and .5 are read', () => {
  for (const v of ['0x10', '0b1', ' 5', '', '1_0']) refused(['--rate', v], /--rate: expected a number from 0\.1 to 100000/)
  refused(['--connections', '0x2'], /--connections: expected an integer/)
  assert.equal(parseOptions(['--rate', '16']).rate, 16)
  assert.equal(parseOptions(['--rate', '1e2']).rate, 100)
  assert.equal(parseOptions(['--rate', '.5']).rate, 0.5)
})

test('--slo goes with the capacity experiment; --seed with poisson arrivals', () => {
  refused(['--slo', '50'], /^--slo goes with --experiment capacity/)
  refused(['--server', 'simple', '--slo', '50'], /^--slo goes with --experiment capacity/)
  assert.equal(parseOptions(['--experiment', 'capacity', '--slo', '50']).slo, 50)
  refused(['--rate', '5', '--seed', '3'], /^--seed goes with --arrival poisson/)
  refused(['--rate', '5', '--arrival', 'constant', '--seed', '3'], /^--seed goes with --arrival poisson/)
  assert.equal(parseOptions(['--rate', '5', '--arrival', 'poisson', '--seed', '3']).seed, 3)
})

test('an option that takes one value, given twice, is refused (the last won silently); --threshold repeats, a flag may', () => {
  refused(['--rate', '5', '--rate', '6'], /^--rate given 2 times \(5, 6\): give it once$/)
  assert.equal(parseOptions(['--quick', '--quick']).quick, true, 'a flag twice means it once')
  refused(['--label', 'a', '--label=b'], /^--label given 2 times \(a, b\)/)
  assert.equal(parseOptions(['--threshold', 'p99<500', '--threshold', 'rps>1']).threshold.length, 2)
})

test('thresholds: 1e999 is refused, a bare efficiency over 1 is refused with the % it would mean; 80% and 0.8 agree', () => {
  refused(['--threshold', 'p99<1e999'], /"p99<1e999": 1e999 is past the largest number/)
  refused(['--threshold', 'efficiency>80'], /efficiency 80 reads as a fraction, 8000 %: write 80% \(or 0\.8\)/)
  const [pct] = parseOptions(['--threshold', 'efficiency>80%']).threshold
  const [frac] = parseOptions(['--threshold', 'efficiency>0.8']).threshold
  assert.equal(pct.value, frac.value)
})

test('a 100 kB value is not echoed whole: the message is clipped and says the length', () => {
  const huge = 'p99<' + '9'.repeat(100_000) + 'x'
  refused(['--threshold', huge], /"p99<9{60,}… \(100007 characters\)/)
  refused(['--rate', '9'.repeat(100_000)], /… \(100000 characters\)/)
  assert.throws(() => parseFailOn('p99:' + '+'.repeat(100_000)), (err) => err.message.length < 600 && /characters\)/.test(err.message))
})
