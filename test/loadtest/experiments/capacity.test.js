// The capacity experiment end to end on one real --quick run, shared by the tests below: queued-threads at
// two targets (--slo 100,400), with --confirm and two thresholds. The sweep (its rule:
// test/loadtest/result/sweep.test.js), two targets from one sweep, the decision block in the terminal (last),
// the Markdown (first) and the page (first screen), then past capacity for the close candidates and the
// decision's command confirmed and served by hand. One run of one sweep for all: a sweep costs the suite a
// minute. Whether a strategy holds a target depends on this machine's load at the moment: what must hold is
// the rule, not a figure. Elsewhere: --tune's sweep per value (its plan, test/loadtest/tune.test.js; a
// decision between settings, result/decision.test.js, text/decision.test.js); the default target, 5 × the
// service time (report/decision.test.js); each server's shedding flags (decision.test.js).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { once } from 'node:events'
import { CLIMB, CONFIRM, CUT, FLOOR, HOLD, LENGTH, PAST, QUICK } from '../../../loadtest/result/rules.js'
import { capacityAtTargets, capacityOf, judgeStep, verdicts } from '../../../loadtest/result/capacity.js'
import { closeCandidates, pastOf } from '../../../loadtest/result/decision.js'
import { THRESHOLD_EXIT } from '../../../loadtest/report/thresholds.js'
import { expectedBody } from '../../../servers/lib/workloads.js'
import { sharedLabRun } from '../../helpers/lab.js'
import { firstTargetOutcome } from '../../helpers/capacity-rule.js'
import { startCommand } from '../../helpers/command.js'
import { experimentFor } from '../../../loadtest/experiments/index.js'
import { experimentTable } from '../../../loadtest/report/table.js'

// Capacity at each target is a rate that held there; a looser target holds at least as much.
function checkTargets (res, slos) {
  const targets = res.capacity.targets
  assert.deepEqual(targets.map((t) => t.sloMs), slos, `${res.key}: one capacity per target`)
  assert.equal(targets[0].rps, res.capacity.capacity.rps, 'the first target is the result\'s capacity')
  for (let i = 1; i < targets.length; i++) {
    if (targets[i - 1].rps === null) continue
    assert.ok(targets[i].rps >= targets[i - 1].rps, `${res.key}: ${targets[i].rps} at ${slos[i]} ms ≥ ${targets[i - 1].rps} at ${slos[i - 1]} ms`)
  }
  // each target's capacity is what the steps show judged against it, with the percentile and the confidence the
  // sweep judges (p99 at --quick's looser confidence)
  const c = res.capacity
  const again = capacityAtTargets(c.steps, c.steps.map(figuresOf), { ...c, targets: slos })
  const shown = (ts) => ts.map((t) => [t.rps, t.bound])
  assert.deepEqual(shown(targets), shown(again), `${res.key}: the capacities the rule gives`)
  for (const t of targets) {
    if (t.rps === null) continue
    // a rate that held a target has a step there that did not fail it (a pass, or undecided and pooled)
    const at = c.steps.filter((s) => s.rate === t.rps)
    const held = at.map((s) => judgeStep(figuresOf(s), t.sloMs, { share: c.share, confidence: c.confidence }))
    assert.ok(held.some((j) => j.call !== 'fail'), `${res.key}: a step at ${t.rps} req/s held p${c.percentile} ≤ ${t.sloMs} ms`)
  }
}

// The round figures a step was judged on, from the step as the report keeps it (result/figures.js stepFigures).
function figuresOf (s) {
  const open = { rate: s.rate, lag: { p99: s.lagP99 } }
  return { requests: s.requests, histograms: s.histograms, backlog: s.backlog, latency: { p99: s.p99 }, open }
}

// The one lab run every test reads: { run, json, md, files, dir }, made once (its folder removed at exit).
const SLOS = [100, 400]
const ARGS = [
  '--experiment', 'capacity', '--quick', '--server', 'queued-threads', '--slo', SLOS.join(','),
  '--confirm', '--threshold', 'capacity>1e9', '--threshold', 'queued-threads:capacity>=0'
]
// a threshold no capacity meets: the threshold exit, and nothing else failed
const quickRun = sharedLabRun(ARGS, { after, exitCode: THRESHOLD_EXIT })

