// Smoke test of `npm run bench`: the tiny --quick run as a real child process, its structure, its exit.
import { before, test } from 'node:test'
import { ROOT } from '../loadtest/catalog.js'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { parseFlags } from '../bench/bench.js'

// Run bench/index.js with args; resolve { code, stdout, stderr } once it has exited.
async function runBench (args) {
  const child = spawn(process.execPath, ['bench/index.js', ...args], {
    cwd: ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
  })
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
  })
  const [code] = await once(child, 'exit')
  return { code, stdout, stderr, pid: child.pid }
}

// A pid that is gone, or a zombie about to be reaped.
function gone (pid) {
  if (!existsSync(`/proc/${pid}`)) return true
  try {
    return readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.[0] === 'Z'
  } catch {
    return true
  }
}

const positive = (n) => typeof n === 'number' && Number.isFinite(n) && n > 0

// One `bench --quick --json` run, every part, for the tests that read it.
let full
before(async () => {
  full = await runBench(['--quick', '--json'])
})

test('bench --quick --json: exits 0, prints the structure with finite positive ratios, ends its servers', async () => {
  const { code, stdout, stderr } = full
  assert.equal(code, 0, `exit code 0; stderr:\n${stderr}`)
  const r = JSON.parse(stdout)
  assert.equal(r.kind, 'loadlab-bench')
  assert.equal(r.schema, 1)
  assert.equal(r.quick, true)
  assert.ok(positive(r.durationMs))
  assert.equal(r.machine.node, process.version)
  assert.ok(r.machine.cores >= 1 && typeof r.machine.cpuModel === 'string')

  const cases = r.dispatch.cases
  assert.deepEqual(
    cases.map((c) => [c.workers, c.payloadBytes]),
    [
      [1, 30],
      [1, 1e4],
      [2, 30],
      [2, 1e4]
    ]
  )
  for (const c of cases) {
    for (const side of ['piscina', 'shared']) {
      assert.ok(positive(c[side].mean) && positive(c[side].min) && c[side].min <= c[side].max, `${side} µs/call`)
      assert.equal(c[side].samples.length, c.rounds)
      assert.ok(c[side].rsd >= 0)
    }
    assert.ok(positive(c.ratio.median) && positive(c.ratio.min) && positive(c.ratio.max))
    assert.ok(c.ratio.min <= c.ratio.median && c.ratio.median <= c.ratio.max)
  }

  const t = r.telemetry
  assert.equal(t.server, 'simple')
  for (const side of ['on', 'off']) {
    assert.ok(positive(t[side].mean), `telemetry ${side} req/s`)
    assert.equal(t[side].samples.length, t.rounds)
    assert.equal(
      t[side].requests,
      t.rounds * t.amount,
      `every request of the ${side} rounds answered 2xx with the right body`
    )
    assert.match(t.servers[side].url, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.ok(gone(t.servers[side].pid), `server pid ${t.servers[side].pid} (telemetry ${side}) has exited`)
  }
  assert.ok(positive(t.ratio.median) && positive(t.ratio.min) && positive(t.ratio.max))
  assert.ok(Number.isFinite(t.lossPercent))

  const g = r.generator
  assert.ok(positive(g.closed.rps), 'autocannon closed-loop maximum')
  assert.equal(g.closed.failed, 0)
  for (const open of [g.open, g.openThreads]) {
    assert.ok(open.probes.length >= 1)
    assert.ok(open.probes.every((p) => p.generators === open.generators))
    for (const p of open.probes) {
      assert.equal(p.kept, p.why.length === 0)
      // the previous rule, judged on the same probe: the whole round's lag p99, the mean issue rate, every answer
      const before = g.previousRule
      assert.equal(
        p.keptBefore,
        p.lagP99 <= before.lagP99LimitMs && Math.abs(p.sendError) <= before.sendRateTolerance && p.failed === 0
      )
    }
    for (const r of open.rates) {
      const kept = r.probes.filter((p) => p.kept).length
      assert.equal(r.kept, kept * 2 > r.probes.length, 'a rate is kept by the majority of its probes')
    }
    assert.equal(open.rps, Math.max(0, ...open.rates.filter((r) => r.kept).map((r) => r.rate)), 'the highest kept rate')
    assert.equal(open.rpsBefore, Math.max(0, ...open.rates.filter((r) => r.keptBefore).map((r) => r.rate)))
  }
  assert.deepEqual([g.open.generators, g.openThreads.generators], [1, 2])
  assert.equal(g.ratio, g.open.rps / g.closed.rps)
  assert.equal(g.ratioThreads, g.openThreads.rps / g.closed.rps)
  assert.ok(g.memory.requests > 0 && positive(g.memory.rssMb.atEnd))
  assert.match(g.rule.text, /every 1 s window/)
  assert.ok(gone(g.serverPid), 'the generator bench ended its server')
  const sm = r.sampling
  assert.equal(sm.intervalMs, 100)
  for (const side of ['on', 'off']) {
    assert.ok(positive(sm[side].mean), `sampling ${side} req/s`)
    assert.equal(sm[side].requests, sm.rounds * sm.amount, `every request of the sampling ${side} rounds answered`)
  }
  assert.ok(sm.on.samples > 0, 'the sampling server pushed samples over IPC')
  assert.ok(positive(sm.ratio.median) && Number.isFinite(sm.lossPercent))
  const st = r.stamps
  for (const side of ['on', 'off']) {
    assert.equal(st[side].requests, st.rounds * st.amount, `every request of the stamps ${side} rounds answered`)
    assert.ok(gone(st.servers[side].pid), `server pid ${st.servers[side].pid} (stamps ${side}) has exited`)
  }
  assert.match(st.on.header, /^wait=\d+\.\d{3},run=\d+\.\d{3}$/, 'the stamping side sent its header')
  assert.ok(positive(st.ratio.median) && Number.isFinite(st.lossPercent))
  assert.ok(positive(st.perAnswerUs) && positive(st.perAnswerShare))
  const hi = r.history // a folder of copies of one tour read by loadlab history: every one read, time and memory
  assert.equal(hi.reports, 20)
  assert.ok(positive(hi.ms) && positive(hi.cpuMs) && positive(hi.maxRssBytes) && hi.series > 0)

  // the ruler: a run's two readings, in seconds (rules, not this machine's figures)
  const ru = r.ruler
  assert.equal(ru.readings, 1)
  assert.equal(ru.perReadingSec.samples.length, 1)
  assert.ok(positive(ru.perReadingSec.mean) && positive(ru.effectiveCores))
  assert.equal(ru.perRunSec.mean, 2 * ru.perReadingSec.mean)
  assert.equal(ru.withinBudget, ru.perRunSec.mean <= ru.budgetSec)
  assert.match(stderr, /ruler cost: 1 reading of .*\n {2}per reading \d+\.\d\d s .* per run \d+\.\d\d s/)

  // the human table went to stderr, with the machine line and the ratios
  assert.match(stderr, new RegExp(`machine: .* Node ${process.version.replaceAll('.', '\\.')} `))
  assert.match(stderr, /piscina \/ shared/)
  assert.match(stderr, /on \/ off: \d+\.\d+×/)
  assert.match(stderr, /open \/ closed: \d+\.\d+× \(previous rule (\d+\.\d+×|-)\)/)
  assert.match(stderr, /history: 20 reports .* read by loadlab history in \d+\.\d+ s/)
  assert.match(stderr, /rule applied \(offered load kept\): issue rate within 2 % in every 1 s window/)
})

test('bench --quick: the three process pools side by side, bodies verified, crash → answer', async () => {
  const { code, stdout, stderr } = full
  assert.equal(code, 0, `exit code 0; stderr:\n${stderr}`)
  const p = JSON.parse(stdout).processes
  assert.deepEqual(p.pools, ['own', 'workerpool', 'tinypool'])
  assert.deepEqual(p.cases.map((c) => c.processes), [1, 2])
  for (const c of p.cases) {
    for (const pool of p.pools) {
      assert.equal(c.perTaskUs[pool].samples.length, c.rounds, `${pool}: one figure per round`)
      assert.ok(positive(c.perTaskUs[pool].mean), `${pool} µs/task`)
      assert.ok(positive(c.crashMs[pool].mean), `${pool}: a crash, then an answer`)
    }
    for (const pool of ['workerpool', 'tinypool']) {
      assert.ok(c.ratio[pool].min <= c.ratio[pool].median && c.ratio[pool].median <= c.ratio[pool].max)
    }
  }
  assert.match(stderr, /workerpool \/ own +tinypool \/ own/)
})

test('bench --quick --only dispatch: only the part asked for runs', async () => {
  const { code, stdout, stderr } = await runBench(['--quick', '--only', 'dispatch', '--json'])
  assert.equal(code, 0, `exit code 0; stderr:\n${stderr}`)
  const r = JSON.parse(stdout)
  assert.equal(r.only, 'dispatch')
  assert.ok(r.dispatch.cases.length > 0, 'the part asked for ran')
  for (const part of ['processes', 'telemetry', 'generator', 'sampling', 'stamps', 'ruler', 'history']) {
    assert.equal(r[part], null, `${part} did not run`)
  }
  assert.doesNotMatch(stderr, /workerpool \/ own/)
})

test('bench: a bad flag is one line on stderr and exit 2, before anything starts', async () => {
  // through the CLI once (every usage error takes the same way out of it) …
  const { code, stdout, stderr } = await runBench(['--nope'])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.equal(stderr.trim().split('\n').length, 1)
  assert.match(stderr, /^bench: /)
  // … and each rule where the CLI meets it (parseFlags, before anything starts), as the usage error it prints
  for (const args of [['--rounds', '0'], ['--only', 'everything']]) {
    assert.throws(() => parseFlags(args), (err) => {
      assert.equal(err.exitCode, 2, args.join(' '))
      assert.match(err.message, /^bench: /)
      assert.doesNotMatch(err.message, /\n/, 'one line')
      return true
    })
  }
})
