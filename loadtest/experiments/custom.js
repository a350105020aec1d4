// A custom run (`--server a,b`): the chosen servers with --work (or each server's default work).
// Not listed in the registry: it is what `--server` without `--experiment` means.
import { taskArgs } from '../run/watch/task.js'

export default {
  name: 'custom',
  study: null,
  title: 'Custom run',
  description: 'The servers chosen with --server, each with --work or its own default work.',
  defaults: { connections: 10, amount: 200, timeoutSec: 10, warmup: 20, work: null },
  quick: { amount: 40, warmup: 8 },
  // One entry per chosen server; work null means "the server's default", read from its ready line.
  plan ({ task, servers, work }) {
    if (task) return servers.map((server) => taskEntry(server, task))
    return servers.map((server) => ({ server, variant: null, args: work ? ['--work', work] : [], work }))
  }
}

// A --task run: the task's arguments for every server; sleep-variants runs it in its pooled variant
// (piscina's defaults), its unpooled one being the same as simple.
function taskEntry (server, work) {
  const variant = server === 'sleep-variants' ? 'async-sleep-pooled' : null
  return {
    server,
    variant,
    args: [...(variant ? ['--variant', variant] : []), ...taskArgs(work)],
    work: work.spec
  }
}
