// The fan-out's parts that need no namespaces: the host list, pdsh's output read back per host (a real
// pdsh, --rcmd exec with `env` as the prefix, where pdsh is installed), what counts as a shard's report, the
// start spread and the missing share of a merge, the CLI's refusals, and a whole fan-out through pdsh's
// ssh module with a local stand-in for ssh.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../../../loadtest/catalog.js'
import { startServer } from '../../helpers/server.js'
import { tempDir } from '../../helpers/lab.js'
import { expandHosts } from '../../../loadtest/fanout/hosts.js'
import { escapePercent, pdshArgs, runPdsh, shellWord } from '../../../loadtest/fanout/pdsh.js'
import { readShard } from '../../../loadtest/fanout/fanout.js'
import { parseFanoutArgs } from '../../../loadtest/fanout/cli.js'
import { missingOf, startOf } from '../../../loadtest/merge/merge.js'
import { missingText, noShardText, refusedMissing, spreadReason } from '../../../loadtest/text/fanout.js'

const noPdsh = spawnSync('pdsh', ['-V']).error ? 'pdsh is not installed (scripts/ensure-pdsh.js installs it as root)' : false

test('hosts as pdsh -w writes them: ranges expanded in order, duplicates and pdsh-only forms refused', () => {
  assert.deepEqual(expandHosts('ns[1-3]'), ['ns1', 'ns2', 'ns3'])
  assert.deepEqual(expandHosts('gen[08-10,03],b.example'), ['gen08', 'gen09', 'gen10', 'gen03', 'b.example'])
  assert.deepEqual(expandHosts('c,a,b'), ['c', 'a', 'b'], 'the order given is the shard order')
  for (const [spec, why] of [['a,a', /given twice/], ['', /expected the hosts/], ['^hosts.txt', /not a host name/],
    ['user@a', /not a host name/], ['ns[3-1]', /bad range/], ['ns[x]', /bad range/]]) {
    assert.throws(() => expandHosts(spec), (err) => err.exitCode === 2 && why.test(err.message), spec)
  }
})

test('a remote command: words quoted for the shell, pdsh\'s % kept out', () => {
  assert.equal(shellWord('/opt/loadlab'), '/opt/loadlab')
  assert.equal(shellWord("it's here"), "'it'\\''s here'")
  assert.equal(escapePercent('http://x/a%20b'), 'http://x/a%%20b')
  assert.deepEqual(pdshArgs({ hosts: ['a', 'b'], rcmd: 'ssh', command: 'uptime', timeoutSec: 9.2 }),
    ['-R', 'ssh', '-w', 'a,b', '-f', '2', '-b', '-S', '-u', '10', 'uptime'])
})

test('pdsh\'s output read back per host: lines by prefix, exit codes and signals from its own words', { skip: noPdsh }, async () => {
  const hosts = ['h0', 'h1', 'h2', 'h3']
  // %n: h0 prints a JSON of many lines and exits 0, h1 exits 1, h2 is killed by signal 9, h3 says a line
  // with ": " in it on stderr and exits 3.
  const script = 'n=%n; if [ $n = 0 ]; then printf \'{\\n  "a": "x: y",\\n  "b": [1,\\n 2]\\n}\\n\'; fi; ' +
    'if [ $n = 1 ]; then echo out-1; exit 1; fi; if [ $n = 2 ]; then kill -9 $$; fi; ' +
    'if [ $n = 3 ]; then echo "boom: a: b" >&2; exit 3; fi'
  const run = await runPdsh(pdshArgs({ hosts, rcmd: 'exec', prefix: ['env'], command: script }), { hosts })
  assert.equal(run.exitCode, 3, '-S: the largest exit code (a host killed by a signal does not count in it)')
  const h = (k) => run.hosts.get(hosts[k])
  assert.deepEqual(JSON.parse(h(0).stdout), { a: 'x: y', b: [1, 2] })
  assert.equal(h(0).exitCode, 0)
  assert.deepEqual([h(1).stdout, h(1).exitCode, h(1).signal], ['out-1', 1, null])
  assert.deepEqual([h(2).stdout, h(2).exitCode, h(2).signal], ['', null, 9])
  assert.deepEqual([h(3).exitCode, h(3).stderrTail], [3, ['boom: a: b']])
  assert.deepEqual(run.stray, [])
})

