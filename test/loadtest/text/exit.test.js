// A child that ends without its answer is said in words (text/exit.js): its own last stderr line, an
// unsettled top-level await, its own process.exit, a signal; never execa's "Command failed". Real children
// for the two a task can cause.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { childEndText } from '../../../loadtest/text/exit.js'
import { checkTask, describeLabTask } from '../../../loadtest/run/watch/task.js'
import { calibrate } from '../../../loadtest/run/watch/calibrate.js'
import { ROOT } from '../../helpers/lab.js'

test('childEndText: stderr first, then what the exit says', () => {
  assert.equal(childEndText({ stderr: 'x\nTypeError: boom\n', exitCode: 1 }), 'TypeError: boom')
  assert.match(childEndText({ stderr: '', exitCode: 13 }), /^the task never settled a top-level await/)
  assert.match(childEndText({ stderr: '', exitCode: 3 }, 'the work'), /^the work ended its process with exit code 3/)
  assert.match(childEndText({ stderr: '', exitCode: null, signal: 'SIGKILL' }), /ended by SIGKILL/)
})

test('a task that never settles its top-level await, or exits while loading, says so at the check and calibration',
  async () => {
    for (const [file, said] of [['never-settles.mjs', /never settled a top-level await/],
      ['exits.mjs', /ended its process with exit code 3/]]) {
      const task = join(ROOT, 'test', 'fixtures', 'tasks', file)
      const work = await describeLabTask({ task, input: '{}', timeoutSec: 20, cwd: ROOT })
      await assert.rejects(checkTask(work), (err) => said.test(err.message) && !/Command failed/.test(err.message))
      const cal = await calibrate([work.spec], { maxCalls: 2, totalBudgetMs: 300, tasks: { [work.spec]: work.task } })
      assert.match(cal[work.spec].error, said)
    }
  })
