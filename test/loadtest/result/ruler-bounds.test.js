// A ruler's figures bounded as compare bounds a run's (result/ruler.js RULER_BOUNDS): a huge or tiny but
// finite figure is refused with one line naming the field, and a field that must be an array says so.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { RULER_BOUNDS, rulerFault } from '../../../loadtest/result/ruler.js'
import { rulerFaultText } from '../../../loadtest/text/ruler.js'
import { readBounded } from '../../../loadtest/report/read.js'
import { ROOT } from '../../helpers/lab.js'

const KEPT = JSON.parse(readBounded(join(ROOT,
  'reports/reference/compare-validation/2026-11-28T02-43-30Z-vm-tour.json.gz'))).ruler

test('rulerFault: figures past RULER_BOUNDS are refused, naming the field; the kept ruler passes', () => {
  assert.equal(rulerFault(KEPT), null)
  const cases = [
    [(r) => { r.start.single.loop.value = 1e300 }, 'ruler.start.single.loop', 'too-large'],
    [(r) => { r.start.single.loop.value = 5e-324 }, 'ruler.start.single.loop', 'too-small'],
    [(r) => { r.start.single.loop.spreadPct = 1e300 }, 'ruler.start.single.loop.spreadPct', 'too-large'],
    [(r) => { r.start.cores.effective.value = RULER_BOUNDS.cores.max * 2 }, 'ruler.start.cores.effective', 'too-large'],
    [(r) => { r.start.loopback.rps.value = 1e12 }, 'ruler.start.loopback.rps', 'too-large'],
    [(r) => { r.drift = 'x' }, 'ruler.drift', 'not-array'],
    [(r) => { r.start.cores.scaling = {} }, 'ruler.start.cores.scaling', 'not-array']
  ]
  for (const [edit, path, code] of cases) {
    const r = structuredClone(KEPT)
    edit(r)
    const f = rulerFault(r)
    assert.deepEqual([f?.path, f?.code], [path, code], path)
    const line = rulerFaultText(f)
    assert.ok(line.startsWith(`${path} is `) && !line.includes('\n') && line.length < 200, line)
    if (code === 'not-array') assert.match(line, /expected an array$/)
    else assert.match(line, /no machine gives it/)
  }
})
