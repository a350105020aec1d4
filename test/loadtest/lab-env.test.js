// The lab passes its servers exactly what it means to: stray server variables in the user's shell
// (WORK=, PORT=, HOST=, TASK=) do not reach them, and a work spec named after an Object.prototype
// property is refused before anything starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { readReport, runLab, tempDir } from '../helpers/lab.js'
import { bootTimeoutMs, serverEnv } from '../../loadtest/run/watch/boot.js'
import { planLab } from '../../loadtest/lab.js'
import { parseOptions } from '../../loadtest/options.js'

// A usage error where the CLI meets it (planLab, or the check planLab calls): exit 2, one line, `message`.
async function refused (fn, message) {
  await assert.rejects(async () => fn(), (err) => {
    assert.equal(err.exitCode, 2, err.message)
    assert.equal(err.message.split('\n').length, 1, err.message)
    assert.match(err.message, message)
    return true
  })
}

test('WORK=, PORT=, HOST= and TASK= in the environment do not reach the servers the lab starts', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const env = { WORK: 'nonsense', PORT: '1', HOST: '', TASK: '/no/such/task.js', TASK_INPUT: '{' }
  // two requests of the server's own work (loop:1e8, about 100 ms of CPU each) show which work it ran
  const r = await runLab(['--server', 'simple', '--amount', '2', '--connections', '2', '--warmup', '0', '--out', dir], {
    env
  })
  assert.equal(r.exitCode, 0, r.stderr)
  const { json } = await readReport(dir)
  const res = json.results[0]
  assert.equal(res.status, 'ok')
  assert.equal(res.work, 'loop:1e8', "the server's own default work, not WORK=nonsense")
  assert.equal(res.requests.ok, 2)
  assert.deepEqual(Object.keys(serverEnv({ ...env, PATH: '/bin', LOADLAB_X: '1' })).sort(), ['LOADLAB_X', 'PATH'])
})

test('--work constructor:1 (an Object.prototype name) is refused with exit 2 before anything starts', async () => {
  // through the CLI once; the other names where the CLI meets them
  const r = await runLab(['--server', 'simple', '--work', 'constructor:1'])
  assert.equal(r.exitCode, 2, r.stderr)
  assert.equal(r.stderr.trim().split('\n').length, 1)
  assert.match(r.stderr, /bad work spec "constructor:1"/)
  for (const spec of ['toString:1', 'valueOf:1']) {
    await refused(() => planLab(parseOptions(['--server', 'simple', '--work', spec])), new RegExp(`bad work spec "${spec}"`))
  }
})

test('a bad LOADLAB_BOOT_TIMEOUT_MS or an empty --out: exit 2, one line, before anything starts (items 13, 7)', async () => {
  const args = ['--server', 'simple', '--amount', '4', '--connections', '1', '--warmup', '0']
  const expected = (value) => new RegExp(`LOADLAB_BOOT_TIMEOUT_MS: expected whole milliseconds .*got \`${value}\``)
  // through the CLI (which reads its environment) once; the other values through the check planLab makes
  const r = await runLab([...args, '--out', tmpdir()], { env: { LOADLAB_BOOT_TIMEOUT_MS: '-5' } })
  assert.equal(r.exitCode, 2, `LOADLAB_BOOT_TIMEOUT_MS=-5: ${r.stderr}`)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.match(r.stderr, expected('-5'))
  for (const value of ['1e12', 'abc']) await refused(() => bootTimeoutMs({ LOADLAB_BOOT_TIMEOUT_MS: value }), expected(value))
  await refused(() => planLab(parseOptions([...args, '--out', ''])), /--out: expected a directory, got an empty value/)
})