test('what counts as a shard\'s report on a host\'s stdout', () => {
  const base = { exitCode: 0, signal: null, stderrTail: [], overflow: 0, said: null }
  const report = (index) => JSON.stringify({ kind: 'loadlab-report', method: { shard: { index, count: 3 } } })
  const why = (r) => readShard('a', 1, 3, { ...base, ...r }).failure.why
  assert.match(why({ stdout: report(1) }), /shard 1\/3, not 2\/3/)
  assert.match(why({ stdout: '' }), /no report on its stdout/)
  assert.match(why({ stdout: '', said: 'command timeout' }), /pdsh: command timeout/)
  assert.match(why({ stdout: '{"kind": "loadlab-rep' }), /not a report/)
  assert.match(why({ stdout: '{}' }), /not a shard report/)
  assert.match(why({ stdout: report(2), overflow: 1 }), /passed \d+ bytes/)
  assert.match(why({ stdout: report(2) }), /^its report is refused: a is a schema null report/, 'read as npm run merge reads it')
})

// A shard report as far as startOf and missingOf read it.
function shard (index, count, { due = 0, issued = 0.5 } = {}) {
  return {
    method: { rate: 300, amount: 300, durationSec: null, arrival: 'constant', shard: { index, count } },
    results: [{ open: { firstDueMs: due, firstIssueMs: issued } }]
  }
}

