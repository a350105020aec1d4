// The lab's task check with a result too big for it (issue 19, item 10): the check child says so, with
// the size, instead of being cut off mid-write ("the check call failed: Node.js v20.20.2"). The check
// runs in its real child process.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { CHECK_ANSWER_LIMIT, checkTask, describeLabTask } from '../../../../loadtest/run/watch/task.js'
import { ROOT } from '../../../helpers/server.js'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import pWaitFor from 'p-wait-for'
import { alive, cmdline, descendants, runLab as runCli, startLab } from '../../../helpers/lab.js'

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

test('task check: a blocking task is refused at --timeout, and Ctrl-C ends the check at once (item 9)', async (t) => {
  const task = join(ROOT, 'test', 'fixtures', 'tasks', 'blocks.mjs')
  const started = Date.now()
  const r = await runCli(['--task', task, '--timeout', '1', '--out', tmpdir()], { timeout: 50000 })
  const tookMs = Date.now() - started
  assert.equal(r.exitCode, 1, r.stderr)
  assert.match(r.stderr, /the check call did not return within 1000 ms \(--timeout; a synchronous loop\?\)/)
  assert.ok(tookMs < 45000, `refused in ${tookMs} ms, not after the 60 s setup bound`)
  for (const group of [false, true]) {
    // group: the terminal's Ctrl-C, to the lab and the check child alike; else to the lab alone
    const lab = startLab(['--task', task, '--timeout', '60', '--out', tmpdir()], { buffer: false, detached: true })
    lab.stderr.resume()
    lab.stdout.resume()
    await pWaitFor(() => descendants(lab.pid).some((pid) => cmdline(pid).includes('calibrate-child')), { interval: 50 })
    const child = descendants(lab.pid).find((pid) => cmdline(pid).includes('calibrate-child'))
    await delay(300) // the check is under way (the task is loaded, its call spinning)
    const sentAt = Date.now()
    process.kill(group ? -lab.pid : lab.pid, 'SIGINT')
    const [code] = await once(lab, 'exit')
    assert.equal(code, 130, `group ${group}`)
    // at once: well before the check's own 60 s bound, whatever the machine's load
    assert.ok(Date.now() - sentAt < 30000, `exit 130 in ${Date.now() - sentAt} ms`)
    await pWaitFor(() => !alive(child), { interval: 50, timeout: 30000 })
  }
})
