// The API's refusals (index.js): a value of the wrong kind in runLab's second argument, in an option that
// takes an object (header, input, startAt) or in startServer's arguments rejects with LAB_USAGE and one
// line that says what was wrong, before anything starts. Each case carries `bogus: 1` after the bad value:
// were the value let through, the run would still not start (the unknown option refuses it), and the
// message would name --bogus instead.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runLab, startServer } from '../../index.js'

const refusal = (promise) => promise.then(() => assert.fail('not refused'), (err) => err)

function assertUsage (err, message) {
  assert.equal(err.name, 'LabError', err.stack)
  assert.equal(err.code, 'LAB_USAGE')
  assert.equal(err.exitCode, 2)
  assert.equal(err.message, message)
}

test('runLab: a signal not an AbortSignal (object, string, null) is refused; so is a bad onProgress', async () => {
  const options = { server: ['simple'], amount: 4, connections: 1, out: false, bogus: 1 }
  for (const [signal, kind] of [[{ aborted: false }, 'object'], ['yes', 'string'], [null, 'null']]) {
    assertUsage(await refusal(runLab(options, { signal })), `runLab: expected signal to be an AbortSignal, got ${kind}`)
  }
  const progress = await refusal(runLab(options, { onProgress: 'log' }))
  assertUsage(progress, 'runLab: expected onProgress to be a function, got string')
  const fine = await refusal(runLab(options, { signal: new AbortController().signal }))
  assert.match(fine.message, /bogus/, 'a real signal passes: the next refusal is the unknown option')
})

test('runLab: header as an array of objects or a value not text is refused (never `0: [object Object]`)', async () => {
  assertUsage(await refusal(runLab({ header: [{ authorization: 'x' }], bogus: 1 })),
    '--header: expected `Name: value` strings or one object of names and values, got an array holding object')
  assertUsage(await refusal(runLab({ header: { authorization: { token: 'x' } }, bogus: 1 })),
    '--header: the value of `authorization` must be a string or a number, got object')
})

test('runLab: startAt an invalid Date and a circular input are usage errors with a code, not raw errors', async () => {
  assertUsage(await refusal(runLab({ startAt: new Date(NaN), bogus: 1 })),
    '--start-at: expected a valid Date, got an invalid Date')
  const input = { a: 1 }
  input.self = input
  const circular = await refusal(runLab({ task: 'x.js', input, bogus: 1 }))
  assert.equal(circular.code, 'LAB_USAGE')
  assert.match(circular.message, /^--input: cannot be written as JSON: Converting circular structure to JSON/)
  assert.ok(!circular.message.includes('\n'), 'one line')
  const big = await refusal(runLab({ task: 'x.js', input: { n: 1n }, bogus: 1 }))
  assert.match(big.message, /^--input: cannot be written as JSON: /)
})

test('startServer: flags as a string, or a name that is not a string, say what was wrong', async () => {
  assertUsage(await refusal(startServer('simple', '--work loop:1e5')),
    'startServer: expected flags as an object or an array of words, got string')
  assertUsage(await refusal(startServer({ name: 'simple' })),
    'startServer: expected the server\'s name as a string, got object')
  assertUsage(await refusal(startServer('simple', null)),
    'startServer: expected flags as an object or an array of words, got null')
  assertUsage(await refusal(startServer('simple', { bogus: [{}] })),
    '--bogus: expected a string, a number, a boolean or an array of them, got an array')
})
