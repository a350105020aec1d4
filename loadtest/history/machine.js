// Which machine each report of a history ran on: its machine block (CPU model, cores, the cores it could use,
// memory, kernel, architecture, OS; never the host name, which CI runners share). A ruler (report.ruler) describes
// a machine: it never splits a series, but where it moved beside a change of code on one machine block
// (result/ruler.js machineChanged on CHANGE.machineFigures figures or more) the change is flagged, still code.
import { machineChanged } from '../result/ruler.js'
import { CHANGE } from '../result/rules.js'

// The machine block's figures that say what machine it is.
function blockKey (m) {
  if (!m || typeof m !== 'object') return 'unknown'
  return JSON.stringify([m.cpuModel ?? null, m.cores ?? null, m.availableParallelism ?? null, m.memoryBytes ?? null,
    m.os?.release ?? null, m.arch ?? null, m.os?.platform ?? null])
}

// The machines of `reports` (in time order): { machines: [{ id, first (report id), reports (count), cpuModel,
// cores, availableParallelism, memoryBytes, kernel }], of: Map(report id → machine id), beyond: (machine a,
// machine b) → the ruler figures beyond their spread between their first rulers, rulerMoved: (report id a,
// report id b) → the same between two reports' rulers where CHANGE.machineFigures or more moved, else [] }.
export function assignMachines (reports) {
  const machines = []
  const first = new Map() // machine id → its first report
  const byBlock = new Map() // block → machine
  const of = new Map()
  const byId = new Map(reports.map((r) => [r.id, r]))
  for (const report of reports) {
    const block = blockKey(report.machine)
    const same = byBlock.get(block)
    if (same) {
      same.reports++
      of.set(report.id, same.id)
      continue
    }
    const id = `m${machines.length + 1}`
    const mb = report.machine ?? {}
    const m = {
      id,
      first: report.id,
      reports: 1,
      cpuModel: mb.cpuModel ?? null,
      cores: mb.cores ?? null,
      availableParallelism: mb.availableParallelism ?? null,
      memoryBytes: mb.memoryBytes ?? null,
      kernel: mb.os?.release ?? null
    }
    machines.push(m)
    byBlock.set(block, m)
    first.set(id, report)
    of.set(report.id, id)
  }
  const figuresBetween = (ra, rb) => (isRuler(ra) && isRuler(rb) ? machineChanged(ra, rb).figures : [])
  const beyond = (a, b) => figuresBetween(first.get(a)?.ruler, first.get(b)?.ruler)
  const rulerMoved = (a, b) => {
    const figures = figuresBetween(byId.get(a)?.ruler, byId.get(b)?.ruler)
    return figures.length >= CHANGE.machineFigures ? figures : []
  }
  return { machines, of, beyond, rulerMoved }
}

const isRuler = (r) => Boolean(r && typeof r === 'object')
