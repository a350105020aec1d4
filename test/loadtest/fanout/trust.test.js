// A fan-out that keeps its secrets and trusts nothing, through a real pdsh (-R exec, `env` as the prefix)
// with a stand-in for node on each host (test/fixtures/shards/fake-node.sh): the URL and the headers reach
// the shards in a 0600 file and their environment, never a command line or a report; a clock pass that
// lies is refused in one line; a shard whose report disagrees with itself is missing, not a usage error;
// an interrupted fan-out ends every shard's process group, a shard that is not node (`sleep 600`) too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { execa } from 'execa'
import { ROOT, tempDir } from '../../helpers/lab.js'
import { checkClock } from '../../../loadtest/fanout/fanout.js'
import { placeSecrets, removeSecrets, shardSecrets, takeHeaders } from '../../../loadtest/fanout/secrets.js'

const noPdsh = spawnSync('pdsh', ['-V']).error ? 'pdsh is not installed (scripts/ensure-pdsh.js installs it as root)' : false
const FAKE_NODE = join(ROOT, 'test', 'fixtures', 'shards', 'fake-node.sh')
const PASSWORD = 'Pa55w0rdXYZ'
const TOKEN = 'S3cr3tT0ken'
const URL_WITH_SECRET = `http://alice:${PASSWORD}@127.0.0.1:9/api?x=1`

// `loadlab fanout --rcmd exec --exec env -w h1,h2 …` with the stand-in node, a pdsh that writes its own
// command line first, TMPDIR in `dir`: execa's subprocess.
function fanout (dir, args, env = {}, { rcmd = 'exec' } = {}) {
  const bin = join(dir, 'bin')
  mkdirSync(bin, { recursive: true })
  const real = spawnSync('sh', ['-c', 'command -v pdsh'], { encoding: 'utf8' }).stdout.trim()
  const log = 'tr \'\\0\' \' \' < /proc/$$/cmdline >> "$FAKE_DIR/cmdlines"\necho >> "$FAKE_DIR/cmdlines"'
  writeFileSync(join(bin, 'pdsh'), `#!/bin/sh\n${log}\nexec ${real} "$@"\n`, { mode: 0o755 })
  // an ssh that runs the remote command here, as a host's shell would (pdsh's ssh module: ssh [options] HOST COMMAND…)
  writeFileSync(join(bin, 'ssh'), `#!/bin/sh\n${log}\nwhile [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done\n` +
    'shift\nexec sh -c "$*"\n', { mode: 0o755 })
  const how = rcmd === 'exec' ? ['--rcmd', 'exec', '--exec', 'env'] : ['--rcmd', 'ssh']
  return execa(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), 'fanout', ...how, '-w', 'h1,h2',
    '--node', FAKE_NODE, '--rate', '100', '-a', '40', '--lead', '1', '--out', join(dir, 'out'), ...args], {
    cwd: ROOT,
    reject: false,
    stdin: 'ignore',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TMPDIR: dir, FAKE_DIR: dir, FAKE_NODE: process.execPath, ...env }
  })
}

// Every file under dir, with its text.
async function texts (dir) {
  const out = []
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push([join(e.parentPath ?? e.path, e.name), await readFile(join(e.parentPath ?? e.path, e.name), 'utf8')])
  }
  return out
}

test('-H values are taken out of the lab options for the shards\' secrets', () => {
  assert.deepEqual(takeHeaders(['-c', '8', '-H', 'Authorization: a', '--header=Cookie: b', '-HX-A: c', '--header', 'Y: d']),
    { args: ['-c', '8'], header: ['Authorization: a', 'Cookie: b', 'X-A: c', 'Y: d'] })
})

