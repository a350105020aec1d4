// machineChanged as the agreed ruler shape defines it (CONTRACT), until loadtest/result/ruler.js lands.
const FIGS = [['single', 'loop'], ['single', 'hash'], ['single', 'json'], ['single', 'render'], ['cores', 'effective'],
  ['loopback', 'rttMs'], ['loopback', 'rps'], ['spawn', 'workerMs'], ['spawn', 'processMs'], ['timerLagMs']]
const at = (r, path) => path.reduce((x, p) => x?.[p], r)
export function rulerFigures (ruler) {
  const out = {}
  for (const path of FIGS) {
    const f = at(ruler?.start, path)
    if (f && typeof f.value === 'number') out[path.join('.')] = f
  }
  return out
}
export function machineChanged (a, b) {
  const fa = rulerFigures(a)
  const fb = rulerFigures(b)
  const figures = Object.keys(fa).filter((k) => {
    if (!fb[k] || !(fa[k].value > 0)) return false
    const spread = Math.max(Math.hypot(fa[k].spreadPct, fb[k].spreadPct), 10) / 100
    return Math.abs(Math.log(fb[k].value / fa[k].value)) > Math.log(1 + spread)
  })
  return { changed: figures.length > 0, figures }
}
