// The Server-Timing header the servers send (servers/lib: `work;dur=MS, queue;dur=MS`), read in one
// place for both load engines: the closed loop (fire.js) and the open loop (open-loop.js).

// One metric's duration (ms) from a Server-Timing value (`work;dur=1.2, queue;dur=0`), or null; read in
// place, without splitting the value into arrays (the open loop calls it for every answer).
export function timingMs (value, name) {
  let at = 0
  while (at < value.length) {
    while (value.charCodeAt(at) === 32) at++
    const end = value.indexOf(',', at)
    const stop = end < 0 ? value.length : end
    const after = value.charCodeAt(at + name.length) // ';' or ' ' after the name
    if ((after === 59 || after === 32) && value.startsWith(name, at)) {
      const dur = value.indexOf('dur=', at + name.length)
      if (dur >= 0 && dur < stop) {
        const n = Number(value.slice(dur + 4, stop).split(';')[0].trim())
        return Number.isFinite(n) ? n : null
      }
    }
    at = stop + 1
  }
  return null
}

// The work and queue durations (ms) of a Server-Timing value: { work, queue }, a missing one null.
export function parseServerTiming (value) {
  const text = value ? String(value) : ''
  return { work: timingMs(text, 'work'), queue: timingMs(text, 'queue') }
}

// The Server-Timing value among a response's raw headers ([name, value, …]), or null.
export function serverTimingOf (rawHeaders) {
  if (!Array.isArray(rawHeaders)) return null
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() === 'server-timing') return String(rawHeaders[i + 1])
  }
  return null
}
