// heavy-cpu's plan (queued-threads with the study's cancel-off pool beside it) and the line that
// attributes the recovery gap between the two: pure, from plain results.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import heavyCpu, { SERVERS, cancelAttribution } from '../../../loadtest/experiments/heavy-cpu.js'

const plan = (servers) => heavyCpu.plan({ servers, settings: heavyCpu.defaults, work: heavyCpu.defaults.work })

test('heavy-cpu plans queued-threads/cancel-off beside queued-threads, and queued-processes', () => {
  const all = plan(null).map((e) => (e.variant ? `${e.server}/${e.variant}` : e.server))
  assert.ok(SERVERS.includes('queued-processes'))
  assert.deepEqual(all, SERVERS.flatMap((s) => (s === 'queued-threads' ? [s, 'queued-threads/cancel-off'] : [s])))
  const off = plan(['queued-threads/cancel-off'])
  assert.deepEqual(off.map((e) => e.variant), [null, 'cancel-off'], 'the variant key runs it and its base')
  assert.deepEqual(off[1].args, ['--work', 'loop:1e8', '--cancel', 'off'])
  assert.deepEqual(plan(['simple']).map((e) => e.server), ['simple'])
})

// A queued-threads result: recovery ms, gauges, mean work ms and the queue in the timeline's round samples.
function result (variant, { recoveryMs, gauges, workMs = 100, queue = [] }) {
  const points = queue.map((q, i) => ({ t: i * 100, phase: 'round', server: { queueLength: q } }))
  points.push({ t: 9999, phase: 'recovery', server: { queueLength: 0 } })
  return {
    server: 'queued-threads',
    variant,
    recovery: { ms: recoveryMs, status: 200, timeoutMs: 150000 },
    telemetry: { gauges: { threads: 2, ...gauges } },
    serverTiming: { workMs: { mean: workMs } },
    timeline: { points }
  }
}

test('the recovery gap is the queue left at the round\'s end × the work time ÷ the threads', () => {
  const [line] = cancelAttribution([
    result(null, { recoveryMs: 220, gauges: { aborted: 99 } }),
    result('cancel-off', { recoveryMs: 4300, gauges: { abandoned: 104 }, workMs: 84, queue: [60, 90, 98] })
  ])
  assert.match(line, /^queued-threads recovers in 220 ms, the study's pool as it was \(--cancel off\) in 4300 ms: /)
  assert.match(line, /when the round ended it still held 98 queued requests of clients that had left, 98 × 84\.0 ms ÷ 2 threads ≈ 4116 ms of work/)
  assert.match(line, /worked for 104 clients that had left, where cancellation dropped or ended 99$/)
  assert.deepEqual(cancelAttribution([result(null, { recoveryMs: 1, gauges: {} })]), [], 'no cancel-off run: no line')
  const [bare] = cancelAttribution([result(null, { recoveryMs: 1, gauges: {} }), result('cancel-off', { recoveryMs: 2, gauges: {} })])
  assert.match(bare, /\(no queue figures to attribute it\)/)
})
