// The versions a report names (machine.versions, method.toolVersion) are found where Node finds the lab's
// imports: in a checkout its own node_modules/, installed in a project the project's node_modules/ beside it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageVersion } from '../../../../loadtest/run/watch/machine.js'
import { tempDir } from '../../../helpers/lab.js'

function fakePackage (dir, name, version) {
  mkdirSync(join(dir, 'node_modules', name), { recursive: true })
  writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }))
}

test('packageVersion: a dependency hoisted beside the installed lab, a nested one first, null when absent', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const app = join(dir, 'my-app')
  const lab = join(app, 'node_modules', 'loadlab')
  mkdirSync(lab, { recursive: true })
  fakePackage(app, 'fastify', '9.9.9')
  fakePackage(app, 'piscina', '8.8.8')
  fakePackage(lab, 'piscina', '1.2.3') // npm nests a version the project's own cannot satisfy
  assert.equal(packageVersion('fastify', lab), '9.9.9', 'hoisted into the project (was null: only root/node_modules)')
  assert.equal(packageVersion('piscina', lab), '1.2.3', 'the lab\'s own copy, as Node resolves it')
  assert.equal(packageVersion('no-such-package-here', lab), null)
})
