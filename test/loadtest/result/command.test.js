// result/command.js serverCommand: the command a decision prints is one a shell runs as meant.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { serverCommand } from '../../../loadtest/result/command.js'

test('serverCommand: node servers/NAME in the checkout, loadlab server NAME in a project', () => {
  const flags = ['--work', 'loop:3e7', '--deadline', 'auto']
  assert.equal(serverCommand({ server: 'queued-threads', flags }), 'node servers/queued-threads --work loop:3e7 --deadline auto')
  assert.equal(serverCommand({ server: 'simple', flags: [], form: 'loadlab' }), 'loadlab server simple')
})

test('serverCommand: a word a shell would split, expand or end is single-quoted, and reads back as itself', () => {
  const words = ['a b', "it's", '$HOME', '#comment', 'x;y', '*', '']
  const line = serverCommand({ server: 'simple', flags: ['--task', ...words] })
  assert.equal(line, "node servers/simple --task 'a b' 'it'\\''s' '$HOME' '#comment' 'x;y' '*' ''")
  // the shell gives back exactly the words (printf one a line), after node and the server
  const echoed = execFileSync('sh', ['-c', line.replace(/^node /, "printf '%s\\n' ")], { encoding: 'utf8' })
  assert.deepEqual(echoed.split('\n').slice(0, -1), ['servers/simple', '--task', ...words])
  // a # inside a word is no comment: left bare
  assert.equal(serverCommand({ server: 'simple', flags: ['--task', './t.js#render'] }), 'node servers/simple --task ./t.js#render')
})

test('serverCommand: a --task inside the project is written relative to it, with its export; outside, as given', () => {
  const cwd = '/home/me/app'
  const flags = (path) => ['--task', path, '--work', join(cwd, 'not-a-task.js')]
  const at = (path) => serverCommand({ server: 'simple', flags: flags(path), form: 'loadlab', cwd }).split(' ')
  assert.equal(at(join(cwd, 'src/render.js#render'))[4], './src/render.js#render')
  assert.equal(at(join(cwd, 'src/render.js'))[4], './src/render.js')
  assert.equal(at('/elsewhere/task.js')[4], '/elsewhere/task.js')
  assert.equal(at(join(cwd, 'src/render.js'))[6], join(cwd, 'not-a-task.js'), 'only the word after --task')
  // in the checkout (form node) the path stays as the lab was given it
  assert.equal(serverCommand({ server: 'simple', flags: flags(join(cwd, 'x.js')), cwd }).split(' ')[3], join(cwd, 'x.js'))
})
