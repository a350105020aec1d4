// The decision on real quick capacity runs: two targets per result from one sweep, a capacity never lower
// at the looser target, the decision block in the terminal (last), the Markdown (first) and the page (first
// screen); and --tune: a key per setting. Whether a strategy holds a target depends on this
// machine's load at the moment (tests run side by side): what must hold is the rule, not a figure.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { once } from 'node:events'
import { sharedLabRun } from '../../helpers/lab.js'
import { startCommand } from '../../helpers/command.js'
import { HEADROOM, decide } from '../../../loadtest/result/decision.js'
import { capacityAtTargets, judgeStep } from '../../../loadtest/result/capacity.js'
import { expectedBody } from '../../../servers/lib/workloads.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'

// Capacity at each target is a rate that held there; a looser target holds at least as much.
function checkTargets (res, slos) {
  const targets = res.capacity.targets
  assert.deepEqual(targets.map((t) => t.sloMs), slos, `${res.key}: one capacity per target`)
  assert.equal(targets[0].rps, res.capacity.capacity.rps, 'the first target is the result\'s capacity')
  for (let i = 1; i < targets.length; i++) {
    if (targets[i - 1].rps === null) continue
    assert.ok(targets[i].rps >= targets[i - 1].rps, `${res.key}: ${targets[i].rps} at ${slos[i]} ms ≥ ${targets[i - 1].rps} at ${slos[i - 1]} ms`)
  }
  // each target's capacity is what the steps show judged against it, with the percentile the sweep judges
  // (p95 under --quick: a step that passed may have its p99 over the target)
  const c = res.capacity
  const again = capacityAtTargets(c.steps, c.steps.map(figuresOf), { ...c, targets: slos })
  const shown = (ts) => ts.map((t) => [t.rps, t.bound])
  assert.deepEqual(shown(targets), shown(again), `${res.key}: the capacities the rule gives`)
  for (const t of targets) {
    if (t.rps === null) continue
    // a rate that held a target has a step there that did not fail it (a pass, or undecided and pooled)
    const at = c.steps.filter((s) => s.rate === t.rps)
    const held = at.map((s) => judgeStep(figuresOf(s), t.sloMs, { share: c.share }))
    assert.ok(held.some((j) => j.call !== 'fail'), `${res.key}: a step at ${t.rps} req/s held p${c.percentile} ≤ ${t.sloMs} ms`)
  }
}

// The round figures a step was judged on, from the step as the report keeps it (result/figures.js stepFigures).
function figuresOf (s) {
  const open = { rate: s.rate, lag: { p99: s.lagP99 } }
  return { requests: s.requests, histograms: s.histograms, backlog: s.backlog, latency: { p99: s.p99 }, open }
}

// One lab run read by the two tests below: a tuned setting (two values: a key each) with two targets
// ({ run, json, md, files, dir }, made once; its folder removed at the end). --confirm and the default
// target are tested on capacity.test.js's run.
const ARGS = ['--experiment', 'capacity', '--quick', '--server', 'queued-threads', '--tune', 'threads=1,2', '--slo', '100,400']
const tunedRun = sharedLabRun(ARGS, { after })

test('capacity --quick --slo 100,400: two targets per result, the decision first in every output', async () => {
  const { run, json, md, files, dir } = await tunedRun()
  for (const res of json.results) checkTargets(res, [100, 400])
  const d = json.decision
  assert.equal(d.sloMs, 100, 'decided at the first target')
  const keys = ['key', 'server', 'setting', 'sloMs', 'capacityRps', 'bracket', 'planRps', 'runnerUp', 'refused', 'confirm']
  assert.deepEqual(Object.keys(d).filter((k) => keys.includes(k)).length, keys.length)
  assert.equal(d.confirm, null, 'no --confirm, no confirming round (its run: capacity.test.js)')
  if (d.key) assert.equal(d.planRps, Math.round(d.capacityRps * HEADROOM * 10) / 10)
  else assert.equal(d.refused.reason, 'none meets the target')
  // the terminal: the decision is the last block
  const tail = run.stderr.slice(run.stderr.lastIndexOf('\nDecision\n'))
  assert.ok(run.stderr.lastIndexOf('\nDecision\n') > run.stderr.lastIndexOf('report: '), 'the decision after the report line')
  assert.match(tail, /Holds for +.*2 cores|Holds for/)
  assert.match(run.stderr, /capacity by target/)
  // the Markdown: the decision is its first section, the capacity at each target next
  const sections = md.split('\n').filter((l) => l.startsWith('## '))
  assert.deepEqual(sections.slice(0, 2), ['## Decision', '## Capacity at each target (req/s, bracket)'])
  // the page: the decision and its capacity bars (a bar per setting) before the machine and method cards, and
  // the capacity-against-target lines there too where the leader changes with the target
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  const cards = html.indexOf('class="cards"')
  assert.ok(html.indexOf('<h2>Decision</h2>') > 0 && html.indexOf('<h2>Decision</h2>') < cards)
  const bars = html.indexOf(`data-chart="capacity-bars" data-bars="${json.results.length}"`)
  assert.ok(bars > 0 && bars < cards)
  const lines = html.indexOf(`data-chart="targets" data-lines="${json.results.length}"`) // a line per setting
  if (d.changes.length) assert.ok(lines > 0 && lines < cards)
  else assert.equal(lines, -1)
})

test('capacity --quick --tune threads=1,2: a key per setting, and a decision that names one', async () => {
  const { run, json } = await tunedRun()
  const { quick } = await experimentFor('capacity')
  assert.deepEqual(json.results.map((r) => r.key), [1, 2].map((n) => `queued-threads[threads=${n}]@${quick.work}#capacity`))
  for (const r of json.results) assert.ok(r.args.includes('--threads'), `${r.key}: ${r.args.join(' ')}`)
  assert.match(run.stderr, /queued-threads\[threads=2\]/, 'each setting its own row')
  const d = json.decision
  if (d.key) {
    assert.equal(d.setting.name, 'threads')
    assert.ok(['1', '2'].includes(d.setting.value))
    assert.match(run.stderr, /(Run|Highest capacity) +queued-threads with threads=\d/)
  } else {
    assert.equal(d.refused.reason, 'none meets the target')
  }
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
