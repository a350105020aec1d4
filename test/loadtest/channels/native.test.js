// The native caller (study 003's host): an N-API addon whose native threads call the hook and check
// every answer themselves. Skipped, with the reason, where the addon cannot be built here.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  NATIVE_MODES, buildToolsMissing, createDispatcher, loadNativeCaller, makeId, nativeSettings
} from '../../../loadtest/channels/index.js'

const native = await loadNativeCaller()
const skip = native.addon ? false : `no native caller here: ${native.reason}`

const dir = mkdtempSync(join(tmpdir(), 'loadlab-native-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))
// A hook that answers wrongly for ids starting with "bad" and throws for "boom".
const oddHook = join(dir, 'odd-hook.mjs')
writeFileSync(oddHook, `export function resolveId (id) {
  if (id.startsWith('boom')) throw new Error('hook failed on purpose')
  return (id.startsWith('bad') ? 'wrong:' : 'worker:') + id
}
`)

test('every native mode answers every call, checked in the addon', { skip }, async () => {
  for (const mode of NATIVE_MODES) {
    const d = await createDispatcher(mode, { workers: 3, native })
    try {
      for (const bytes of [30, 1e5]) {
        assert.deepEqual(await d.batch(makeId(bytes), 50), { calls: 50, mismatches: 0, errors: 0 }, `${mode} ${bytes} B`)
      }
      assert.equal(d.workers, mode === 'native-main' ? 0 : 3)
    } finally {
      await d.close()
    }
  }
})

test('a wrong answer is a mismatch and a throwing hook an error, in every native mode', { skip }, async () => {
  for (const mode of NATIVE_MODES) {
    const d = await createDispatcher(mode, { workers: 2, native, hook: oddHook })
    try {
      assert.deepEqual(await d.batch('bad-id', 7), { calls: 7, mismatches: 7, errors: 0 }, mode)
      assert.deepEqual(await d.batch('boom-id', 5), { calls: 5, mismatches: 0, errors: 5 }, mode)
      assert.deepEqual(await d.batch('fine', 4), { calls: 4, mismatches: 0, errors: 0 }, `${mode}: goes on after`)
    } finally {
      await d.close()
    }
  }
})

// A build needs node-gyp and this node's headers: an addon built by another node loads here without them.
const noBuild = buildToolsMissing()
test('two builds at once into one folder: each ends with an addon that loads', { skip: skip || (noBuild ? `no build here: ${noBuild}` : false) }, async () => {
  const settings = { ...nativeSettings({}), dir: join(dir, 'build-twice') }
  const [a, b] = await Promise.all([loadNativeCaller(settings), loadNativeCaller(settings)])
  for (const r of [a, b]) {
    assert.equal(r.reason, undefined)
    assert.equal(typeof r.addon.run, 'function')
  }
})