test('--experiment capacity --quick: the sweep, two targets, the hockey stick on the page, the table', async () => {
  const { json, md, files, dir } = await quickRun()
  assert.equal(json.status, 'complete')
  assert.equal(json.method.loop, 'open')
  assert.equal(json.results.length, 1)
  const { quick } = await experimentFor('capacity')
  const cal = json.calibration[quick.work]
  const serviceMs = cal.serviceMs
  assert.ok(serviceMs <= cal.medianMs, 'the service time is the fast end of the warm calls')
  assert.equal(typeof cal.spreadPct, 'number')
  for (const res of json.results) {
    assert.match(res.key, /#capacity$/, 'a capacity sweep never lines up with a closed-loop run in compare')
    const c = res.capacity
    assert.equal(c.sloMs, SLOS[0], 'the first --slo is the target the sweep judges')
    checkTargets(res, SLOS)
    // the floor at least; a proven knee, a pass and a failure above it (how many more: the machine's load)
    assert.ok(c.steps.length >= (c.capacity.bound === 'refined' ? 2 : 1), `${res.server}: ${c.steps.length} steps`)
    // the capacity is what the steps show under the sweep's rule (its percentile, hold, budget)
    const again = capacityOf(c.steps, c)
    assert.deepEqual([c.capacity.rps, c.capacity.bound], [again.rps, again.bound], `${res.server}: the rule's capacity`)
    for (const s of c.steps) {
      const q = s.requests
      assert.equal(
        q.completed + q.errors + q.timeouts + q.unanswered,
        q.sent,
        `${res.server} step ${s.index}: counts add up`
      )
      assert.equal(q.mismatches, 0)
      assert.equal(typeof s.histograms.latency, 'string', 'each step keeps its encoded histogram')
      assert.deepEqual(Object.keys(s.noise).sort(), [
        'cores', 'foreign', 'foreignCores', 'inFlight', 'kernelCores', 'labCores', 'stealPct', 'treeCores', 'workAgainst',
        'workInflation'
      ])
      assert.equal(s.disturbed, s.disturbedBy.length > 0, 'disturbed exactly when something is named')
      // the requests that decided the step: its histogram's count (every answer, and every timeout at its
      // timeout: a user who gave up waited that long), and how many of them were over the target
      assert.equal(s.n, s.requests.completed + s.requests.timeouts, `${res.server} step ${s.index}: every answer judged`)
      assert.ok(s.over >= 0 && s.over <= s.n)
      assert.ok(['pass', 'fail', 'undecided'].includes(s.call))
      assert.equal(s.pass, s.call === 'pass')
      assert.ok(!s.disturbedBy.some((x) => /the work ran/.test(x)) || !s.contention, 'own contention is never a disturbance')
      // the percentile's sample a step (a floor step FLOOR.minRequests), lengthened up to LENGTH.lengthen × the cap;
      // a repeat tops up an undecided rate: at least its shortest step (0.5 s)
      const need = s.kind === 'floor' ? FLOOR.minRequests : quick.minRequests
      const planned = Math.min(need, s.rate * (s.kind === 'repeat' ? quick.durationSec : LENGTH.lengthen * quick.maxStepSec))
      if (s.cut) {
        // a step cut short (CUT): after the shortest step, a clear failure on every request it sent
        assert.ok(s.cut.atSec >= CUT.minSec && s.cut.sent >= CUT.minRequests, `${res.server} step ${s.index}: cut`)
        assert.equal(s.requests.sent, s.cut.sent, 'it sent exactly the requests before the cut')
        assert.ok(s.over >= CUT.share * s.n && s.call === 'fail', `${res.server} step ${s.index}: ${s.over} over of ${s.n}`)
        // every request the cut counted over ended over (the first target is the tightest), or ended outside the
        // histogram: an error, or still out when the step ended (a run at load 15 judged 87 of 88 counted)
        const outside = q.sent - s.n
        assert.ok(s.over + outside >= s.cut.over, `${res.server} step ${s.index}: ${s.over} judged over and ${outside} ` +
          `outside the histogram, ${s.cut.over} counted`)
      } else assert.ok(s.requests.sent >= planned * 0.9, `${res.server} step ${s.index}: ${s.requests.sent} requests (${planned} planned)`)
    }
    // the sweep's time budget: every step its planned length and the overhead, never past it; grown for a work
    // slower than the one it was set on (a loaded machine calibrates slower), never under it
    assert.equal(c.budget.baseSec, quick.budgetSec)
    assert.ok(c.budget.sec >= c.budget.baseSec, `${c.budget.sec} s`)
    // (but by the hold step, which runs past it: HOLD.pastLimits)
    const holdPast = c.steps.filter((s) => s.kind === 'hold').reduce((a, s) => Math.max(a, s.sec), 0)
    const allowed = c.budget.sec + (holdPast ? holdPast + c.budget.stepOverheadSec : 0) * HOLD.pastLimits
    assert.ok(c.budget.spentSec <= allowed + 1e-9, `${res.server}: ${c.budget.spentSec} s spent of ${c.budget.sec}`)
    assert.ok(c.budget.spentSec >= c.steps.length * c.budget.stepOverheadSec, 'each step counted')
    // Whether a step holds depends on this machine's load at the moment (tests run side by side): what
    // must hold is the rule. Capacity is a rate that held, below every rate that failed; or none held.
    // The floor: the lowest rate offered, with its p99.
    const lowest = Math.min(...c.steps.map((s) => s.rate))
    assert.equal(c.capacity.floor.rps, lowest)
    assert.equal(typeof c.capacity.floor.p99, 'number')
    assert.equal(c.percentile, 99, '--quick judges the default run\'s percentile')
    assert.equal(c.confidence, QUICK.confidence, 'at its looser confidence')
    assert.match(c.rule, /--quick judges p99 at 90 %/)
    // a capacity, or none with the evidence the rule allows it on (helpers/capacity-rule.js)
    firstTargetOutcome(res)
    if (c.capacity.rps === null) {
      // no rate held: never 0; the bound says why: a true floor that failed cannot meet the target (its p99
      // above it), else no verdict ("undecided: …": budget spent, too few requests, a floor that overlapped)
      const lowest = verdicts(c.steps, { share: c.share, confidence: c.confidence }).get(c.capacity.floor.rps)
      const decided = c.capacity.floor.true && lowest === 'fail'
      const cannot = decided && c.capacity.floor.p99 > c.sloMs
      if (decided) assert.equal(c.capacity.bound, cannot ? 'cannot-meet' : 'below-lowest')
      else assert.equal(c.capacity.bound, 'undecided')
      // (a step may still have passed, at a rate the rule did not keep: a pass above a confirmed failure that
      // did not hold twice, or a hold that failed; that none was kept is capacityOf's, checked above)
      if (cannot) assert.match(md, new RegExp(`${res.server} cannot meet p99 ≤ .* at any rate tried: p99 .* at .* req/s`))
      continue
    }
    const held = c.steps[c.capacity.step]
    assert.notEqual(held.call, 'fail', 'the step at capacity held, or was undecided in a rate its pooled steps passed')
    assert.equal(held.rate, c.capacity.rps)
    // a pass shows the judged percentile (p99) within the target: its share over it is under p99's 1 %
    if (held.call === 'pass') assert.ok(held.over / held.n <= c.share, `${held.over} of ${held.n} over ${c.sloMs} ms`)
    // a step may fail below the capacity (a stall, repeated and then held); a rate whose verdict failed may
    // not, unless a pass above it that held twice overruled it, and the result names it
    const failedRates = [...verdicts(c.steps, { share: c.share, confidence: c.confidence })].filter(([, v]) => v === 'fail').map(([rate]) => rate)
    assert.ok(
      failedRates.every((rate) => rate > held.rate || c.capacity.overruled.includes(rate)),
      'no failing rate below the capacity unless overruled'
    )
    assert.equal(c.capacity.bracket.pass, c.capacity.rps)
    const over = c.capacity.over
    // the hold rule: the capacity held a step of its hold length, or its hold step ran (past the sweep's limits
    // if need be) and did not decide it
    if (c.capacity.held === false) assert.ok(c.steps.some((s) => s.kind === 'hold'), `${res.server}: no hold step`)
    if (c.capacity.bound === 'at-least') {
      // a noisy machine can keep a quick sweep climbing: it stops at its step limit or its budget, and says so
      assert.ok(c.steps.length >= c.maxSteps || c.budget.cut === 'sweep', `${res.server}: ${c.steps.length} steps, cut ${c.budget.cut}`)
      assert.ok(res.untrusted.some((x) => /capacity is a lower bound/.test(x)))
    } else {
      // the knee is proven: a failure confirmed above the capacity and at or below 1.2 × it
      const { fail } = c.capacity.bracket
      assert.ok(fail > c.capacity.rps && fail <= CLIMB.overload * c.capacity.rps * (1 + 1e-9), `bracket ${c.capacity.rps}–${fail}`)
      if (over) assert.ok(Math.abs(over.rate - CLIMB.overload * c.capacity.rps) < 1e-6, 'the step past capacity at 1.2 ×')
    }
    assert.ok(c.calibrationCheck && typeof c.calibrationCheck.drift === 'number', 'the calibration checked after the server')
    assert.equal(res.runs, undefined, 'the steps of a sweep are not rounds for compare')
    assert.equal(res.latency.p99, held.p99, 'the result shows the figures of the step at capacity')
  }
  // --threshold on capacity reads each sweep's capacity: above any machine's, and at least nothing
  const [above, atLeast] = json.thresholds
  assert.deepEqual(above.runs.map((r) => [r.key, r.figure, r.status]), json.results.map((r) => [r.key, r.capacity.capacity.rps, 'crossed']))
  assert.deepEqual(atLeast.runs.map((r) => [r.key, r.status]), json.results.map((r) => [r.key, 'passed']), 'NAME: applies to every setting of that server')
  assert.deepEqual(experimentTable(json, await experimentFor('capacity')).head.slice(0, 4), ['server', 'ideal req/s', 'capacity req/s', 'bracket'])
  assert.match(md, /capacity req\/s/)
  assert.match(md, new RegExp(`## Capacity sweeps\\n\\n- \\*\\*Target:\\*\\* p99 ≤ ${json.results[0].capacity.sloMs} ms`), 'the one target stated')
  const html = await readFile(
    join(
      dir,
      files.find((f) => f.endsWith('.html'))
    ),
    'utf8'
  )
  assert.match(html, /data-chart="capacity" data-lines="1"/)
  assert.match(html, /<table class="capacity">/)
})

test('capacity --quick --slo 100,400: the decision first in every output, at the first target', async () => {
  const { run, json, md, files, dir } = await quickRun()
  const d = json.decision
  assert.equal(d.sloMs, SLOS[0], 'decided at the first target')
  const keys = ['key', 'server', 'setting', 'sloMs', 'capacityRps', 'bracket', 'planRps', 'runnerUp', 'refused', 'confirm']
  assert.deepEqual(Object.keys(d).filter((k) => keys.includes(k)).length, keys.length)
  if (d.key) assert.equal(d.planRps, Math.round(d.capacityRps * PAST.headroom * 10) / 10)
  else assert.equal(d.refused.reason, 'none-meets')
  // the terminal: the decision is the last block, its target the user's own
  const tail = run.stderr.slice(run.stderr.lastIndexOf('\nDecision\n'))
  assert.ok(run.stderr.lastIndexOf('\nDecision\n') > run.stderr.lastIndexOf('report: '), 'the decision after the report line')
  assert.match(tail, /Holds for/)
  assert.match(tail, /Target +p99 ≤ 100 ms, your own \(--slo\)/, '--quick judges p99, and says so')
  assert.match(run.stderr, /capacity by target/)
  // the Markdown: the decision is its first section, the capacity at each target next
  const sections = md.split('\n').filter((l) => l.startsWith('## '))
  assert.deepEqual(sections.slice(0, 2), ['## Decision', '## Capacity at each target (req/s, bracket)'])
  // the page: the decision and its capacity bars (a bar per result) before the machine and method cards, and
  // the capacity-against-target lines there too where the leader changes with the target
  const html = await readFile(join(dir, files.find((f) => f.endsWith('.html'))), 'utf8')
  const cards = html.indexOf('class="cards"')
  assert.ok(html.indexOf('<h2>Decision</h2>') > 0 && html.indexOf('<h2>Decision</h2>') < cards)
  const bars = html.indexOf(`data-chart="capacity-bars" data-bars="${json.results.length}"`)
  assert.ok(bars > 0 && bars < cards)
  const lines = html.indexOf(`data-chart="targets" data-lines="${json.results.length}"`) // a line per result
  if (d.changes.length) assert.ok(lines > 0 && lines < cards)
  else assert.equal(lines, -1)
})

test('capacity --quick --confirm: past capacity probed for the close candidates, the command confirmed and served by hand', async (t) => {
  const { run, json } = await quickRun()
  const d = json.decision
  const close = closeCandidates(json)
  // every close candidate, and only those, probed as swept and with its shedding setting, at its own C
  for (const r of json.results) {
    if (!close.includes(r)) {
      assert.equal(r.pastCapacity, undefined, `${r.key}: not close, not probed`)
      continue
    }
    assert.deepEqual(r.pastCapacity.map((p) => p.variant), [null, 'deadline'])
    for (const p of r.pastCapacity) {
      if (p.status === 'failed') continue
      assert.equal(p.overload.capacityRps, Math.round(r.capacity.capacity.rps * 10) / 10, 'at the sweep\'s C')
      for (const s of p.overload.steps) assert.ok(s.requests.good <= s.requests.offered)
      const past = pastOf(p)
      assert.equal(past.collapses, past.why.length > 0, 'collapses exactly when a reason is named')
      if (p.overload.collapsedAt !== null) {
        // stopped where it collapsed: its goodput at 1.5 × C under half of C, nothing after it
        assert.deepEqual(p.overload.steps.map((s) => s.multiple), [PAST.collapseMultiple])
        assert.ok(p.overload.steps[0].goodputShare < PAST.collapseShare && past.collapses)
        assert.equal(p.overload.recovery, null, 'no burst after a collapse')
        continue
      }
      assert.deepEqual(p.overload.steps.map((s) => s.multiple), [1.5, 2])
      assert.ok(p.overload.recovery && typeof p.overload.recovery.metastable === 'boolean', 'the burst and its recovery')
    }
  }
  assert.equal(d.target.own, true)
  if (!d.key) {
    assert.equal(d.refused.reason, 'none-meets')
    assert.match(d.confirm.skipped, /no capacity/)
    assert.equal(close.length, 0)
    return
  }
  assert.ok(close.length >= 1)
  assert.equal(d.command, ['node', `servers/${d.server}`, ...d.flags].join(' '))
  assert.ok(d.flags.includes('--work'))
  if (d.variant === 'deadline') assert.ok(d.flags.includes('--deadline'))
  // the block's first line is the command alone, the plan rate the next (or, refused, what it refuses)
  const block = run.stderr.slice(run.stderr.lastIndexOf('\nDecision\n') + 1).split('\n')
  if (!d.refused) assert.deepEqual([block[1], block[2].replace(/^ {2}Plan rate +/, '').split(',')[0]], [`  ${d.command}`, `${d.planRps} req/s`])
  // --confirm ran that exact configuration at the plan rate, long enough for the requests p99 needs
  const c = d.confirm
  assert.equal(c.command, d.command)
  assert.equal(d.planRps, Math.round(d.capacityRps * PAST.headroom * 10) / 10)
  assert.equal(c.rate, d.planRps)
  const long = Math.min(CONFIRM.sec, Math.max(CONFIRM.quickSec, Math.ceil(299 / c.rate)))
  assert.equal(c.durationSec, long, `--quick: ${CONFIRM.quickSec} s, or long enough for 299 requests`)
  if (!c.skipped) {
    assert.equal(typeof c.held, 'boolean')
    assert.equal(c.held, c.why.length === 0, 'held exactly when nothing is named against it')
    assert.ok(c.requests.sent > c.rate * c.durationSec * 0.8, `${c.requests.sent} requests at ${c.rate} req/s`)
  }
  // the command, started by hand as printed, serves the work
  const { url, child } = await startCommand(d.command)
  t.after(() => child.exitCode === null && child.kill('SIGKILL'))
  const res = await fetch(`${url}/`)
  assert.equal(res.status, 200)
  assert.equal(await res.text(), expectedBody(json.results[0].work))
  child.kill('SIGTERM')
  await once(child, 'exit')
})
