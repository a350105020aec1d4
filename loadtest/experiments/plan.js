// What every CPU experiment's plan starts from: its settings (the experiment's defaults or --quick), the
// work (--work, else the settings'), and the strategies --server names among those it runs (all of them
// when none is named). Pure.
export function planBasics (opts, all) {
  const q = opts.settings
  return { q, work: opts.work ?? q.work, servers: (opts.servers ?? all).filter((s) => all.includes(s)) }
}
