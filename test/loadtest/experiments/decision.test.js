// The decision on real quick capacity runs: two targets per result from one sweep, a capacity never lower
// at the looser target, the decision block in the terminal (last), the Markdown (first) and the page (first
// screen), --confirm; and --tune: a key per setting. Whether a strategy holds a target depends on this
// machine's load at the moment (tests run side by side): what must hold is the rule, not a figure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import pWaitFor from 'p-wait-for'
import { ROOT, readReport, runLab, tempDir } from '../../helpers/lab.js'
import { HEADROOM, closeCandidates, decide, pastOf } from '../../../loadtest/result/decision.js'
import { expectedBody } from '../../../servers/lib/workloads.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'
import { CONFIRM_QUICK_SEC, CONFIRM_SEC } from '../../../loadtest/settings.js'

// Capacity at each target is a rate that held there; a looser target holds at least as much.
function checkTargets (res, slos) {
  const targets = res.capacity.targets
  assert.deepEqual(targets.map((t) => t.sloMs), slos, `${res.key}: one capacity per target`)
  assert.equal(targets[0].rps, res.capacity.capacity.rps, 'the first target is the result\'s capacity')
  for (let i = 1; i < targets.length; i++) {
    if (targets[i - 1].rps === null) continue
    assert.ok(targets[i].rps >= targets[i - 1].rps, `${res.key}: ${targets[i].rps} at ${slos[i]} ms ≥ ${targets[i - 1].rps} at ${slos[i - 1]} ms`)
  }
  for (const t of targets) {
    if (t.rps === null) continue
    const held = res.capacity.steps.filter((s) => s.rate === t.rps)
    assert.ok(held.some((s) => s.p99 <= t.sloMs || s.call === 'undecided'), `${res.key}: a step at ${t.rps} req/s held ${t.sloMs} ms`)
  }
}

test('capacity --quick --slo 100,400 --confirm: two targets per result, the decision first in every output, the winner confirmed', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const run = await runLab([
    '--experiment', 'capacity', '--quick', '--server', 'simple,queued-threads', '--slo', '100,400', '--confirm', '--out', dir
  ])
  assert.equal(run.exitCode, 0, run.stderr)
  const { json, md, files } = await readReport(dir)
  for (const res of json.results) checkTargets(res, [100, 400])
  const d = json.decision
  assert.equal(d.sloMs, 100, 'decided at the first target')
  assert.deepEqual(Object.keys(d).filter((k) => ['key', 'server', 'setting', 'sloMs', 'capacityRps', 'bracket', 'planRps', 'runnerUp', 'refused', 'confirm'].includes(k)).length, 10)
  if (d.key) {
    assert.equal(d.planRps, Math.round(d.capacityRps * HEADROOM * 10) / 10)
    const c = d.confirm
    assert.equal(c.rate, d.planRps)
    const long = Math.min(CONFIRM_SEC, Math.max(CONFIRM_QUICK_SEC, Math.ceil(299 / c.rate)))
    assert.equal(c.durationSec, long, `--quick: ${CONFIRM_QUICK_SEC} s, or long enough for 299 requests`)
    if (!c.skipped) {
      assert.equal(typeof c.held, 'boolean')
      assert.equal(c.held, c.why.length === 0, 'held exactly when nothing is named against it')
      assert.ok(c.requests.sent > c.rate * c.durationSec * 0.8, `${c.requests.sent} requests at ${c.rate} req/s`)
    }
  } else {
    assert.equal(d.refused.reason, 'none meets the target')
    assert.match(d.confirm.skipped, /no capacity/)
  }
  // the terminal: the decision is the last block
  const tail = run.stderr.slice(run.stderr.lastIndexOf('\nDecision\n'))
  assert.ok(run.stderr.lastIndexOf('\nDecision\n') > run.stderr.lastIndexOf('report: '), 'the decision after the report line')
  assert.match(tail, /Holds for +.*2 cores|Holds for/)
  assert.match(run.stderr, /capacity by target/)
  // the Markdown: the decision is its first section, the capacity at each target next
  const sections = md.split('\n').filter((l) => l.startsWith('## '))
  assert.deepEqual(sections.slice(0, 2), ['## Decision', '## Capacity at each target (req/s, bracket)'])
  // the page: the decision and the capacity-against-target chart before the machine and method cards
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  const cards = html.indexOf('class="cards"')
  assert.ok(html.indexOf('<h2>Decision</h2>') > 0 && html.indexOf('<h2>Decision</h2>') < cards)
  assert.ok(html.indexOf('data-chart="targets" data-lines="2"') > 0 && html.indexOf('data-chart="targets"') < cards)
})

