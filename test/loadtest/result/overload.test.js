// The overload rules as pure functions: recovery from 1 s windows, the step timing, wasted CPU, goodput
// windows from request events, the burst's rate profile, and compare's cells.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OVERLOAD_DEFAULTS, burstPhases, recoveryOf, stepTiming, wastedCpuShare, windowRecovered } from '../../../loadtest/result/overload.js'
import { createGoodput } from '../../../loadtest/run/round/goodput.js'
import { createSchedule } from '../../../loadtest/run/generate/schedule.js'
import { overloadCell, overloadMarkdown } from '../../../loadtest/compare/overload.js'

const good = { offered: 10, good: 10, p99: 50 }
const bad = { offered: 10, good: 2, p99: 400 }

test('recovery: from the burst end to the first window after which every window is good; else metastable', () => {
  const opts = { burstEndMs: 3000, sloMs: 100, windowMs: 1000, share: 0.95 }
  assert.deepEqual(recoveryOf([good, good, good, good, good], opts), { ms: 0, metastable: false })
  assert.deepEqual(recoveryOf([good, good, good, bad, bad, good, good], opts), { ms: 2000, metastable: false })
  assert.deepEqual(recoveryOf([good, good, good, good, bad], opts), { ms: null, metastable: true })
  assert.deepEqual(recoveryOf([good, good, good, good, bad, good], opts), { ms: 2000, metastable: false }, 'a relapse counts')
  // a schedule the watch stopped at 5.6 s (two windows confirmed): the window it cut short is not judged
  const stopped = { ...opts, stoppedAtMs: 5600 }
  assert.deepEqual(recoveryOf([good, good, good, good, good, bad], stopped), { ms: 0, metastable: false }, 'a cut window')
  assert.deepEqual(recoveryOf([good, good, good, good, bad, bad], stopped), { ms: null, metastable: true }, 'a whole one')
  assert.equal(windowRecovered({ offered: 20, good: 19, p99: 100 }, 100), true, '95 % and the target itself hold')
  assert.equal(windowRecovered({ offered: 20, good: 18, p99: 10 }, 100), false)
  assert.equal(windowRecovered({ offered: 0, good: 0, p99: null }, 100), false, 'nothing offered proves nothing')
})

test('a step lasts at least 8 s and 10 patiences; its first 2 patiences (at least 1 s) are not counted', () => {
  assert.deepEqual(stepTiming(100), { durationSec: 8, settleMs: 1000 })
  assert.deepEqual(stepTiming(1000), { durationSec: 20, settleMs: 4000 })
  const { phases, burstEndMs } = burstPhases(100)
  assert.deepEqual(phases.map((p) => [p.rate, p.durationMs]), [[70, 10000], [200, 5000], [70, 60000]])
  assert.equal(burstEndMs, 15000)
  assert.equal(OVERLOAD_DEFAULTS.patienceTargets, 2)
})

test('wasted CPU: the share of the tree CPU not spent on good answers; none for work that is not CPU', () => {
  assert.equal(wastedCpuShare({ goodWorkMs: 250, workMs: 900, drainedCpuSeconds: 1 }), 0.75)
  assert.equal(wastedCpuShare({ goodWorkMs: 900, workMs: 5000, drainedCpuSeconds: 1 }), null, 'a sleep')
  assert.equal(wastedCpuShare({ goodWorkMs: 0, workMs: 0, drainedCpuSeconds: null }), null)
})

test('goodput windows: by due time, good = verified 2xx within the target; shed = 503/429', () => {
  const g = createGoodput({ sloMs: 100 })
  g.add({ dueMs: 10, status: 200, latencyMs: 50, verified: true, workMs: 20 })
  g.add({ dueMs: 20, status: 200, latencyMs: 150, verified: true, workMs: 20 }) // too late
  g.add({ dueMs: 30, status: 200, latencyMs: 50, verified: false, workMs: 20 }) // wrong body
  g.add({ dueMs: 1500, status: 503, latencyMs: 2, workMs: null })
  g.add({ dueMs: 1600, status: null, latencyMs: 200, timeout: true })
  const f = g.figures()
  assert.deepEqual([f.offered, f.good, f.ok, f.shed, f.timeouts], [5, 1, 2, 1, 1])
  assert.equal(f.goodWorkMs, 20)
  assert.ok(Math.abs(f.shedP50 - 2) < 0.05, `${f.shedP50}`) // 2 significant digits (coarse histograms)
  assert.deepEqual(f.windows.map((w) => [w.t, w.offered, w.good, w.shed]), [[0, 3, 1, 0], [1000, 2, 0, 1]])
  assert.equal(typeof f.windows[0].histogram, 'string')
  const w0 = g.window(0)
  assert.deepEqual([w0.offered, w0.good], [3, 1])
  assert.ok(Math.abs(w0.p99 - 150) < 2, `${w0.p99}`)
})

