// What a report found that is neither a fault nor noise, in one line each for every output: a strategy's
// own contention (result/trust.js contentionOf) and a capacity that cannot be met or is sensitive to its
// target (result/capacity.js capacityLine). Pure.
import { capacityLine } from './capacity.js'
import { isInProcess } from './kind.js'

// A result's name in the findings: server, or server/variant.
function nameOf (r) {
  return r.variant ? `${r.server}/${r.variant}` : String(r.server ?? r.key ?? '?')
}

// The finding lines of a report's results, in result order (empty: none).
export function findingLines (results = []) {
  const out = []
  for (const r of results) {
    if (!r || typeof r !== 'object' || isInProcess(r)) continue
    const line = capacityLine(nameOf(r), r.capacity?.capacity)
    if (line) out.push(line)
    if (r.contention?.text) out.push(`${nameOf(r)}: ${r.contention.text} (its own contention: a finding, not noise)`)
    const steps = r.capacity?.steps ?? []
    const own = steps.filter((s) => s.contention)
    if (own.length) {
      const worst = own.reduce((a, b) => (b.contention.inflation > a.contention.inflation ? b : a))
      out.push(`${nameOf(r)}: its own contention in ${own.length} of ${steps.length} steps, at most ${worst.contention.text} ` +
        `(step ${worst.index + 1}): a finding, not noise`)
    }
  }
  return out
}
