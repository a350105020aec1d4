// The study servers as real processes: the four sleep variants (002) and long/small tasks (001).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkServer } from '../helpers/check-server.js'

for (const variant of ['async-sleep-unpooled', 'async-sleep-pooled', 'sync-sleep-unpooled', 'sync-sleep-pooled']) {
  const work = `${variant.startsWith('sync') ? 'sleep-sync' : 'sleep'}:20`
  test(`sleep-variants ${variant}`, () =>
    checkServer({
      name: 'sleep-variants',
      args: ['--variant', variant, '--delay', '20'],
      work,
      variant,
      amount: 40,
      gauges: (g, n) => {
        assert.equal(g.completed, n)
        if (variant.endsWith('pooled') && !variant.endsWith('unpooled')) assert.ok(g.threads >= 1)
      }
    }))
}

for (const [mode, api] of [
  ['long', 'off'],
  ['small', 'off'],
  ['long', 'on'],
  ['small', 'on']
]) {
  test(`long-vs-small-tasks --mode ${mode} --api ${api}`, async () => {
    const tree = await checkServer({
      name: 'long-vs-small-tasks',
      args: ['--mode', mode, '--steps', '5', '--api', api],
      work: 'ssr:50',
      variant: api === 'on' ? `${mode}+api` : mode,
      // with the API, each request first waits on it (100 ms or 1 s, in turn): one wave of the 10 connections
      amount: api === 'on' ? 10 : 30,
      gauges: (g) => assert.equal(g.inFlight, 0)
    })
    assert.equal(tree.length, api === 'on' ? 2 : 1, "with --api on, the API emulator is the server's child")
  })
}