test('a rate profile: each phase at its own rate, back to back; until() ends it early', () => {
  const phases = [{ rate: 10, durationMs: 1000 }, { rate: 20, durationMs: 500 }]
  const s = createSchedule({ phases })
  const due = []
  for (let t = s.next(); t !== null; t = s.next()) due.push(t)
  assert.equal(due.length, 20)
  assert.deepEqual(due.slice(8, 13), [800, 900, 1000, 1050, 1100])
  const early = createSchedule({ phases, until: (t) => t >= 500 })
  let n = 0
  while (early.next() !== null) n++
  assert.equal(n, 5)
})

test('compare: one overload cell per result, lined up in a Markdown table', () => {
  const r = {
    overload: {
      capacityRps: 90,
      sloMs: 100,
      steps: [{ multiple: 2, goodputShare: 0.9, shedShare: 0.5, p99: 80 }],
      recovery: { ms: 0, metastable: false }
    }
  }
  const cell = overloadCell(r)
  assert.deepEqual(cell.steps['2'], { goodput: 0.9, shed: 0.5, p99: 80 })
  assert.equal(overloadCell({ overload: null }), null)
  const cmp = { reports: [{ letter: 'A', baseline: true }] }
  const md = overloadMarkdown(cmp, [{ key: 'queued-threads/deadline@sleep-sync:20#overload', cells: [{ overload: cell }] }]).join('\n')
  assert.match(md, /\| `queued-threads\/deadline@sleep-sync:20#overload` \| 90 \| 90% \/ 50% \| 0.0 s \|/)
})

test('the overload sweep judges one target: the first --slo, else 5 × the service time', async () => {
  const { default: overload } = await import('../../../loadtest/experiments/overload.js')
  const plan = (o) => overload.plan({ settings: { ...overload.defaults }, work: 'loop:3e7', servers: ['simple'], user: {}, ...o })
  const one = plan({ sloMs: null, slos: null })[0].sweep({ serviceMs: 20, cores: 2 }).describe()
  assert.deepEqual([one.sloMs, one.targetsMs], [100, [100]])
  const first = plan({ sloMs: 150, slos: [150, 300] })[0].sweep({ serviceMs: 20, cores: 2 }).describe()
  assert.deepEqual([first.sloMs, first.targetsMs], [150, [150]])
})

test('--capacity-from a multi-target report: the capacity at the --slo asked, else refused naming its targets', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { default: overload } = await import('../../../loadtest/experiments/overload.js')
  const dir = await mkdtemp(join(tmpdir(), 'loadlab-overload-'))
  try {
    const file = join(dir, 'cap.json')
    const capacity = {
      serviceMs: 20,
      capacity: { rps: 90, sloMs: 100, bound: 'refined' },
      targets: [{ sloMs: 100, rps: 90, bound: 'refined' }, { sloMs: 200, rps: 96, bound: 'refined' }]
    }
    const { SCHEMA } = await import('../../../loadtest/result/build.js')
    const result = { kind: 'http', server: 'simple', variant: null, work: 'loop:3e7', capacity }
    await writeFile(file, JSON.stringify({ kind: 'loadlab-report', schema: SCHEMA, results: [result] }))
    const plan = (sloMs) => overload.plan({ settings: { ...overload.defaults }, work: 'loop:3e7', servers: ['simple'], user: {}, capacityFrom: file, sloMs })
    assert.deepEqual([plan(200)[0].overload.capacity.rps, plan(200)[0].overload.capacity.sloMs], [96, 200])
    assert.equal(plan(null)[0].overload.capacity.rps, 90)
    assert.equal(plan(null)[0].sweep, undefined, 'no sweep when the file gives C')
    assert.throws(() => plan(50), /measured simple at a 100, 200 ms target, not --slo 50 ms$/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
