// The live progress lines of a measured round and of the ruler (rendered by the CLI from the run's progress
// events).
import { fmtSeconds, msOrSeconds } from './text/format.js'
import { rulerLine } from './text/ruler.js'

// One line from a { type: 'round', elapsedMs, plannedMs, amount, completed, rps, p99, timeouts } event.
export function formatRoundProgress (e) {
  const planned = e.plannedMs ? `/${fmtSeconds(e.plannedMs)}` : ''
  const done = e.amount ? `${e.completed}/${e.amount}` : `${e.completed}`
  return `${fmtSeconds(e.elapsedMs)}${planned} · ${done} done · ${Math.round(e.rps)} req/s · ` +
    `p99 ${msOrSeconds(e.p99)} · ${e.timeouts} timeouts`
}

// One line from a { type: 'ruler', at, reading } event: said while the machine is read (reading null), then
// the reading in one line.
export function formatRulerProgress (e) {
  return `ruler (${e.at}): ${e.reading ? rulerLine(e.reading) : 'reading the machine …'}`
}