test('the start spread: on the shards\' own clocks, and on the target\'s where every offset is known', () => {
  const entries = [
    { report: shard(1, 3, { due: 0, issued: 0.5 }), clock: { offsetMs: 2, uncertaintyMs: 0.5 } },
    { report: shard(2, 3, { due: 3.333, issued: 3.833 }), clock: { offsetMs: -10, uncertaintyMs: 1 } },
    { report: shard(3, 3, { due: 6.667, issued: 16.667 }), clock: { offsetMs: 0, uncertaintyMs: 0.25 } }
  ]
  const s = startOf(entries)
  assert.deepEqual(s.shards.map((x) => x.startMs), [0.5, 0.5, 10])
  assert.equal(s.spreadMs, 9.5)
  assert.deepEqual(s.shards.map((x) => x.onTargetMs), [-1.5, 10.5, 10])
  assert.equal(s.targetSpreadMs, 12)
  assert.equal(s.uncertaintyMs, 2)
  assert.equal(s.spreadAtLeastMs, 10)
  assert.equal(s.clocks, 'measured')
  assert.match(spreadReason(s), /at least 10 ms apart \(9\.5 ms on their own clocks; 12 ms ± 2 ms on the target's clock\), more than the 5 ms/)
  const unknown = startOf(entries.map((e, k) => ({ ...e, clock: k === 1 ? { offsetMs: null, why: 'no Date' } : e.clock })))
  assert.deepEqual([unknown.clocks, unknown.targetSpreadMs, unknown.spreadAtLeastMs], ['unknown', null, 9.5])
})

test('a shard missing: which, and its share of the plan', () => {
  const entries = [{ report: shard(1, 3) }, { report: shard(3, 3) }]
  const m = missingOf(entries, [{ index: 2, host: 'ns2', exitCode: null, signal: 9, why: 'no report' }])
  assert.deepEqual(m, {
    shards: [{ index: 2, count: 3, host: 'ns2', exitCode: null, signal: 9, why: 'no report' }], planned: 100, total: 300, share: 0.3333
  })
  assert.equal(missingText(m), 'shard 2/3 (ns2) missing: 33.3 % of the plan (100 of 300 requests) not in the merged figures')
  assert.match(refusedMissing(m), /refuses a plan with a shard missing \(--allow-missing merges the rest\)/)
  assert.equal(missingOf([...entries, { report: shard(2, 3) }]), null)
})

test('no shard back: a shard that found the common start past says to give a longer lead; any other failure does not', () => {
  const stderrTail = ['loadlab lab: --start-at: 2026-11-28T19:59:32.428Z is 2.0 s in the past']
  const late = { index: 1, count: 2, host: 'h1', exitCode: 2, signal: null, why: 'no report on its stdout', stderrTail }
  assert.match(noShardText([late], 8), /^no shard brought a report back: shard 1\/2 on h1 failed .*; a shard started after the common start, 8 s ahead: give a longer --lead$/)
  const other = { ...late, stderrTail: ['loadlab lab: --rate: expected a number'] }
  assert.doesNotMatch(noShardText([other], 8), /--lead/)
})

test('fanout refuses, before anything starts, what it cannot run', () => {
  const base = ['-w', 'a,b', '--url', 'http://127.0.0.1:3000/', '--rate', '100']
  assert.equal(parseFanoutArgs(base).rcmd, 'ssh')
  assert.deepEqual(parseFanoutArgs([...base, '--rcmd', 'exec', '--exec', 'ip netns exec %h']).prefix, ['ip', 'netns', 'exec', '%h'])
  for (const [args, why] of [
    [['--rcmd', 'exec'], /--exec PREFIX goes with --rcmd exec/],
    [['--exec', 'x'], /--exec PREFIX goes with --rcmd exec/],
    [['--rcmd', 'rsh'], /--rcmd: expected ssh or exec/],
    [['-d', '2', '-a', '10'], /exclude each other/],
    [['--', '--shard', '1/2'], /--shard after --: the fan-out sets it/],
    [['--threshold', 'p99<<1'], /--threshold/],
    [['--amount', '1'], /--amount: expected a whole number >= 2/]
  ]) {
    assert.throws(() => parseFanoutArgs([...base, ...args]), (err) => err.exitCode === 2 && why.test(err.message), args.join(' '))
  }
})

// An `ssh` that runs the remote command here, as sshd would give it to the host's shell: pdsh's ssh
// module calls `ssh [options] HOST COMMAND…` from the PATH. It writes its own command line to $SSH_LOG.
const LOCAL_SSH = `#!/bin/sh
tr '\\0' ' ' < /proc/$$/cmdline >> "$SSH_LOG"; echo >> "$SSH_LOG"
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
shift
exec sh -c "$*"
`

test('--rcmd ssh: the remote command as a host\'s shell reads it (a local ssh stand-in), shards merged, secrets kept', { skip: noPdsh, timeout: 120_000 }, async (t) => {
  const server = await startServer('simple', ['--work', 'loop:100'])
  const dir = await tempDir('loadlab-fanout-ssh-')
  t.after(() => Promise.all([server.stop(), dir.cleanup()]))
  const bin = join(dir.dir, 'bin')
  await mkdir(bin)
  await writeFile(join(bin, 'ssh'), LOCAL_SSH, { mode: 0o755 })
  const url = server.url.replace('://', '://alice:Pa55w0rdXYZ@')
  const log = join(dir.dir, 'ssh.log')
  const run = await execa(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), 'fanout', '-w', 'h1,h2', '--node', process.execPath,
    '--url', `${url}/`, '--rate', '200', '-a', '100', '--out', join(dir.dir, 'merged'), '--', '--out', dir.dir,
    '-H', 'Authorization: Bearer S3cr3tT0ken'],
  { cwd: ROOT, reject: false, stdin: 'ignore', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, SSH_LOG: log, TMPDIR: dir.dir } })
  assert.equal(run.exitCode, 0, run.stderr)
  assert.match(run.stderr, /^shard 1\/2 on h1: sent 50, answered 50, .*\nshard 2\/2 on h2: sent 50, answered 50, /m)
  assert.match(run.stderr, /^merged 2 shards: sent 100, answered 100/m)
  // every ssh (the secrets file over its stdin, the clock pass, the shards) without the secret; none left behind
  const argv = await readFile(log, 'utf8')
  assert.match(argv, /-oBatchMode=yes h1 umask 077 && mkdir .*loadlab-[0-9a-f]+-h1 && cat >/)
  assert.match(argv, /h2 .*loadtest\/cli\.js --rate 200 --amount 100 --no-ruler /, 'a shard reads no ruler')
  assert.doesNotMatch(argv, /Pa55w0rdXYZ|S3cr3tT0ken/)
  assert.deepEqual((await readdir(dir.dir)).filter((f) => f.startsWith('loadlab-')), [])
  for (const sub of ['.', 'merged']) {
    for (const f of (await readdir(join(dir.dir, sub), { recursive: true })).filter((x) => /\.(json|md|html)$/.test(x))) {
      assert.doesNotMatch(await readFile(join(dir.dir, sub, f), 'utf8'), /Pa55w0rdXYZ|S3cr3tT0ken/, f)
    }
  }
})
