// run/round/overload.js handOff: the lab's one resolution of a shedding variant's C, target and flags from
// its base strategy's result in this run, before the variant's server starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { handOff } from '../../../../loadtest/run/round/overload.js'
import { variants } from '../../../../loadtest/catalog.js'

const deadline = variants(['queued-threads'], 'overload').find((v) => v.variant === 'deadline')
const WORK = 'sleep-sync:20'

// The variant's plan entry as experiments/overload.js writes it (`capacity`: a --capacity-from file's).
function variantEntry ({ capacity = null, runtime = null } = {}) {
  return {
    server: 'queued-threads',
    variant: 'deadline',
    args: ['--work', WORK],
    work: WORK,
    runtime,
    argsFor: deadline.argsFor,
    overload: { settings: {}, base: 'queued-threads', capacity }
  }
}

// The base strategy's result in this run: its overload block's C and target, its sweep's service time.
function baseResult ({ rps = 90, sloMs = 200, serviceMs = 21.5, runtime = null, work = WORK } = {}) {
  return {
    kind: 'http',
    server: 'queued-threads',
    variant: null,
    work,
    runtime,
    capacity: serviceMs === null ? null : { serviceMs },
    overload: { capacityRps: rps, sloMs }
  }
}

test('handOff: an entry that is no shedding variant runs as planned', () => {
  const entry = { server: 'simple', args: ['--work', WORK], work: WORK, overload: { settings: {}, capacity: null } }
  assert.equal(handOff(entry, [baseResult()], 20), entry)
  const plain = { server: 'simple', args: [], work: WORK }
  assert.equal(handOff(plain, [], 20), plain)
})

test('handOff: a variant runs at its base\'s C and target, its flags at that target and the base sweep\'s service time', () => {
  const run = handOff(variantEntry(), [baseResult()], 20)
  assert.deepEqual(run.overload.capacity, { rps: 90, sloMs: 200, from: 'queued-threads in this run' })
  assert.deepEqual(run.args, ['--work', WORK, '--deadline', 'auto', '--slo', '200', '--service-ms', '21.5'])
  assert.equal(run.argsFor, undefined, 'the flags are resolved: nothing is left to call at run time')
  // a base without a sweep (its C from a file): the service time calibrated here
  const noSweep = handOff(variantEntry(), [baseResult({ serviceMs: null })], 20)
  assert.deepEqual(noSweep.args.slice(-2), ['--service-ms', '20'])
})

test('handOff: a C the plan read (--capacity-from) stays; the flags still stand on the base\'s target', () => {
  const file = { rps: 50, sloMs: 200, from: 'capacity.json', serviceMs: 19, runtime: null }
  const run = handOff(variantEntry({ capacity: file }), [baseResult({ serviceMs: null })], 20)
  assert.equal(run.overload.capacity, file)
  assert.deepEqual(run.args.slice(2), ['--deadline', 'auto', '--slo', '200', '--service-ms', '20'])
})

test('handOff: no base C in this run refuses the variant; no base target, no flags', () => {
  const refused = { refused: 'no capacity of queued-threads in this run to run its variant at' }
  // the base found no capacity at its target: refused, its flags at that target all the same
  const noC = handOff(variantEntry(), [baseResult({ rps: null })], 20)
  assert.deepEqual(noC.overload.capacity, refused)
  assert.deepEqual(noC.args.slice(2, 4), ['--deadline', 'auto'])
  // no base result of this work or this runtime (another's C is not this one's)
  for (const results of [[], [baseResult({ work: 'loop:1e5' })], [baseResult({ runtime: { label: 'bun' } })]]) {
    const run = handOff(variantEntry(), results, 20)
    assert.deepEqual(run.overload.capacity, refused)
    assert.deepEqual(run.args, ['--work', WORK])
  }
  // the same runtime is found
  const bun = { label: 'bun' }
  const onBun = handOff(variantEntry({ runtime: bun }), [baseResult(), baseResult({ rps: 70, runtime: bun })], 20)
  assert.equal(onBun.overload.capacity.rps, 70)
})
