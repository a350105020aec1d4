// The decision on real quick capacity runs: two targets per result from one sweep, a capacity never lower
// at the looser target, the decision block in the terminal (last), the Markdown (first) and the page (first
// screen), --confirm; and --tune: a key per setting. Whether a strategy holds a target depends on this
// machine's load at the moment (tests run side by side): what must hold is the rule, not a figure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readReport, runLab, tempDir } from '../../helpers/lab.js'
import { HEADROOM } from '../../../loadtest/result/decision.js'
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
    assert.equal(c.durationSec, Math.min(60, Math.max(10, Math.ceil(299 / c.rate))), '--quick: 10 s, or long enough for 299 requests')
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
