// result/ruler.js: a ruler's figures, their ratios and drift, whether the machine changed, and what is wrong
// with a ruler no machine gives; text/ruler.js says it. Rules on built readings, never this machine's figures.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  RULER_FIGURES, combinedSpread, floorOf, machineChanged, rulerFault, rulerFigure, rulerFigures,
  rulerOf, rulerRatios
} from '../../../loadtest/result/ruler.js'
import { RULER } from '../../../loadtest/result/rules.js'
import { rulerFaultText, rulerLine, rulerMovedLine, rulerRows } from '../../../loadtest/text/ruler.js'
import { rulerReading } from '../../fixtures/reports.js'

test('ruler: a figure is the median of its samples, its spread p90 over p10 less 1, its count', () => {
  assert.deepEqual(rulerFigure([1, 1.1, 1.05, 0.98, 1.02]), { value: 1.02, spreadPct: 12.2, n: 5 })
  assert.deepEqual(rulerFigure([2, 4]), { value: 3, spreadPct: 100, n: 2 })
  assert.equal(rulerFigure([]), null)
  assert.equal(rulerFigure([NaN, Infinity]), null)
  // each figure has its own floor in the rule book; a spread under it is raised to it
  for (const name of RULER_FIGURES) {
    const floor = floorOf(name)
    assert.ok(floor > 0 && Object.values(RULER).includes(floor), name)
    const both = Math.round(Math.hypot(floor, floor) * 10) / 10
    assert.equal(combinedSpread({ spreadPct: 0 }, { spreadPct: 0 }, name), both)
  }
  // the stable figures (one thread's loop, the cores) have tighter floors than the jittery ones (a Worker's start)
  assert.ok(floorOf('single.loop') < floorOf('spawn.workerMs') && floorOf('cores.effective') < floorOf('loopback.rps'))
})

test('ruler: its figures are the start reading\'s, or the mean of start and end with the larger spread', () => {
  const start = rulerReading()
  assert.deepEqual(Object.keys(rulerFigures({ start, end: null })), RULER_FIGURES)
  const both = rulerFigures({ start, end: rulerReading({ scale: 1.2 }) })
  assert.equal(both['single.loop'].value, Number(((0.512 + 0.6144) / 2).toPrecision(4)))
  assert.equal(both['single.loop'].spreadPct, 2.1)
  assert.equal(both['single.loop'].n, 10)
})

test('ruler: a ratio beyond the two spreads combined is beyond, either way; within them it is not', () => {
  const a = rulerReading()
  const same = rulerRatios(a, rulerReading({ scale: 1.01 }))
  assert.deepEqual(Object.keys(same), RULER_FIGURES)
  assert.ok(Object.values(same).every((r) => !r.beyond), JSON.stringify(same))
  // loop: spreads 2.1 and 2.1, each raised to its floor and combined: a ratio past that bound is beyond, either
  // way; one inside it is not
  const bound = 1 + combinedSpread({ spreadPct: 2.1 }, { spreadPct: 2.1 }, 'single.loop') / 100
  const past = Number((bound * 1.05).toPrecision(3))
  const slow = rulerRatios(a, rulerReading({ scale: past }))['single.loop']
  assert.deepEqual(slow, { ratio: past, spreadPct: Math.round((bound - 1) * 1000) / 10, beyond: true })
  assert.equal(rulerRatios(rulerReading({ scale: past }), a)['single.loop'].beyond, true)
  const inside = Number((1 + (bound - 1) * 0.8).toPrecision(3))
  assert.equal(rulerRatios(a, rulerReading({ scale: inside }))['single.loop'].beyond, false)
  // a ruler is read as its figures, a reading as its own, flat figures as they are
  assert.deepEqual(rulerRatios({ start: a, end: null }, a), rulerRatios(a, { start: a, end: null }))
  assert.deepEqual(rulerRatios(rulerFigures({ start: a, end: null }), a), rulerRatios(a, a))
  // a figure of 0 has no ratio
  const idle = rulerReading({ timerLagMs: { value: 0, spreadPct: 0, n: 5 } })
  assert.deepEqual(rulerRatios(idle, a).timerLagMs,
    { ratio: null, spreadPct: combinedSpread({ spreadPct: 0 }, { spreadPct: 12.5 }, 'timerLagMs'), beyond: false })
})

test('ruler: machineChanged names the figures beyond; taskset -c 0 against 2 cores changes cores.effective', () => {
  assert.deepEqual(machineChanged(rulerReading(), rulerReading()), { changed: false, figures: [] })
  const one = machineChanged({ start: rulerReading(), end: null }, { start: rulerReading({ cores: 1.01 }), end: null })
  assert.deepEqual(one, { changed: true, figures: ['cores.effective'] })
  assert.deepEqual(machineChanged(null, rulerReading()), { changed: false, figures: [] })
})

