// Across machines by paired ratios (result/paired.js): each report's ratios to one baseline
// strategy, paired by round on its own machine, its ranking by them, and the ratios that differ
// between the baseline report and another beyond both intervals. A ratio is measured within one
// machine, so no ruler enters it.
import { PAIRED_FIGURES, pairedOf, ratiosApart } from '../result/paired.js'

// The baseline strategy of the comparison: the baseline report's own (its paired block's), else its
// first HTTP result's; every report's ratios divide by the same one.
function baselineKey (entries, baseline) {
  const { report } = entries[baseline]
  return report.paired?.baseline ?? pairedOf(report.results)?.baseline ?? null
}

// Each report's paired block against the comparison's baseline strategy (null where the report has
// no rounds, or that strategy failed there), and the ratios that are apart between the baseline
// report and each other: { key, baseline, blocks: [paired | null], changed: [{ report, key, figure,
// here, there }] }. null where fewer than two reports have rounds.
export function pairedAcross (entries, baseline) {
  const key = baselineKey(entries, baseline)
  if (!key) return null
  const blocks = entries.map(({ report }) => {
    const p = pairedOf(report.results, { baseline: key })
    return p?.baseline ? p : null
  })
  if (blocks.filter(Boolean).length < 2 || !blocks[baseline]) return null
  const changed = []
  const here = new Map(blocks[baseline].entries.map((e) => [e.key, e]))
  blocks.forEach((block, i) => {
    if (i === baseline || !block) return
    for (const e of block.entries) {
      const h = here.get(e.key)
      for (const figure of PAIRED_FIGURES) {
        if (h && ratiosApart(h.figures[figure], e.figures[figure])) {
          const [here, there] = [h.figures[figure], e.figures[figure]]
          changed.push({ report: i, key: e.key, figure, here, there })
        }
      }
    }
  })
  return { baseline: key, blocks, changed }
}
