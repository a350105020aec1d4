// What a result says of its runtime and of the figures that runtime could not measure. Pure: used by the
// run (lab.js), the report and compare.

// A runtime's name as a reader sees it: `bun 1.4.5`, `deno 2.9.6`, `node 24.21.0` (the name and version
// the server gave itself); a report from before --runtime has only the Node version (`v24.21.0`).
export function runtimeName (runtime) {
  if (!runtime) return null
  if (runtime.name && runtime.version) return `${runtime.name} ${runtime.version}`
  return runtime.node ?? runtime.label ?? null
}

// Why a result's server-side figure is missing although its server had telemetry on: the reason its
// runtime's instrument failed the check at start (servers/lib/instruments.js), else null.
// `what`: 'eventLoop' (the delay histogram) or 'elu' (the utilisation).
export function unmeasuredWhy (result, what) {
  const why = result?.telemetry?.unmeasured?.[what]
  return typeof why === 'string' && why !== '' ? why : null
}

// The figures a report's runs could not measure, one line per runtime and instrument:
// [{ runtime (null: not named), what, why, runs }] (runs: how many results), for the notes under a table
// (text/sentences.js unmeasuredText says each).
export function unmeasuredLines (results) {
  const lines = new Map()
  for (const r of results ?? []) {
    for (const what of ['eventLoop', 'elu']) {
      const why = unmeasuredWhy(r, what)
      if (!why) continue
      const runtime = runtimeName(r.runtime)
      const key = `${runtime}\u0000${what}`
      if (!lines.has(key)) lines.set(key, { runtime, what, why, runs: 0 })
      lines.get(key).runs++
    }
  }
  return [...lines.values()]
}