test('ruler: a run\'s ruler has the drift end over start and is moved when a figure is beyond', () => {
  const quiet = rulerOf(rulerReading(), rulerReading())
  assert.equal(quiet.moved, false)
  assert.equal(quiet.drift.length, RULER_FIGURES.length)
  const loopSpread = combinedSpread({ spreadPct: 2.1 }, { spreadPct: 2.1 }, 'single.loop')
  assert.deepEqual(quiet.drift[0], { figure: 'single.loop', ratio: 1, spreadPct: loopSpread, beyond: false })
  const moved = rulerOf(rulerReading(), rulerReading({ scale: 1.5 }))
  assert.equal(moved.moved, true)
  assert.ok(rulerMovedLine(moved).startsWith('The machine moved during the run (end over start, beyond the readings\' ' +
    `spread): single.loop 1.500× (±${loopSpread} %)`), rulerMovedLine(moved))
  assert.equal(rulerMovedLine(quiet), null)
  // an interrupted run keeps its start reading: no end, no drift, not moved
  assert.deepEqual(rulerOf(rulerReading(), null), { start: rulerReading(), end: null, drift: [], moved: false })
  assert.equal(rulerFault(moved), null)
  assert.equal(rulerFault(rulerOf(rulerReading(), null)), null)
})

test('ruler: what is wrong with a ruler no machine gives is one line naming the figure', () => {
  const bad = (change) => {
    const r = rulerOf(rulerReading(), rulerReading())
    change(r)
    const f = rulerFault(r)
    return f && rulerFaultText(f)
  }
  assert.equal(bad((r) => { r.start.cores.effective.value = 0 }), 'ruler.start.cores.effective is 0: no machine gives 0 cores')
  assert.equal(bad((r) => { r.end.cores.offered = 0 }), 'ruler.end.cores.offered is 0: no machine gives 0 cores')
  assert.equal(bad((r) => { r.start.single.loop.value = -1 }), 'ruler.start.single.loop is -1: no machine takes -1 ms')
  assert.equal(bad((r) => { r.start.loopback.rps.value = Infinity }),
    'ruler.start.loopback.rps is Infinity: no machine gives an infinite figure')
  assert.equal(bad((r) => { r.start.spawn.workerMs.n = 0 }), 'ruler.start.spawn.workerMs.n is 0: a count is at least 1, not 0')
  assert.equal(bad((r) => { r.start.single.json.spreadPct = -2 }), 'ruler.start.single.json.spreadPct is -2: a spread is never -2 %')
  assert.equal(bad((r) => { r.start.cores.scaling[1].speedup.value = 0 }),
    'ruler.start.cores.scaling[1].speedup is 0: no machine gives 0 cores')
  assert.equal(bad((r) => { delete r.start.spawn }), 'ruler.start.spawn is missing: expected an object')
  assert.equal(bad((r) => { r.moved = 'yes' }), 'ruler.moved is "yes": expected true or false')
  assert.equal(bad((r) => { r.drift[2].ratio = -1 }), 'ruler.drift[2].ratio is -1: a ratio of two figures is never -1')
  assert.equal(bad((r) => { r.start.cores.offered = 1.5 }), 'ruler.start.cores.offered is 1.5: expected a whole number')
  // an idle timer that never lagged is a machine's figure
  assert.equal(bad((r) => { r.start.timerLagMs.value = 0 }), null)
  assert.equal(rulerFaultText(rulerFault(null)), 'ruler is null: expected an object')
})

test('ruler: its line and table', () => {
  const r = rulerOf(rulerReading(), rulerReading({ scale: 1.5 }))
  assert.equal(rulerLine(r), '2 cores offered, 1.96 given · loop 0.512 ms · loopback 0.081 ms, 9,800 req/s · ' +
    'Worker 21.3 ms, node 48.2 ms · timer lag 0.071 ms')
  const rows = rulerRows(r)
  assert.equal(rows.length, RULER_FIGURES.length + 1)
  const spread = combinedSpread({ spreadPct: 2.1 }, { spreadPct: 2.1 }, 'single.loop')
  assert.deepEqual(rows[1], ['loop, ms per call (one thread)', '0.512 ±2.1 %', '0.768 ±2.1 %', '1.500×',
    `moved (beyond ±${spread} %)`])
  assert.deepEqual(rulerRows(rulerOf(rulerReading(), null))[1].slice(2), ['-', '-', '-'])
})
