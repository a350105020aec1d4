// What every CPU experiment's plan starts from: its settings (the experiment's defaults or --quick), the
// work (--work, else the settings': plan.js resolves it), and the strategies --server names among those
// it runs (all of them when none is named). Pure.
export function planBasics ({ settings: q, work, servers }, all) {
  return { q, work, servers: (servers ?? all).filter((s) => all.includes(s)) }
}
