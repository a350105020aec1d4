// The tour (`npm run lab` with no option): every server once, light work, light load, about two
// minutes on a 2-core machine. Shows each strategy's shape, not its limits.
import { catalog, allServerNames } from '../catalog.js'

// What the study servers run in the tour (the CPU strategies run the tour's work as they are).
const ENTRIES = {
  'sleep-variants': {
    variant: 'sync-sleep-pooled',
    args: ['--variant', 'sync-sleep-pooled', '--delay', '20'],
    work: 'sleep-sync:20',
    fixedWork: true
  },
  'long-vs-small-tasks': { variant: 'small', args: ['--mode', 'small', '--api', 'off'], work: 'ssr:1125' }
}

export default {
  name: 'tour',
  study: null,
  title: 'A quick tour of every server',
  description:
    'Each server once under a light load (loop:1e7 ≈ 10 ms per request, 4 connections, 150 requests): what each ' +
      'strategy looks like from inside and outside. Not a benchmark: see the experiments for that.',
  defaults: { connections: 4, amount: 150, timeoutSec: 10, warmup: 20, work: 'loop:1e7' },
  quick: { amount: 40, warmup: 8 },
  // One entry per built server; --work replaces the CPU work (not the sleep server's own).
  plan ({ servers, user, settings }) {
    const built = new Set(
      catalog()
        .filter((s) => s.available)
        .map((s) => s.name)
    )
    const names = (servers ?? allServerNames()).filter((n) => built.has(n))
    return names.map((server) => {
      const e = ENTRIES[server] ?? {}
      const own = e.fixedWork ? e.work : (user.work ?? e.work ?? settings.work)
      const args = [...(e.args ?? []), ...(e.fixedWork ? [] : ['--work', own])]
      return { server, variant: e.variant ?? null, args, work: own, key: null } // key: from the work the server reports
    })
  }
}
