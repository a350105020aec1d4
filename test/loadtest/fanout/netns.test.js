// The fan-out for real (root, Linux): three network namespaces joined by a bridge, each with its own
// address, run the shards of one plan, started by pdsh (--rcmd exec, `ip netns exec %h`), against
// servers/simple in a fourth; the merged counts are the plan's. A second run loses a shard, killed by
// its pid mid-run: the fan-out names it and, asked to, merges the rest, saying the share missing; a third
// names a host that cannot run its shard, and the plan is refused; the three side by side. The namespaces,
// veths and bridge are removed whatever happens; the test skips, with the reason, where namespaces or pdsh
// cannot be had.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT } from '../../../loadtest/catalog.js'
import { startServer, stopServer } from '../../../loadtest/run/watch/boot.js'
import { plannedSlice } from '../../../loadtest/merge/counts.js'
import { validateReport } from '../../../loadtest/report/read.js'
import { makeNamespaces, netnsUnavailable } from '../../helpers/netns.js'
import { shardStartAt, tempDir } from '../../helpers/lab.js'

const BIN = join(ROOT, 'bin', 'loadlab.js')
const skip = netnsUnavailable()
const RATE = 150
const SECONDS = 2

// The fan-out CLI over the namespaces; resolves execa's result.
function fanout (hosts, url, args, labOut) {
  return execa(process.execPath, [
    BIN, 'fanout', '--rcmd', 'exec', '--exec', 'ip netns exec %h', '-w', hosts.join(','),
    '--url', url, '--rate', String(RATE), '-d', String(SECONDS), ...args, '--', '--out', labOut
  ], { cwd: ROOT, reject: false, stdin: 'ignore', all: false })
}

async function mergedReport (dir) {
  const name = (await readdir(dir)).find((f) => f.endsWith('.json'))
  return JSON.parse(await readFile(join(dir, name), 'utf8'))
}

// The pid of the process whose argv holds every one of `words` in a row (a shard's lab), or null.
function pidWith (words) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let argv
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    const at = argv.indexOf(words[0])
    if (at !== -1 && words.every((w, i) => argv[at + i] === w)) return Number(pid)
  }
  return null
}

