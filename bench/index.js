// `npm run bench`: what the lab itself costs, measured side by side in one run, printed as ratios.
//
// 1. The dispatch round trip of a piscina pool vs the shared-memory channel (hook cost 0).
// 2. The per-task time of three pools of long-lived processes (queued-processes' choice), side by side.
// 3. The throughput servers/simple loses when its telemetry is on vs off (autocannon, 127.0.0.1).
// 4. The same when it pushes the timeline's samples over IPC every 100 ms vs not.
// 5. The same with its Lab-Stamps header on vs off (LOADLAB_STAMPS=off).
// 6. What the ruler costs a run: its two readings of the machine (loadtest/run/ruler/).
// 7. loadlab history reading a folder of 1,000 reports (time and peak RSS).
// Rounds alternate between the two sides so that drift in the machine hits both alike; the spread
// (± relative standard deviation, and the min–max of the per-round ratios) says how far to trust them.
import { PARTS, bench, parseFlags } from './bench.js'
import { render } from './render.js'
import { abortError, runMain } from '../loadtest/errors.js'

const HELP = `usage: npm run bench -- [--quick] [--json] [--rounds N] [--only PART] [--trace FILE]

Measures, side by side in one run, what the lab itself costs, and prints ratios:
  dispatch    per-call round trip of piscina vs the shared-memory channel (cost 0, 30 B and 10 kB, 1 and 2 workers)
  processes   per-task time of a pool of long-lived processes: the lab's own (queued-processes) vs
              workerpool's process mode vs tinypool's child_process runtime, and crash → next answer
  telemetry   requests/second of servers/simple (loop:1e5) with --telemetry on vs off
  generator   the open-loop generator's highest kept rate vs autocannon's closed-loop maximum on one
              trivial server (median of three probes a rate; the rule it applied printed, and the
              previous rule's rate beside it), and the lab's memory over two long rounds at that rate
  sampling    the same with the timeline's IPC samples (every 100 ms) on vs off
  stamps      the same with the Lab-Stamps header (where a request's time goes) on vs LOADLAB_STAMPS=off
  ruler       seconds a run pays for its ruler: readings of the machine one after another (5), two a run
  history     loadlab history reading a folder of 1,000 reports built from a reference tour: time, peak RSS
Options:
  --quick       a tiny run (a few hundred requests; for the smoke test), not a measurement
  --json        print the results as JSON on stdout (the table goes to stderr)
  --rounds N    alternating rounds per side (default 5 for dispatch and processes, 3 for telemetry; 1 to 50)
  --only PART   run one part: ${PARTS.join(', ')}
  --trace FILE  the generator part traces one probe at the lowest rate that failed above the highest
                kept one into FILE (late requests, GC, connection opens, loop utilisation, batches)
  --help        this text`

// The bench from argv: a bad flag is a usage error (exit 2) before anything starts; Ctrl-C ends every
// server it started and exits 130 (abortError); the results on stdout (--json: the JSON, the table on stderr).
async function main (argv) {
  const flags = parseFlags(argv)
  if (flags.help) {
    console.log(HELP)
    return 0
  }
  const ac = new AbortController()
  const onSignal = (sig) => {
    console.error(`bench: ${sig}, stopping (ending every server it started)`)
    ac.abort(abortError(`interrupted by ${sig}`))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const result = await bench({
      quick: flags.quick,
      rounds: flags.rounds,
      only: flags.only,
      trace: flags.trace,
      signal: ac.signal,
      progress: (t) => console.error(t)
    })
    const text = render(result)
    if (flags.json) {
      console.error(text)
      console.log(JSON.stringify(result, null, 2))
    } else {
      console.log(text)
    }
    return 0
  } catch (err) {
    throw ac.signal.aborted ? ac.signal.reason : err
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

runMain(import.meta.url, 'bench', main)
