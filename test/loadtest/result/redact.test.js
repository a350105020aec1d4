// Secrets never reach a report: a URL's user information and the values of secret headers (Authorization,
// Proxy-Authorization, Cookie) are *** in the command a report keeps and in every field of it, for the lab
// (a real run with -H), fanout and merge (their commands: commandText).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { commandText } from '../../../loadtest/result/command.js'
import { redactArgs, redactCredentials, redactUrl } from '../../../loadtest/result/redact.js'
import { runLab, tempDir } from '../../helpers/lab.js'
import { startServer } from '../../helpers/server.js'

test('redactArgs: URL user information and secret headers, in every form of -H', () => {
  assert.deepEqual(redactArgs(['--url', 'http://alice:Pa55@h:1/x', '-H', 'Authorization: Bearer t', '-H', 'X-A: 1',
    '--header=cookie: a=b', '-HProxy-Authorization:Basic q', '--header', ' Cookie : z', '--url=https://u@h/', '-H', 'authorization=Bearer t']),
  ['--url', 'http://***@h:1/x', '-H', 'Authorization: ***', '-H', 'X-A: 1', '--header=cookie: ***',
    '-HProxy-Authorization: ***', '--header', ' Cookie : ***', '--url=https://***@h/', '-H', 'authorization=***'])
  assert.equal(redactUrl('see http://a:p@ss@host/ and ftp://x@y'), 'see http://***@host/ and ftp://***@y',
    'up to the last @ before the host, as a URL parser reads it')
  assert.equal(commandText(['loadlab', 'fanout'], ['-w', 'a,b', '--url', "http://a:it's@h/", '--', '-H', 'Cookie: s=1']),
    "loadlab fanout -w a,b --url 'http://***@h/' -- -H 'Cookie: ***'")
})

test('redactCredentials: a secret header in a request mix\'s classes is ***, others kept', () => {
  const method = { mix: { classes: [{ name: 'request', headers: { Authorization: 'Bearer t', 'x-a': '1', COOKIE: 'c' } }] } }
  assert.deepEqual(redactCredentials(method).mix.classes[0].headers, { Authorization: '***', 'x-a': '1', COOKIE: '***' })
})

test('the lab: -H Authorization and a URL password reach the server, never the report', { timeout: 60_000 }, async (t) => {
  const server = await startServer('simple', [])
  const dir = await tempDir('loadlab-redact-')
  t.after(() => Promise.all([server.stop(), dir.cleanup()]))
  const url = server.url.replace('://', '://alice:Pa55w0rdXYZ@')
  const run = await runLab(['--url', `${url}/`, '-H', 'Authorization: Bearer S3cr3tT0ken', '-H', 'Cookie: sid=C00kieV',
    '--amount', '20', '--out', dir.dir])
  assert.equal(run.exitCode, 0, run.stderr)
  const files = await readdir(dir.dir)
  assert.equal(files.length, 3)
  for (const f of files) assert.doesNotMatch(await readFile(join(dir.dir, f), 'utf8'), /Pa55w0rdXYZ|S3cr3tT0ken|C00kieV/, f)
  const json = JSON.parse(await readFile(join(dir.dir, files.find((f) => f.endsWith('.json'))), 'utf8'))
  assert.match(json.method.command, /-H 'Authorization: \*\*\*' -H 'Cookie: \*\*\*'/)
  assert.deepEqual(json.method.mix.classes[0].headers, { Authorization: '***', Cookie: '***' })
  assert.doesNotMatch(run.stderr, /Pa55w0rdXYZ|S3cr3tT0ken|C00kieV/)
})