const opts = { skip: skip ?? false, timeout: 240_000, concurrency: true } // the three runs side by side
test('fan-out over 3 network namespaces: shards started by pdsh, merged into the plan', opts, async (t) => {
  const ns = makeNamespaces(3)
  const dirs = []
  let server = null
  const cleanup = async () => {
    if (server) await stopServer(server).catch(() => {})
    server = null
    const left = ns.remove()
    await Promise.all(dirs.map((d) => d.cleanup()))
    return left
  }
  t.after(cleanup)
  try {
    server = await startServer({
      entry: join(ROOT, 'servers', 'simple'),
      args: ['--work', 'loop:100'],
      execPath: execFileSync('sh', ['-c', 'command -v ip'], { encoding: 'utf8' }).trim(),
      // in the target's namespace, on its address instead of the starter's 127.0.0.1
      // ($1 the entry, $2–$5 --port 0 --host 127.0.0.1)
      execArgs: ['netns', 'exec', ns.target.name, 'sh', '-c',
        `n=$0; e=$1; shift 5; exec "$n" "$e" --port 0 --host ${ns.target.address} "$@"`, process.execPath],
      cwd: ROOT
    })
    const url = `http://${ns.target.address}:${new URL(server.url).port}/`
    for (let i = 0; i < 6; i++) dirs.push(await tempDir('loadlab-fanout-'))
    const one = t.test('three shards, merged counts equal the plan, a threshold crossed: exit 99', async () => {
      // the lead its clock pass gives (LEAD_FACTOR × the slowest host's answer, at least MIN_LEAD_SEC)
      const run = await fanout(ns.hosts, url, ['--threshold', 'p99<0.01ms', '--out', dirs[0].dir], dirs[1].dir)
      console.log(run.stderr)
      assert.equal(run.exitCode, 99, run.stderr)
      const report = validateReport(await mergedReport(dirs[0].dir))
      const r = report.results[0]
      const plan = RATE * SECONDS
      assert.equal(r.requests.sent, plan)
      assert.equal(r.requests.completed + r.requests.errors + r.requests.timeouts, plan)
      assert.equal(report.method.shards.length, 3)
      report.method.shards.forEach((s, k) => {
        assert.equal(s.host, ns.hosts[k])
        assert.equal(s.sent, plannedSlice(report.method, { index: k + 1, count: 3 }).planned)
        assert.equal(typeof s.startMs, 'number')
        assert.equal(typeof s.clock.offsetMs, 'number', JSON.stringify(s.clock))
      })
      assert.equal(r.start.clocks, 'measured')
      assert.ok(r.start.spreadMs >= 0)
      assert.equal(report.thresholds[0].status, 'crossed')
      const shardsDir = join(dirs[0].dir, `${report.id}-shards`)
      assert.deepEqual((await readdir(shardsDir)).sort(), report.method.shards.map((s) => s.file).sort())
      assert.match(run.stderr, /start spread [\d.]+ ms on the shards' own clocks; [\d.]+ ms ± [\d.]+ ms on the target's clock/)
    })
    const two = t.test('a shard killed mid-run: named with its host; --allow-missing merges the rest and says the share missing', async () => {
      const child = fanout(ns.hosts, url, ['--allow-missing', '--out', dirs[2].dir], dirs[3].dir)
      let stderr = ''
      child.stderr.on('data', (d) => { stderr += d })
      let startAt = null
      while (!startAt && child.exitCode === null) {
        await delay(100)
        startAt = /shards start at (\S+) /.exec(stderr)?.[1] ?? null
      }
      assert.ok(startAt, stderr)
      await delay(Date.parse(startAt) + (SECONDS * 1000) / 2 - Date.now()) // mid-run
      const pid = pidWith(['--start-at', startAt, '--json', '--out', dirs[3].dir, '--shard', '2/3'])
      assert.ok(pid, 'shard 2/3 is running')
      process.kill(pid, 'SIGKILL')
      const run = await child
      console.log(run.stderr)
      assert.equal(run.exitCode, 0, run.stderr)
      assert.match(run.stderr, new RegExp(`shard 2/3 on ${ns.hosts[1]} failed \\(killed by signal 9\\): no report`))
      const report = validateReport(await mergedReport(dirs[2].dir))
      const r = report.results[0]
      const lost = plannedSlice(report.method, { index: 2, count: 3 }).planned
      assert.equal(report.status, 'partial')
      assert.deepEqual(report.method.missing.map((m) => [m.index, m.host, m.signal]), [[2, ns.hosts[1], 9]])
      assert.equal(r.requests.sent, RATE * SECONDS - lost)
      assert.equal(r.trusted, false)
      const share = `(${lost} of ${RATE * SECONDS} requests) not in the merged figures`
      assert.ok(r.untrusted.includes(`shard 2/3 (${ns.hosts[1]}) missing: 33.3 % of the plan ${share}`), r.untrusted.join('\n'))
    })
    const three = t.test('a host that cannot run its shard: named with its end and last words; the plan refused, exit 1', async () => {
      const hosts = [ns.hosts[0], `${ns.hosts[0]}x`] // no such namespace: ip netns exec fails at once
      // a lead of the user's (--no-clock), set as a clock pass sets one (LEAD_FACTOR × what a lab process takes to
      // load here now), at least 20 s: the shard starts beside runs one and two, whose load a reading taken before
      // them misses (CI: 5 s, and the shard came 0.3 s late). Their ~50 s bound the file, so the wait costs none.
      const lead = Math.ceil((Date.parse(await shardStartAt(20_000)) - Date.now()) / 1000)
      const run = await fanout(hosts, url, ['--no-clock', '--lead', String(lead), '--out', dirs[4].dir], dirs[5].dir)
      console.log(run.stderr)
      assert.equal(run.exitCode, 1, run.stderr)
      assert.match(run.stderr, new RegExp(`shard 2/2 on ${hosts[1]} failed \\(exit code \\d+\\): no report on its stdout; ` +
        'its last words: .*network namespace'))
      assert.match(run.stderr, new RegExp(`fanout: shard 2/2 \\(${hosts[1]}\\) missing: 50 % of the plan \\(150 of 300 requests\\) ` +
        'not in the merged figures; the merge refuses a plan with a shard missing \\(--allow-missing merges the rest\\)$'))
    })
    await Promise.all([one, two, three])
  } finally {
    const left = await cleanup()
    assert.deepEqual(left, [])
    const list = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    for (const h of [...ns.hosts, ns.target.name]) assert.ok(!list.includes(h), `${h} left: ${list}`)
  }
})