test('a shard\'s secrets file: mode 0600 in a directory of mode 0700, removed after', async (t) => {
  const dir = await tempDir('loadlab-fanout-secrets-')
  const before = process.env.TMPDIR
  process.env.TMPDIR = dir.dir
  t.after(() => {
    process.env.TMPDIR = before
    if (before === undefined) delete process.env.TMPDIR
    return dir.cleanup()
  })
  const plan = { rcmd: 'exec', hosts: ['h1'] }
  const secrets = shardSecrets({ url: URL_WITH_SECRET, header: [`Authorization: Bearer ${TOKEN}`] })
  assert.deepEqual(await placeSecrets(plan, secrets), [])
  const [made] = await readdir(dir.dir)
  assert.equal((await stat(join(dir.dir, made))).mode & 0o777, 0o700)
  assert.equal((await stat(join(dir.dir, made, 'secrets'))).mode & 0o777, 0o600)
  assert.deepEqual(JSON.parse(await readFile(join(dir.dir, made, 'secrets'), 'utf8')).header, [`Authorization: Bearer ${TOKEN}`])
  assert.match((await placeSecrets(plan, secrets))[0].why, /EEXIST/, 'a path already there is never written through')
  await removeSecrets(plan, secrets, plan.hosts)
  assert.deepEqual(await readdir(dir.dir), [])
})

