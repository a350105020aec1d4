// What probing the servers found (issue 19): a task rejecting with null is an answer, not a TypeError, in
// every server and in the lab's own check; a task that sets Object.prototype.work does not choose later
// requests' work; POST /__lab/stats/reset answers the lab only (no Origin, no body but JSON); a server
// option given twice is refused and a long bad value is clipped in the message (item 12, as the lab's).
// Real servers on real sockets; the lab's check runs in its real child process.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { checkTask, describeLabTask } from '../../loadtest/run/watch/task.js'
import { parseOptions } from '../../servers/lib/options.js'
import { getJson, ROOT, startServer } from '../helpers/server.js'

const TASKS = join(ROOT, 'test', 'fixtures', 'tasks')
const REJECTS_NULL = join(TASKS, 'failing.mjs#rejectsNull')

for (const name of ['simple', 'child-process', 'queued-threads', 'worker-per-request']) {
  test(`${name}: a task that rejects with null answers 500 "task threw: null"`, async (t) => {
    const srv = await startServer(name, ['--task', REJECTS_NULL])
    t.after(() => srv.stop())
    const res = await getJson(`${srv.url}/`)
    assert.equal(res.status, 500)
    assert.deepEqual({ code: res.body.code, message: res.body.message }, { code: 'ERR_TASK_FAILED', message: 'task threw: null' })
  })
}

test("the lab's task check: a task that rejects with null is refused as \"task threw: null\"", async () => {
  const work = await describeLabTask({ task: REJECTS_NULL, input: undefined, timeoutSec: 5, cwd: ROOT })
  await assert.rejects(checkTask(work), (err) => {
    assert.equal(err.code, 'LAB_TASK')
    assert.match(err.message, /failing\.mjs#rejectsNull: task threw: null$/)
    return true
  })
})

test('a task that sets Object.prototype.work does not change the work of later requests', async (t) => {
  const srv = await startServer('simple', ['--task', join(TASKS, 'pollutes.mjs')])
  t.after(() => srv.stop())
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${srv.url}/`)
    assert.equal(res.status, 200)
    assert.equal(await res.text(), '{"polluted":true}', `request ${i + 1}`)
  }
  assert.equal(await (await fetch(`${srv.url}/?work=fib:10`)).text(), '{"fib":55}', '?work= still chooses')
})

test('POST /__lab/stats/reset: refused with an Origin (403) or a body that is not JSON (415); the lab\'s POST resets', async (t) => {
  const srv = await startServer('simple', ['--work', 'fib:5'])
  t.after(() => srv.stop())
  const reset = (init = {}) => getJson(`${srv.url}/__lab/stats/reset`, { method: 'POST', ...init })
  const completed = async () => (await getJson(`${srv.url}/__lab/stats`)).body.requests.completed
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${srv.url}/`)).status, 200)
  const cross = await reset({ headers: { origin: 'http://evil.example', 'content-type': 'text/plain' }, body: 'x' })
  assert.equal(cross.status, 403)
  assert.equal(cross.body.code, 'ERR_CROSS_ORIGIN')
  const rebound = await reset({ headers: { origin: srv.url } })
  assert.equal(rebound.status, 403, 'an Origin naming the server itself (DNS rebinding) is refused too')
  const text = await reset({ headers: { 'content-type': 'text/plain' }, body: 'reset' })
  assert.equal(text.status, 415)
  assert.equal(text.body.code, 'ERR_MEDIA_TYPE')
  const form = await reset({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })
  assert.equal(form.status, 415)
  assert.equal(await completed(), 3, 'no refused POST reset the window')
  assert.equal((await reset()).status, 200)
  assert.equal(await completed(), 0)
  assert.equal((await fetch(`${srv.url}/`)).status, 200)
  const json = await reset({ headers: { 'content-type': 'application/json' }, body: '{}' })
  assert.equal(json.status, 200)
  assert.equal(await completed(), 0)
})

test('a server option given twice is refused (the last won silently); a 100 kB bad value is clipped in the message', () => {
  const parse = (argv) => parseOptions({ strategy: 'queued-threads', work: 'fib:5', argv, extra: {}, env: {} })
  const refused = (argv, why) => assert.throws(() => parse(argv), (err) => {
    assert.equal(err.code, 'ERR_BAD_OPTION')
    assert.equal(err.exitCode, 2)
    assert.match(err.message, why)
    assert.ok(err.message.length < 300, `${err.message.length} characters`)
    return true
  })
  refused(['--port', '1', '--port', '2'], /^--port given 2 times \(1, 2\): give it once$/)
  refused(['--work', 'fib:5', '--work=fib:6'], /^--work given 2 times/)
  refused(['--port', '9'.repeat(100_000)], /^--port: expected an integer from 0 to 65535, got "9+… \(100000 characters\)"$/)
  assert.equal(parse(['--port', '0', '--work', 'fib:7']).work.spec, 'fib:7', 'each once is read as before')
})
