// result/ruler.js: a ruler's figures, their ratios and drift, whether the machine changed, and what is wrong
// with a ruler no machine gives; text/ruler.js says it. Rules on built readings, never this machine's figures.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  RULER_FIGURES, combinedSpread, machineChanged, ratioFigure, rulerFault, rulerFigure, rulerFigures, rulerOf,
  rulerRatios
} from '../../../loadtest/result/ruler.js'
import { RULER } from '../../../loadtest/result/rules.js'
import { rulerFaultText, rulerLine, rulerMovedLine, rulerRows } from '../../../loadtest/text/ruler.js'
import { rulerReading } from '../../fixtures/reports.js'

test('ruler: a figure is the median of its samples, its spread p90 over p10 less 1, its count', () => {
  assert.deepEqual(rulerFigure([1, 1.1, 1.05, 0.98, 1.02]), { value: 1.02, spreadPct: 12.2, n: 5 })
  assert.deepEqual(rulerFigure([2, 4]), { value: 3, spreadPct: 100, n: 2 })
  assert.equal(rulerFigure([]), null)
  assert.equal(rulerFigure([NaN, Infinity]), null)
  // a ratio of figures (a speedup): the values' ratio, the spreads combined (each at least the floor), the
  // fewer samples
  const s = ratioFigure({ value: 100, spreadPct: 30, n: 5 }, { value: 190, spreadPct: 40, n: 4 })
  assert.deepEqual(s, { value: 1.9, spreadPct: 50, n: 4 })
  const floor = RULER.spreadFloorPct
  assert.equal(combinedSpread({ spreadPct: 0 }, { spreadPct: 0 }), Math.round(Math.hypot(floor, floor) * 10) / 10)
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
  // loop: spreads 2.1 and 2.1, each raised to the floor (10 %) → combined 14.1 %: 1.2 × is beyond, 1 / 1.2 too
  const slow = rulerRatios(a, rulerReading({ scale: 1.2 }))['single.loop']
  assert.deepEqual(slow, { ratio: 1.2, spreadPct: 14.1, beyond: true })
  assert.equal(rulerRatios(rulerReading({ scale: 1.2 }), a)['single.loop'].beyond, true)
  assert.equal(rulerRatios(a, rulerReading({ scale: 1.1 }))['single.loop'].beyond, false)
  // a ruler is read as its figures, a reading as its own, flat figures as they are
  assert.deepEqual(rulerRatios({ start: a, end: null }, a), rulerRatios(a, { start: a, end: null }))
  assert.deepEqual(rulerRatios(rulerFigures({ start: a, end: null }), a), rulerRatios(a, a))
  // a figure of 0 has no ratio
  const idle = rulerReading({ timerLagMs: { value: 0, spreadPct: 0, n: 5 } })
  assert.deepEqual(rulerRatios(idle, a).timerLagMs, { ratio: null, spreadPct: 16, beyond: false })
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
  assert.deepEqual(quiet.drift[0], { figure: 'single.loop', ratio: 1, spreadPct: 14.1, beyond: false })
  const moved = rulerOf(rulerReading(), rulerReading({ scale: 1.3 }))
  assert.equal(moved.moved, true)
  assert.match(rulerMovedLine(moved), /^The machine moved during the run \(end over start, beyond the readings' spread\): single\.loop 1\.300× \(±14\.1 %\)/)
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
  const r = rulerOf(rulerReading(), rulerReading({ scale: 1.3 }))
  assert.equal(rulerLine(r), '2 cores offered, 1.96 given · loop 0.512 ms · loopback 0.081 ms, 9,800 req/s · ' +
    'Worker 21.3 ms, node 48.2 ms · timer lag 0.071 ms')
  const rows = rulerRows(r)
  assert.equal(rows.length, RULER_FIGURES.length + 1)
  assert.deepEqual(rows[1], ['loop, ms per call (one thread)', '0.512 ±2.1 %', '0.666 ±2.1 %', '1.300×', 'moved (beyond ±14.1 %)'])
  assert.deepEqual(rulerRows(rulerOf(rulerReading(), null))[1].slice(2), ['-', '-', '-'])
})
