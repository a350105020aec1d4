// result/runtime.js: a runtime's name, and the figures a runtime could not measure, once per runtime.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runtimeName, unmeasuredLines, unmeasuredWhy } from '../../../loadtest/result/runtime.js'
import { unmeasuredText } from '../../../loadtest/text/sentences.js'

test('runtimeName: name and version as the server gave them, else the Node version or the label', () => {
  assert.equal(runtimeName({ name: 'bun', version: '1.4.5', node: 'v24.3.0', label: 'bun' }), 'bun 1.4.5')
  assert.equal(runtimeName({ node: 'v24.21.0' }), 'v24.21.0')
  assert.equal(runtimeName({ name: 'deno', label: 'deno' }), 'deno', 'no version: the label')
  assert.equal(runtimeName(null), null)
  assert.equal(runtimeName({}), null)
})

test('unmeasuredLines: one line per runtime and instrument, counting the runs; a measured figure says nothing', () => {
  const bun = { name: 'bun', version: '1.4.5' }
  const run = (runtime, unmeasured) => ({ runtime, telemetry: { unmeasured } })
  const results = [
    run(bun, { eventLoop: 'no histogram' }),
    run(bun, { eventLoop: 'no histogram', elu: 'no ELU' }),
    run({ node: 'v24.21.0' }, {}),
    run(null, { elu: 'no ELU' }),
    run(bun, { eventLoop: '' }) // an empty reason is none
  ]
  assert.deepEqual(unmeasuredLines(results), [
    { runtime: 'bun 1.4.5', what: 'eventLoop', why: 'no histogram', runs: 2 },
    { runtime: 'bun 1.4.5', what: 'elu', why: 'no ELU', runs: 1 },
    { runtime: null, what: 'elu', why: 'no ELU', runs: 1 }
  ])
  assert.deepEqual(unmeasuredLines(null), [])
  assert.equal(unmeasuredWhy(results[4], 'eventLoop'), null)
  assert.equal(unmeasuredWhy({ telemetry: { unmeasured: { elu: 5 } } }, 'elu'), null, 'a reason is a string')
  assert.equal(unmeasuredText(unmeasuredLines(results)[0]), '— loop p99 (event-loop delay) under bun 1.4.5: not measured (no histogram)')
  assert.match(unmeasuredText(unmeasuredLines(results)[1]), /^— ELU \(event-loop utilisation\) under bun/)
  assert.match(unmeasuredText(unmeasuredLines(results)[2]), /under this runtime: not measured \(no ELU\)$/, 'a runtime not named')
})
