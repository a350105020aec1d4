// The live progress line of a measured round (rendered by the CLI from the run's progress events).

function seconds (ms) {
  return `${(ms / 1000).toFixed(1)}s`
}

// One line from a { type: 'round', elapsedMs, plannedMs, amount, completed, rps, p99, timeouts } event.
export function formatRoundProgress (e) {
  const planned = e.plannedMs ? `/${seconds(e.plannedMs)}` : ''
  const done = e.amount ? `${e.completed}/${e.amount}` : `${e.completed}`
  const p99 = e.p99 === null ? '-' : e.p99 >= 1000 ? `${(e.p99 / 1000).toFixed(2)} s` : `${e.p99.toFixed(1)} ms`
  return `${seconds(e.elapsedMs)}${planned} · ${done} done · ${Math.round(e.rps)} req/s · p99 ${p99} · ${e.timeouts} timeouts`
}
