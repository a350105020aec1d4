// One base for every path the user gives (loadtest/paths.js): the directory the command was typed in,
// under `npm run lab` (cwd: the package root, INIT_CWD: the user's) as under `node loadtest/cli.js`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { userCwd } from '../../loadtest/paths.js'
import { defaultReportsDir } from '../../loadtest/settings.js'
import { runtimesDir } from '../../loadtest/run/watch/runtimes.js'
import { ROOT, runLab, tempDir } from '../helpers/lab.js'

test('paths: the user directory is INIT_CWD only when npm moved the command to the package root', () => {
  const npm = { npm_lifecycle_event: 'lab', INIT_CWD: '/home/me/app' }
  assert.equal(userCwd(npm, ROOT), '/home/me/app')
  assert.equal(userCwd(npm, '/home/me/app/sub'), '/home/me/app/sub', 'a script of another project: its own cwd')
  assert.equal(userCwd({ INIT_CWD: '/home/me/app' }, ROOT), ROOT, 'INIT_CWD left over in a shell, not under npm')
  assert.equal(userCwd({}, '/x'), '/x')
})

test('paths: reports go to the checkout\'s reports/ from inside it, ./loadlab-reports/ from anywhere else', () => {
  assert.equal(defaultReportsDir(ROOT, ROOT), join(ROOT, 'reports'))
  assert.equal(defaultReportsDir(join(ROOT, 'test'), ROOT), join(ROOT, 'reports'))
  assert.equal(defaultReportsDir('/home/me/app', ROOT), '/home/me/app/loadlab-reports')
  assert.equal(defaultReportsDir(`${ROOT}-other`, ROOT), `${ROOT}-other/loadlab-reports`, 'a sibling named alike')
  const installed = '/home/me/app/node_modules/loadlab'
  assert.equal(defaultReportsDir(installed, installed), join(installed, 'loadlab-reports'), 'never into node_modules')
})

test('paths: a relative LOADLAB_RUNTIMES_DIR is from the user\'s directory too; by default the lab\'s own .runtimes/', () => {
  const npm = { npm_lifecycle_event: 'lab', INIT_CWD: '/home/me/app' }
  assert.equal(runtimesDir({ ...npm, LOADLAB_RUNTIMES_DIR: 'rt' }, ROOT), '/home/me/app/rt', 'was the package root\'s rt/')
  assert.equal(runtimesDir({ LOADLAB_RUNTIMES_DIR: 'rt' }, '/home/me/app/sub'), '/home/me/app/sub/rt')
  assert.equal(runtimesDir({ ...npm, LOADLAB_RUNTIMES_DIR: '/opt/rt' }, ROOT), '/opt/rt')
  assert.equal(runtimesDir(npm, ROOT), join(ROOT, '.runtimes'))
})

// Issue 19 item 8: --task resolved from INIT_CWD but --node ./x and --out ./x from the package root.
test('paths: under npm run lab, --node ./x and --out ./x are from the user\'s directory, as --task is', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const user = join(dir, 'app')
  mkdirSync(user)
  symlinkSync(process.execPath, join(user, 'mynode'))
  const args = ['--server', 'simple', '--work', 'loop:1e3', '--amount', '4', '--connections', '1', '--warmup', '0']
  // as `npm run lab` runs it: cwd the package root, the user's directory in INIT_CWD
  const r = await runLab([...args, '--node', './mynode', '--out', './my-reports'], {
    env: { npm_lifecycle_event: 'lab', INIT_CWD: user }
  })
  assert.equal(r.exitCode, 0, r.stderr)
  const files = readdirSync(join(user, 'my-reports'))
  assert.equal(files.filter((f) => f.endsWith('.json')).length, 1, files.join(', '))
  // npm run compare: report files from the user's directory too
  const report = join('my-reports', files.find((f) => f.endsWith('.json')))
  const c = await execa(process.execPath, [join(ROOT, 'loadtest', 'compare', 'cli.js'), report, report], {
    cwd: ROOT,
    env: { npm_lifecycle_event: 'compare', INIT_CWD: user },
    reject: false
  })
  assert.equal(c.exitCode, 0, c.stderr)
  assert.match(c.stdout, /simple/)
})
