// The lab's task check with a result too big for it (issue 19, item 10): the check child says so, with
// the size, instead of being cut off mid-write ("the check call failed: Node.js v20.20.2"). The check
// runs in its real child process.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { CHECK_ANSWER_LIMIT, checkTask, describeLabTask } from '../../loadtest/run/task.js'
import { ROOT } from '../helpers/server.js'

const BIG = join(ROOT, 'test', 'fixtures', 'tasks', 'big-result.mjs')
const describe = (mb) => describeLabTask({ task: BIG, input: JSON.stringify({ mb }), timeoutSec: 20, cwd: ROOT })

test('a task result over the check limit is refused as "too big", with its size and the limit', async () => {
  const mb = Math.ceil(CHECK_ANSWER_LIMIT / 1e6) + 3 // just over: 70 MB for the 64 MiB limit
  await assert.rejects(checkTask(await describe(mb)), (err) => {
    assert.equal(err.code, 'LAB_TASK')
    assert.match(err.message, /big-result\.mjs: the task's result is too big: \d+\.\d MB of JSON, over the 64\.0 MB the lab's check takes$/)
    return true
  })
  const ok = await checkTask(await describe(1))
  assert.equal(ok.body.length, 1e6 + 2, 'a 1 MB result is checked as before')
})
