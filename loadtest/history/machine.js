// Which machine each report of a history ran on: what its ruler says (report.ruler, reports/README.md
// "ruler"), not its host name. Reports are taken in time order; each joins the first machine seen before
// with the same machine block (CPU model, cores, the cores it could use, memory, architecture, OS) whose first
// ruler its own does not differ from (result/ruler.js machineChanged on CHANGE.machineFigures figures or more:
// one alone past its spread happens by chance), else it is a new one, so that a runner that comes back is
// the same machine again. A report without a ruler is placed by its machine block alone, marked so.
import { machineChanged } from '../result/ruler.js'
import { CHANGE } from '../result/rules.js'

// The machine block's figures that say what machine it is (the host name does not: CI runners share one).
function blockKey (m) {
  if (!m || typeof m !== 'object') return 'unknown'
  return JSON.stringify([m.cpuModel ?? null, m.cores ?? null, m.availableParallelism ?? null, m.memoryBytes ?? null,
    m.arch ?? null, m.os?.platform ?? null])
}

// The machines of `reports` (in time order): { machines: [{ id, by: 'ruler'|'machine-block', first (report
// id), reports (count), cpuModel, cores, availableParallelism }], of: Map(report id → machine id), beyond:
// Map('A→B' → the ruler's figures beyond their spread between machine A's first ruler and B's) }.
export function assignMachines (reports) {
  const machines = []
  const refs = new Map() // machine id → its first report
  const of = new Map()
  for (const report of reports) {
    const hasRuler = report.ruler && typeof report.ruler === 'object'
    const by = hasRuler ? 'ruler' : 'machine-block'
    const block = blockKey(report.machine)
    const same = machines.find((m) => m.by === by && m.block === block && (!hasRuler ||
      machineChanged(refs.get(m.id).ruler, report.ruler).figures.length < CHANGE.machineFigures))
    if (same) {
      same.reports++
      of.set(report.id, same.id)
      continue
    }
    const id = `m${machines.length + 1}`
    const mb = report.machine ?? {}
    machines.push({
      id,
      by,
      first: report.id,
      reports: 1,
      cpuModel: mb.cpuModel ?? null,
      cores: mb.cores ?? null,
      availableParallelism: mb.availableParallelism ?? null,
      block
    })
    refs.set(id, report)
    of.set(report.id, id)
  }
  // what tells two machines apart: the ruler's figures beyond their spread (none between block machines)
  const beyond = (a, b) => {
    const ra = refs.get(a)?.ruler
    const rb = refs.get(b)?.ruler
    return ra && rb ? machineChanged(ra, rb).figures : []
  }
  return { machines: machines.map(({ block, ...m }) => m), of, beyond }
}
