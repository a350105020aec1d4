// run/ruler/: a real reading under `taskset -c 0` measures one core (offered 1: os.availableParallelism
// follows affinity; effective measured at 2 threads on that one core), a reading stopped by its signal
// rejects and leaves nothing, LOADLAB_RULER is checked. Rules, never this machine's figures.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../../../helpers/lab.js'
import { threadLevels } from '../../../../loadtest/run/ruler/measure.js'
import { readRuler, rulerOff } from '../../../../loadtest/run/ruler/index.js'
import { rulerFault, rulerOf } from '../../../../loadtest/result/ruler.js'

const CHILD = join(ROOT, 'loadtest', 'run', 'ruler', 'child.js')
const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'])
    return true
  } catch {
    return false
  }
})()

test('ruler: the cores are measured at 1, 2, 4 … threads up to the cores offered, at least 2, at most 64', () => {
  assert.deepEqual(threadLevels(1), [1, 2])
  assert.deepEqual(threadLevels(2), [1, 2])
  assert.deepEqual(threadLevels(4), [1, 2, 4])
  assert.deepEqual(threadLevels(6), [1, 2, 4, 6])
  assert.deepEqual(threadLevels(16), [1, 2, 4, 8, 16])
  assert.deepEqual(threadLevels(192), [1, 2, 4, 8, 16, 32, 64], 'at most 64 threads')
})

test('ruler: a reading under taskset -c 0 offers 1 core and measures about one at 2 threads',
  { skip: !hasTaskset && 'no taskset', timeout: 60000 }, async () => {
    const r = await execa('taskset', ['-c', '0', process.execPath, CHILD], { cwd: ROOT })
    const reading = JSON.parse(r.stdout)
    assert.equal(rulerFault(rulerOf(reading)), null, r.stdout)
    assert.equal(reading.cores.offered, 1, 'os.availableParallelism() follows affinity')
    assert.deepEqual(reading.cores.scaling.map((s) => s.threads), [1, 2])
    // two threads on one core: no more than one core's work (a CPU hog beside it only lowers it)
    assert.ok(reading.cores.effective.value < 1.5, JSON.stringify(reading.cores))
    assert.deepEqual(reading.cores.effective, reading.cores.scaling[1].speedup)
  })

test('ruler: a reading stopped by its signal rejects in one line and leaves no process', { timeout: 30000 }, async () => {
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 200)
  await assert.rejects(readRuler({ signal: controller.signal }), /^Error: the ruler could not read the machine: interrupted$/)
})

test('ruler: LOADLAB_RULER is off or unset; anything else is a usage error', () => {
  assert.equal(rulerOff({}), false)
  assert.equal(rulerOff({ LOADLAB_RULER: '' }), false)
  assert.equal(rulerOff({ LOADLAB_RULER: 'off' }), true)
  assert.throws(() => rulerOff({ LOADLAB_RULER: 'no' }), { code: 'LAB_USAGE', message: /^LOADLAB_RULER: expected off/ })
})
