// The rounds' order (run/round/order.js): every round runs each entry once, in an order drawn from
// the seed; one round keeps the plan's order; an entry that stands on another's result runs once,
// last.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { roundOrders, standsOnOthers } from '../../../../loadtest/run/round/order.js'

const PLAN = ['simple', 'cluster', 'queued-threads', 'child-process', 'worker-per-request'].map((server) => ({ server }))

test('order: each round is a permutation of the plan, the same for the same seed, another for another', () => {
  const orders = roundOrders(PLAN, 8, 7)
  assert.equal(orders.length, 8)
  for (const o of orders) assert.deepEqual(o.slice().sort(), [0, 1, 2, 3, 4])
  assert.deepEqual(roundOrders(PLAN, 8, 7), orders)
  assert.notDeepEqual(roundOrders(PLAN, 8, 8), orders)
  assert.ok(new Set(orders.map((o) => o.join())).size > 1, 'the order is drawn afresh each round')
})

test('order: a run of one round keeps the plan\'s order', () => {
  assert.deepEqual(roundOrders(PLAN, 1, 7), [[0, 1, 2, 3, 4]])
})

test('order: an entry standing on another\'s result runs only in the last round, after the others', () => {
  const plan = [
    { server: 'queued-threads', sweep: () => {}, overload: {} },
    { server: 'queued-threads', variant: 'deadline', overload: { base: 'queued-threads' } },
    { server: 'simple', sweep: () => {} },
    { server: 'simple', mixed: { lowestOf: ['simple'] } }
  ]
  assert.deepEqual(plan.map(standsOnOthers), [false, true, false, true])
  const orders = roundOrders(plan, 3, 1)
  for (const o of orders.slice(0, -1)) assert.deepEqual(o.slice().sort(), [0, 2])
  assert.deepEqual(orders.at(-1).slice(2), [1, 3])
})
