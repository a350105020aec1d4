// The lab's --task check and calibration against a task that prints (issue 48, M3): the check's answer
// comes over its IPC channel, never from stdout, and the calibration's samples line is the only line on
// its stdout, so a console.log, or 100 MB written to stdout, neither fails the check ("exit code 0") nor
// reads as "a result too big". Real child processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { checkTask, describeLabTask } from '../../loadtest/run/watch/task.js'
import { calibrate } from '../../loadtest/run/watch/calibrate.js'
import { ROOT } from '../helpers/lab.js'

const PRINTS = join(ROOT, 'test', 'fixtures', 'tasks', 'prints.mjs')
const describe = (mb) => describeLabTask({ task: PRINTS, input: JSON.stringify({ mb }), timeoutSec: 20, cwd: ROOT })

test('a task that logs a line, or writes 100 MB to stdout, passes the check with its own result', async () => {
  for (const mb of [0, 100]) {
    const out = await checkTask(await describe(mb))
    assert.equal(out.body, JSON.stringify({ printed: mb }))
    assert.equal(out.expectedBody, null)
  }
})

test('a task that prints is calibrated: its prints never mix with the samples', async () => {
  const work = await describe(1)
  const cal = await calibrate([work.spec], { maxCalls: 3, totalBudgetMs: 500, tasks: { [work.spec]: work.task } })
  assert.equal(cal[work.spec].error, undefined, JSON.stringify(cal[work.spec]))
  assert.ok(cal[work.spec].serviceMs > 0)
})
