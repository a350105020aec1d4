// The commit the lab records: the checkout's HEAD where it runs, null outside a checkout (never a failure).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gitCommit } from '../../../loadtest/run/commit.js'
import { ROOT } from '../../helpers/lab.js'

test('gitCommit: 40 hex digits in a git checkout, null outside one or in a folder that does not exist', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loadlab-commit-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const inCheckout = gitCommit(ROOT)
  // the lab's own checkout is a git checkout where the suite runs from one; a tarball of it is not
  if (inCheckout !== null) assert.match(inCheckout, /^[0-9a-f]{40}([0-9a-f]{24})?$/)
  assert.equal(gitCommit(dir), null)
  assert.equal(gitCommit(join(dir, 'nope')), null)
})
