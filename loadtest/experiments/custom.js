// A custom run (`--server a,b`): the chosen servers with --work (or each server's default work).
// Not listed in the registry: it is what `--server` without `--experiment` means.
import { makeKey } from '../report/build.js'

export default {
  name: 'custom',
  study: null,
  title: 'Custom run',
  description: 'The servers chosen with --server, each with --work or its own default work.',
  defaults: { connections: 10, amount: 200, timeoutSec: 10, warmup: 20, work: null },
  quick: { amount: 40, warmup: 8 },
  // One entry per chosen server; work null means "the server's default", read from its ready line.
  plan (opts) {
    return opts.servers.map((server) => ({
      server,
      variant: null,
      args: opts.work ? ['--work', opts.work] : [],
      work: opts.work ?? null,
      key: opts.work ? makeKey({ server, work: opts.work }) : null
    }))
  }
}
