// Bad flags, bad values and bad work exit 2 with one line on stderr naming the flag, the rule and the value.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { runServer } from '../helpers/server.js'

const cases = [
  [
    'simple',
    ['--bogus', '1'],
    {},
    /^--bogus: unknown option \(valid: --port, --host, --work, --task, --input, --task-timeout, --telemetry, --work-override, --request-timeout, --shed-loop-delay, --help\)$/
  ],
  ['queued-threads', ['--threads', 'abc'], {}, /^--threads: expected an integer from 1 to 256, got "abc"$/],
  ['queued-threads', ['--max-queue', '-1'], {}, /^--max-queue: /],
  ['cluster', ['--workers', '0'], {}, /^--workers: expected an integer from 1 to 256, got "0"$/],
  ['cluster-threads', ['--telemetry', 'maybe'], {}, /^--telemetry: expected one of on, off, got "maybe"$/],
  [
    'sleep-variants',
    ['--variant', 'nope'],
    {},
    /^--variant: expected one of async-sleep-unpooled, async-sleep-pooled, sync-sleep-unpooled, sync-sleep-pooled, got "nope"$/
  ],
  ['sleep-variants', ['--delay', '100000'], {}, /^--delay: expected an integer from 0 to 60000, got "100000"$/],
  [
    'sleep-variants',
    ['--idle-timeout', '1000'],
    {},
    /^--idle-timeout: only for the pooled variants, got "1000" with --variant async-sleep-unpooled$/
  ],
  ['long-vs-small-tasks', ['--mode', 'medium'], {}, /^--mode: expected one of long, small, got "medium"$/],
  ['long-vs-small-tasks', ['--api-url', 'http://127.0.0.1:9/'], {}, /^--api-url: needs --api on/],
  [
    'long-vs-small-tasks',
    ['--api', 'on', '--api-url', 'ftp://x'],
    {},
    /^--api-url: expected an http:\/\/ URL, got "ftp:\/\/x"$/
  ],
  [
    'child-process',
    ['--work', 'loop:abc'],
    {},
    /^bad work spec "loop:abc": expected loop:N \(1\.\.1e9\), fib:N \(1\.\.45\), .*sleep-sync:MS \(0\.\.60000\)/
  ],
  ['worker-per-request', [], { WORK: 'fib:99' }, /^bad work spec "fib:99": expected /],
  ['simple', [], { PORT: 'http' }, /^--port: expected an integer from 0 to 65535, got "http" \(from PORT\)$/],
  ['simple', ['--port'], {}, /^--port: expected a value$/],
  ['queued-threads', ['--deadline', '-1'], {}, /^--deadline: expected a value, got one that starts with "-" \(read as an option: no negative value is accepted\)$/],
  ['simple', ['stray'], {}, /^simple: unexpected argument stray/]
]

test('bad flags, values and work: exit 2, one line on stderr, nothing on stdout', async () => {
  const results = await Promise.all(
    cases.map(([name, args, env]) => runServer(name, args, { env: { PORT: '0', ...env } }))
  )
  results.forEach((r, i) => {
    const [name, args, env, message] = cases[i]
    const what = `${name} ${args.join(' ')} ${JSON.stringify(env)}`
    assert.equal(r.code, 2, `${what}: exit code; stderr ${r.stderr}`)
    assert.equal(r.stdout, '', what)
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: one line, got ${JSON.stringify(r.stderr)}`)
    assert.match(r.stderr.trim(), message, what)
  })
})

test('--help lists the options with their defaults and exits 0', async () => {
  const r = await runServer('queued-threads', ['--help'])
  assert.equal(r.code, 0)
  assert.match(r.stdout, /^usage: node servers\/queued-threads \[options\]/)
  for (const flag of [
    '--port',
    '--host',
    '--work',
    '--telemetry',
    '--threads',
    '--max-queue',
    '--idle-timeout',
    '--help'
  ]) {
    assert.ok(r.stdout.includes(flag), flag)
  }
  assert.match(r.stdout, /--work .*default loop:1e8/)
})
