// run/fire.js: what the closed loop reads of each answer.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseServerTiming } from '../../../loadtest/run/fire.js'

test('parsing: Server-Timing', () => {
  assert.deepEqual(parseServerTiming('work;dur=12.5, queue;dur=3'), { work: 12.5, queue: 3 })
  assert.deepEqual(parseServerTiming('work;desc="x";dur=1'), { work: 1, queue: null })
  assert.deepEqual(parseServerTiming(undefined), { work: null, queue: null })
})
