// Each server's strategy, once: what it starts per request (`starts`: 'process', 'thread' or null: its work
// runs cold there), how it spreads requests over the cores (`spread`: 'split', connections split among
// worker processes; 'queue', one queue feeding a pool; null), and the flag that sets its pool (null: none).
// In order of simplicity, the tie's last criterion (rule book TIE). catalog.js, the machine model
// (result/machine.js) and the tie read it; compare's floors are keyed by its names.
export const STRATEGIES = Object.freeze({
  simple: { cpu: true, starts: null, spread: null, pool: null },
  cluster: { cpu: true, starts: null, spread: 'split', pool: '--workers' },
  'queued-threads': { cpu: true, starts: null, spread: 'queue', pool: '--threads' },
  'queued-processes': { cpu: true, starts: null, spread: 'queue', pool: '--processes' },
  'worker-per-request': { cpu: true, starts: 'thread', spread: null, pool: null },
  'cluster-threads': { cpu: true, starts: 'thread', spread: 'split', pool: '--workers' },
  'child-process': { cpu: true, starts: 'process', spread: null, pool: null },
  'sleep-variants': { cpu: false, starts: null, spread: null, pool: null },
  'long-vs-small-tasks': { cpu: false, starts: null, spread: null, pool: null }
})

// How a strategy that keeps a warm worker on every core feeds them ('queue' or 'split'), else null.
export const warmFeed = (s) => (s?.starts ? null : s?.spread ?? null)

// Whether a strategy's requests run on more than one core: it spreads them, or starts one elsewhere each.
export const usesCores = (s) => Boolean(s?.spread || s?.starts)
