// run/generate/generator-trace.js: which round a trace file goes to, and what each late request is put down to.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TRACE_ENV, summarizeTrace, traceFileFor } from '../../../../loadtest/run/generate/generator-trace.js'

test('trace file: a round\'s own option, else the environment\'s for the first round only (a thread: FILE.g<k>)', () => {
  assert.equal(traceFileFor({ trace: '/tmp/own.json' }), '/tmp/own.json')
  assert.equal(traceFileFor({}), null, 'nothing asked for')
  process.env[TRACE_ENV] = '/tmp/env.json'
  try {
    assert.equal(traceFileFor({}, 1), '/tmp/env.json.g1')
    assert.equal(traceFileFor({}), null, 'the environment traces one round of the process')
    assert.equal(traceFileFor({ trace: '/tmp/again.json' }), '/tmp/again.json')
  } finally {
    delete process.env[TRACE_ENV]
  }
})

test('trace summary: each late request put down to GC, own work, descheduling, a late wake-up or a held-up loop', () => {
  // 10 ms windows ending at 10, 20, …: [end, utilisation, CPU share]
  const elu = [[10, 0.1, 0.1], [20, 1, 0.95], [30, 1, 0.2], [40, 0.2, 0.1], [80, 0.6, 0.6], [90, 0.7, 0.7]]
  const t = summarizeTrace({
    late: [[5, 3], [15, 2], [25, 4], [35, 2], [60, 20], [85, 1.5], [200, 2]],
    batches: [[0, 1, 'timer'], [15, 3, 'answer'], [80, 40, 'timer']],
    opens: [-5, -4, 50],
    connected: [-3, null],
    gc: [[4, 2, 1]],
    elu
  })
  assert.deepEqual(t.lateBy, { gc: 1, ownWork: 1, descheduled: 1, wokeLate: 1, heldUp: 1, other: 2 })
  assert.equal(t.lateRequests, 7)
  assert.equal(t.worstLagMs, 20)
  assert.deepEqual([t.connectionsOpened, t.openedAfterZero, t.connectedBeforeZero], [3, 1, 1])
  assert.deepEqual([t.sentByAnswer, t.sentByTimer, t.largestBatch], [3, 41, 40])
  assert.deepEqual([t.gcPauses, t.gcMs, t.busyWindows], [1, 2, 2])
})
