// The structured run key: one string form, parsed back to the same fields, for every key the lab has
// written (every reference report) and for the ones the plan entries make.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../../loadtest/catalog.js'
import { readBounded } from '../../../loadtest/report/read.js'
import {
  calibrationKey, formatKey, httpKey, loopOf, parseKey, runKey, settingKey, settingParts, taskOf, withoutRuntime
} from '../../../loadtest/result/key.js'

test('key: fields to string and back', () => {
  const k = runKey({ server: 'sleep-variants', variant: 'sync-sleep-pooled', work: 'sleep-sync:100', qualifier: 't10-i1000' })
  assert.equal(formatKey(k), 'sleep-variants/sync-sleep-pooled@sleep-sync:100#t10-i1000')
  assert.deepEqual(parseKey(formatKey(k)), k)
  const open = runKey({ server: 'simple', work: 'loop:1e7', runtime: 'node22', loop: 'open:200/s' })
  assert.equal(formatKey(open), 'simple@loop:1e7#node22#open:200/s')
  assert.deepEqual(parseKey('simple@loop:1e7#node22#open:200/s'), open)
  assert.deepEqual(parseKey('simple@fib:4#c2'), runKey({ server: 'simple', work: 'fib:4', qualifier: 'c2' }))
  assert.deepEqual(parseKey('cluster@loop:1e8#bun#capacity'),
    runKey({ server: 'cluster', work: 'loop:1e8', runtime: 'bun', loop: 'capacity' }))
})

test('key: a task work keeps its own #export and hash; dispatch keys have no work', () => {
  const k = parseKey('queued-threads@task:page.js#render@0123abcd#node24')
  assert.equal(k.work, 'task:page.js#render@0123abcd')
  assert.deepEqual(k.task, { name: 'page.js', export: 'render', hash: '0123abcd' })
  assert.equal(k.runtime, 'node24')
  assert.equal(taskOf('task:x.mjs@ff').export, 'default')
  assert.equal(taskOf('loop:1e7'), null)
  const d = parseKey('dispatch/main/w0/c0/p30')
  assert.equal(d.server, 'dispatch')
  assert.equal(d.variant, 'main/w0/c0/p30')
  assert.equal(d.work, null)
  assert.equal(formatKey(d), 'dispatch/main/w0/c0/p30')
})

test('key: an HTTP run keyed from its entry: runtime, qualifier and loop; default work', () => {
  const entry = { server: 'simple', variant: null, work: 'loop:1e7', qualifier: 'c4', runtime: { label: 'node20' } }
  assert.equal(httpKey(entry, 'loop:1e7'), 'simple@loop:1e7#c4#node20')
  assert.equal(httpKey({ ...entry, rate: 50 }, 'loop:1e7'), 'simple@loop:1e7#c4#node20#open:50/s')
  assert.equal(httpKey({ server: 'x', sweep: () => {} }, null), 'x@default#capacity')
  assert.equal(loopOf({}), null)
  assert.equal(withoutRuntime('simple@loop:1e7#c4#node20#open:50/s'), 'simple@loop:1e7#c4#open:50/s')
  assert.equal(calibrationKey('loop:1e7', 'node22'), 'loop:1e7#node22')
  assert.equal(calibrationKey('loop:1e7'), 'loop:1e7')
})

test('key: every key of every reference report parses and formats back to itself', () => {
  const dir = join(ROOT, 'reports', 'reference')
  let n = 0
  for (const name of readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f))) {
    const report = JSON.parse(readBounded(join(dir, name))) // kept compressed
    for (const r of report.results ?? []) {
      if (typeof r?.key !== 'string') continue
      const k = parseKey(r.key)
      assert.equal(formatKey(k), r.key, `${name}: ${r.key}`)
      if (r.kind === 'http') {
        assert.equal(k.server, r.server, `${name}: ${r.key} server`)
        assert.equal(k.work, r.work ?? 'default', `${name}: ${r.key} work`)
        assert.equal(k.runtime, r.runtime?.label ?? null, `${name}: ${r.key} runtime`)
      }
      n++
    }
  }
  assert.ok(n > 50, `the reference reports hold many keys (${n})`)
})

test('key: a --tune setting is its own key part, SERVER[NAME=VALUE], built once and read back', () => {
  const entry = { server: 'queued-threads', setting: { name: 'threads', value: 3 }, sweep: () => {} }
  assert.equal(httpKey(entry, 'loop:3e7'), 'queued-threads[threads=3]@loop:3e7#capacity')
  const k = parseKey('queued-threads[max-queue=inf]@loop:3e7#node22#capacity')
  assert.equal(k.server, 'queued-threads')
  assert.equal(k.setting, 'max-queue=inf')
  assert.deepEqual(settingParts(k.setting), { name: 'max-queue', value: 'inf' })
  assert.equal(k.runtime, 'node22')
  assert.equal(formatKey(k), 'queued-threads[max-queue=inf]@loop:3e7#node22#capacity')
  assert.equal(settingKey('workers', 4), 'workers=4')
  assert.equal(parseKey('sleep-variants/sync-sleep-pooled[threads=2]@sleep-sync:100').variant, 'sync-sleep-pooled')
  assert.equal(parseKey('simple@loop:1e7').setting, null)
})