test('no secret on any command line the fan-out starts (pdsh, clock.js, the shards) nor in any report', { skip: noPdsh, timeout: 180_000 }, async (t) => {
  const dir = await tempDir('loadlab-fanout-secret-')
  t.after(() => dir.cleanup())
  const run = await fanout(dir.dir, ['--url', URL_WITH_SECRET, '--', '-H', `Authorization: Bearer ${TOKEN}`, '-H', 'X-Plain: yes'])
  assert.equal(run.exitCode, 0, run.stderr)
  const cmdlines = await readFile(join(dir.dir, 'cmdlines'), 'utf8')
  assert.match(cmdlines, /pdsh .*loadtest\/fanout\/clock\.js http:\/\/127\.0\.0\.1:9\//, 'pdsh and the clock pass were seen')
  assert.match(cmdlines, /fake-node\.sh --import=\.\/loadtest\/cli\.js loadtest\/fanout\/clock\.js http:\/\/127\.0\.0\.1:9\/ \n/, 'clock.js gets the origin alone')
  assert.match(cmdlines, /fake-node\.sh loadtest\/cli\.js --rate 100 --amount 40 .* --shard 1\/2/)
  assert.doesNotMatch(cmdlines, new RegExp(`${PASSWORD}|${TOKEN}|alice|x=1`))
  // the shards got them, in their environment
  const given = (await readdir(dir.dir)).filter((f) => f.startsWith('secrets-'))
  assert.equal(given.length, 2)
  for (const f of given) {
    assert.deepEqual(JSON.parse(await readFile(join(dir.dir, f), 'utf8')),
      { url: new URL(URL_WITH_SECRET).href, header: [`Authorization: Bearer ${TOKEN}`, 'X-Plain: yes'] })
  }
  assert.deepEqual((await readdir(dir.dir)).filter((f) => f.startsWith('loadlab-')), [], 'every secrets file removed')
  const written = await texts(join(dir.dir, 'out'))
  assert.ok(written.some(([f]) => f.endsWith('.html')) && written.some(([f]) => f.endsWith('.md')))
  for (const [file, text] of written) assert.doesNotMatch(text, new RegExp(`${PASSWORD}|${TOKEN}`), file)
  const json = JSON.parse(written.find(([f]) => /Z-[^/]*\.json$/.test(f) && !f.includes('-shards'))[1])
  assert.match(json.method.command, /--url 'http:\/\/\*\*\*@127\.0\.0\.1:9\/api\?x=1' .*-H 'Authorization: \*\*\*' -H 'X-Plain: yes'/)
})

test('a clock pass that lies is refused in one line before any shard starts', { skip: noPdsh, timeout: 60_000 }, async (t) => {
  assert.match(checkClock({ offsetMs: 1, uncertaintyMs: 1, measureMs: 'zz' }).fault, /measureMs "zz"/)
  assert.match(checkClock({ offsetMs: 1e308, uncertaintyMs: 1, measureMs: 1 }).fault, /offsetMs 1e\+308/)
  assert.match(checkClock({ offsetMs: NaN, uncertaintyMs: 1, measureMs: 1 }).fault, /offsetMs null/)
  assert.deepEqual(checkClock({ offsetMs: -2.5, uncertaintyMs: 0.4, measureMs: 1100 }).clock,
    { offsetMs: -2.5, uncertaintyMs: 0.4, measureMs: 1100 })
  const dir = await tempDir('loadlab-fanout-clock-')
  t.after(() => dir.cleanup())
  const run = await fanout(dir.dir, ['--url', 'http://127.0.0.1:9/'], { FAKE_MODE: 'lie' })
  assert.equal(run.exitCode, 1, run.stderr)
  assert.equal(run.stderr.trim().split('\n').at(-1), run.stderr.trim().split('\n').find((l) => l.startsWith('fanout: the clock')))
  assert.match(run.stderr, /^fanout: the clock pass on h[12] said offsetMs 1e\+308 \(-3600000 to 3600000\), not a measurement: nothing started$/m)
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack')
  assert.doesNotMatch(await readFile(join(dir.dir, 'cmdlines'), 'utf8'), /\sloadtest\/cli\.js/, 'no shard started')
})

test('a shard whose report disagrees with itself is missing: exit 1, or with --allow-missing the rest merged', { skip: noPdsh, timeout: 180_000 }, async (t) => {
  const dir = await tempDir('loadlab-fanout-refused-')
  t.after(() => dir.cleanup())
  const plan = ['--url', 'http://127.0.0.1:9/', '--no-clock']
  const refused = await fanout(dir.dir, plan, { FAKE_BAD: '2' })
  assert.equal(refused.exitCode, 1, refused.stderr)
  assert.match(refused.stderr, /shard 2\/2 on h2 failed \(exit code 0\): its report is refused: its figures disagree \(its rate 500000000 req\/s/)
  assert.match(refused.stderr, /fanout: shard 2\/2 \(h2\) missing: 50 % of the plan \(20 of 40 requests\) not in the merged figures; /)
  const kept = await fanout(dir.dir, [...plan, '--allow-missing'], { FAKE_BAD: '2' })
  assert.equal(kept.exitCode, 0, kept.stderr)
  assert.match(kept.stderr, /^merged 1 shard: sent 20, answered 20, /m)
  const files = (await readdir(join(dir.dir, 'out'))).filter((f) => f.endsWith('.json'))
  const report = JSON.parse(await readFile(join(dir.dir, 'out', files[0]), 'utf8'))
  assert.equal(report.status, 'partial')
  assert.deepEqual(report.method.missing.map((m) => [m.index, m.host]), [[2, 'h2']])
  assert.match(report.method.missing[0].why, /its report is refused/)
})

for (const rcmd of ['exec', 'ssh']) {
  test(`an interrupted fan-out ends every shard's process group, a shard that is not node too, and says so (--rcmd ${rcmd})`, { skip: noPdsh, timeout: 60_000 }, async (t) => {
    const dir = await tempDir('loadlab-fanout-stop-')
    const pids = []
    t.after(() => {
      for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {}
      return dir.cleanup()
    })
    const run = fanout(dir.dir, ['--url', 'http://127.0.0.1:9/', '--no-clock'], { FAKE_MODE: 'sleep' }, { rcmd })
    for (let i = 0; i < 300 && pids.length < 2; i++) {
      await delay(100)
      pids.splice(0, pids.length, ...(await readdir(dir.dir)).filter((f) => f.startsWith('pid-')).map((f) => Number(f.slice(4))))
    }
    assert.equal(pids.length, 2, 'both stand-ins started')
    run.kill('SIGINT')
    const done = await run
    assert.equal(done.exitCode, 130, done.stderr)
    assert.match(done.stderr, /^fanout: interrupted: shards 1\/2 \(h1\), 2\/2 \(h2\) seen to end; nothing merged$/m)
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    })
    assert.deepEqual(alive, [], 'no stand-in left')
  })
}
