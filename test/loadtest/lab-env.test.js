// The lab passes its servers exactly what it means to: stray server variables in the user's shell
// (WORK=, PORT=, HOST=, TASK=) do not reach them, and a work spec named after an Object.prototype
// property is refused before anything starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { readReport, runLab, tempDir } from '../helpers/lab.js'
import { serverEnv } from '../../loadtest/run/watch/boot.js'

test('WORK=, PORT=, HOST= and TASK= in the environment do not reach the servers the lab starts', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const env = { WORK: 'nonsense', PORT: '1', HOST: '', TASK: '/no/such/task.js', TASK_INPUT: '{' }
  const r = await runLab(['--server', 'simple', '--amount', '6', '--connections', '2', '--warmup', '0', '--out', dir], {
    env
  })
  assert.equal(r.exitCode, 0, r.stderr)
  const { json } = await readReport(dir)
  const res = json.results[0]
  assert.equal(res.status, 'ok')
  assert.equal(res.work, 'loop:1e8', "the server's own default work, not WORK=nonsense")
  assert.equal(res.requests.ok, 6)
  assert.deepEqual(Object.keys(serverEnv({ ...env, PATH: '/bin', LOADLAB_X: '1' })).sort(), ['LOADLAB_X', 'PATH'])
})

test('--work constructor:1 (an Object.prototype name) is refused with exit 2 before anything starts', async () => {
  for (const spec of ['constructor:1', 'toString:1', 'valueOf:1']) {
    const r = await runLab(['--server', 'simple', '--work', spec])
    assert.equal(r.exitCode, 2, spec)
    assert.equal(r.stderr.trim().split('\n').length, 1)
    assert.match(r.stderr, new RegExp(`bad work spec "${spec}"`))
  }
})

test('a bad LOADLAB_BOOT_TIMEOUT_MS or an empty --out: exit 2, one line, before anything starts (items 13, 7)', async () => {
  const args = ['--server', 'simple', '--amount', '4', '--connections', '1', '--warmup', '0']
  for (const value of ['-5', '1e12', 'abc']) {
    const r = await runLab([...args, '--out', tmpdir()], { env: { LOADLAB_BOOT_TIMEOUT_MS: value } })
    assert.equal(r.exitCode, 2, `LOADLAB_BOOT_TIMEOUT_MS=${value}: ${r.stderr}`)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, new RegExp(`LOADLAB_BOOT_TIMEOUT_MS: expected whole milliseconds .*got \`${value}\``))
  }
  const r = await runLab([...args, '--out', ''])
  assert.equal(r.exitCode, 2, r.stderr)
  assert.match(r.stderr, /--out: expected a directory, got an empty value/)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
})