test('capacity --quick --tune threads=1,2,3: a key per setting, and a decision that names one', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const run = await runLab([
    '--experiment', 'capacity', '--quick', '--server', 'queued-threads', '--tune', 'threads=1,2,3', '--slo', '400', '--out', dir
  ])
  assert.equal(run.exitCode, 0, run.stderr)
  const { json } = await readReport(dir)
  const { quick } = await experimentFor('capacity')
  assert.deepEqual(json.results.map((r) => r.key), [1, 2, 3].map((n) => `queued-threads[threads=${n}]@${quick.work}#capacity`))
  for (const r of json.results) assert.ok(r.args.includes('--threads'), `${r.key}: ${r.args.join(' ')}`)
  assert.match(run.stderr, /queued-threads\[threads=3\]/, 'each setting its own row')
  const d = json.decision
  if (d.key) {
    assert.equal(d.setting.name, 'threads')
    assert.ok(['1', '2', '3'].includes(d.setting.value))
    assert.match(run.stderr, /(Run|Highest capacity) +queued-threads with threads=\d/)
  } else {
    assert.equal(d.refused.reason, 'none meets the target')
  }
})

// Start a printed command as a user would, from the checkout (a free port added: never a fixed one in
// tests): { url, child } once its ready line is out.
async function startCommand (command) {
  const child = spawn('sh', ['-c', `exec ${command} --port 0`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d })
  let url = null
  await pWaitFor(() => {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}: ${err}`)
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? null
    return url !== null
  }, { interval: 50, timeout: 30000 })
  return { url, child }
}

test('capacity --quick --server cluster,queued-threads --confirm: past capacity probed for the close candidates, the command confirmed and served by hand', async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  const run = await runLab(['--experiment', 'capacity', '--quick', '--server', 'cluster,queued-threads', '--confirm', '--out', dir])
  assert.equal(run.exitCode, 0, run.stderr)
  const { json } = await readReport(dir)
  const d = json.decision
  const close = closeCandidates(json)
  // every close candidate, and only those, probed as swept and with its shedding setting, at its own C
  for (const r of json.results) {
    if (!close.includes(r)) {
      assert.equal(r.pastCapacity, undefined, `${r.key}: not close, not probed`)
      continue
    }
    assert.deepEqual(r.pastCapacity.map((p) => p.variant), [null, r.server === 'cluster' ? 'under-pressure' : 'deadline'])
    for (const p of r.pastCapacity) {
      if (p.status === 'failed') continue
      assert.equal(p.overload.capacityRps, Math.round(r.capacity.capacity.rps * 10) / 10, 'at the sweep\'s C')
      assert.deepEqual(p.overload.steps.map((s) => s.multiple), [1.5, 2])
      for (const s of p.overload.steps) assert.ok(s.requests.good <= s.requests.offered)
      assert.ok(p.overload.recovery && typeof p.overload.recovery.metastable === 'boolean', 'the burst and its recovery')
      const past = pastOf(p)
      assert.equal(past.collapses, past.why.length > 0, 'collapses exactly when a reason is named')
    }
  }
  assert.equal(d.target.own, false)
  assert.match(run.stderr, /Target +p95 ≤ [\d.]+ ms: 5 × the service time measured on this machine/, '--quick judges p95, and says so')
  if (!d.key) {
    assert.equal(d.refused.reason, 'none meets the target')
    assert.equal(close.length, 0)
    return
  }
  assert.ok(close.length >= 1)
  assert.equal(d.command, ['node', `servers/${d.server}`, ...d.flags].join(' '))
  assert.ok(d.flags.includes('--work'))
  if (d.variant === 'deadline') assert.ok(d.flags.includes('--deadline'))
  if (d.variant === 'under-pressure') assert.ok(d.flags.includes('--shed-loop-delay'))
  // the block's first line is the command with the plan rate (or, refused, what it refuses)
  const block = run.stderr.slice(run.stderr.lastIndexOf('\nDecision\n') + 1).split('\n')
  if (!d.refused) assert.equal(block[1].replace(/^ {2}Run +/, ''), `${d.command}   at ${d.planRps} req/s (the plan rate)`)
  // --confirm ran that exact configuration
  assert.equal(d.confirm.command, d.command)
  // the command, started by hand as printed, serves the work
  const { url, child } = await startCommand(d.command)
  t.after(() => child.exitCode === null && child.kill('SIGKILL'))
  const res = await fetch(`${url}/`)
  assert.equal(res.status, 200)
  assert.equal(await res.text(), expectedBody(json.results[0].work))
  child.kill('SIGTERM')
  await once(child, 'exit')
})

// A probe's overload block as run/round/past-capacity.js keeps it: goodput at 1.5 and 2 × C, recovery (s).
function probed (variant, flags, [g15, g2], recoverySec) {
  const steps = [{ multiple: 1.5, goodputShare: g15, shedShare: 0 }, { multiple: 2, goodputShare: g2, shedShare: 0 }]
  const ms = recoverySec * 1000
  const recovery = { ms, metastable: false, burstEndMs: 5000, observedMs: 5000 + ms + 3000 }
  return { variant, label: 'as swept', shedding: flags.join(' '), flags, overload: { steps, recovery } }
}

test('decision.command, started by hand as printed, serves the work: each CPU server with its setting and shedding flags', async (t) => {
  const work = 'loop:1e5'
  const swept = (server, setting, shedding) => {
    const key = `${server}${setting ? `[${setting[0].slice(2)}=${setting[1]}]` : ''}@${work}#capacity`
    const target = { sloMs: 100, rps: 80, bracket: { pass: 80, fail: 84 }, bound: 'refined' }
    // as swept collapses and the shedding setting keeps (its command is the one chosen); none: as swept keeps
    const past = shedding
      ? [probed(null, [], [0, 0], 44), probed('shedding', shedding, [0.9, 0.9], 0)]
      : [probed(null, [], [0.9, 0.9], 0)]
    const capacity = { sloMs: 100, capacity: target, targets: [target] }
    const args = ['--work', work, ...(setting ?? [])]
    const ok = { status: 'ok', trusted: true, untrusted: [] }
    return { kind: 'http', key, server, variant: null, work, args, ...ok, capacity, pastCapacity: past }
  }
  const cases = [
    swept('simple', null, ['--shed-loop-delay', '60']),
    swept('cluster', ['--workers', '2'], ['--shed-loop-delay', '60']),
    swept('queued-threads', ['--threads', '2'], ['--deadline', 'auto', '--slo', '100']),
    swept('child-process', null, null),
    swept('worker-per-request', null, null),
    swept('cluster-threads', ['--workers', '1'], null)
  ]
  for (const r of cases) {
    const d = decide({ machine: {}, results: [r] })
    assert.equal(d.command, ['node', `servers/${r.server}`, ...r.args, ...r.pastCapacity.at(-1).flags].join(' '))
    const { url, child } = await startCommand(d.command)
    t.after(() => child.exitCode === null && child.kill('SIGKILL'))
    const res = await fetch(`${url}/`)
    assert.equal(res.status, 200, d.command)
    assert.equal(await res.text(), expectedBody(work), `${d.command}: the work's body`)
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
})
