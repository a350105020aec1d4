// The bench's flags, settings and run: pure of printing (compute, then render).
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { runDispatch } from './channels.js'
import { runTelemetry } from './telemetry.js'
import { runGenerator } from './generator.js'
import { runSampling } from './sampling.js'
import { runStamps } from './stamps.js'
import { runRuler } from './ruler.js'
import { runProcesses } from './processes.js'
import { runHistory } from './history.js'
import { machine } from './machine.js'
import { usageError } from '../loadtest/errors.js'

// Settings of a full run.
const FULL = {
  dispatch: { workers: [1, 2], payloads: [30, 1e4], calls: 1000, rounds: 5, warmupCalls: 1000 },
  processes: { sizes: [1, 2], spec: 'loop:1', calls: 1000, rounds: 5, warmupCalls: 500, crashes: 3 },
  telemetry: {
    work: 'loop:1e5',
    connections: 10,
    durationSec: 3,
    amount: null,
    rounds: 3,
    warmupSec: 1,
    warmupAmount: null
  },
  // probes of 3 s (0.5 s of warm-up, then 2.5 s judged), three a rate; two 60 s memory rounds
  generator: {
    work: 'loop:1',
    connections: 10,
    durationSec: 3,
    amount: null,
    start: 2000,
    steps: 4,
    memorySec: 60,
    memoryRounds: 2,
    threads: 2,
    perRate: 3
  },
  ruler: { readings: 5 }, // readings one after another: its cost per reading and per run
  // loadlab history on a folder of 1,000 reports (goal: ≤ 10 s, ≤ 300 MB)
  history: { reports: 1000 }
}

// Settings of a full and of a quick run: a quick run is the full one with rounds of a fixed number of
// requests, fewer and smaller.
const SETTINGS = {
  full: FULL,
  quick: {
    dispatch: { ...FULL.dispatch, calls: 50, rounds: 2, warmupCalls: 20 },
    processes: { ...FULL.processes, calls: 50, rounds: 2, warmupCalls: 20, crashes: 1 },
    telemetry: {
      ...FULL.telemetry, connections: 4, durationSec: null, amount: 60, rounds: 2, warmupSec: null, warmupAmount: 20
    },
    generator: {
      ...FULL.generator,
      connections: 4,
      durationSec: null,
      amount: 100,
      start: 200,
      steps: 0,
      memorySec: 1,
      memoryRounds: 1,
      perRate: 1
    },
    ruler: { readings: 1 },
    history: { reports: 20 }
  }
}

function usage (message) {
  return usageError(message)
}

// Parse and check the flags; a bad flag is exit 2 with one line.
export function parseFlags (argv) {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        json: { type: 'boolean' },
        rounds: { type: 'string' },
        only: { type: 'string' },
        trace: { type: 'string' },
        help: { type: 'boolean' }
      }
    }))
  } catch (err) {
    throw usage(`bench: ${err.message.split('\n')[0]} (options: --quick --json --rounds N --only PART --trace FILE --help)`)
  }
  let rounds = null
  if (values.rounds !== undefined) {
    rounds = Number(values.rounds)
    if (values.rounds === '' || !Number.isInteger(rounds) || rounds < 1 || rounds > 50) {
      throw usage(`bench: --rounds: expected an integer from 1 to 50, got \`${values.rounds}\``)
    }
  }
  if (values.only !== undefined && !PARTS.includes(values.only)) {
    throw usage(`bench: --only: expected one of ${PARTS.join(', ')}, got \`${values.only}\``)
  }
  if (values.trace === '') throw usage('bench: --trace: expected a file name')
  return {
    quick: values.quick ?? false,
    json: values.json ?? false,
    rounds,
    only: values.only ?? null,
    trace: values.trace ?? null,
    help: values.help ?? false
  }
}

// The bench's parts, in the order they run (--only runs one).
export const PARTS = ['dispatch', 'processes', 'telemetry', 'generator', 'sampling', 'stamps', 'ruler', 'history']

// Run the measurements (all, or `only` one); resolves with the plain result object (compute, then
// render). `trace`: a file for the generator part's trace of one failing probe.
export async function bench ({ quick = false, rounds = null, only = null, trace = null, signal, progress } = {}) {
  progress ??= () => {}
  const s = structuredClone(SETTINGS[quick ? 'quick' : 'full'])
  if (rounds !== null) s.dispatch.rounds = s.processes.rounds = s.telemetry.rounds = rounds
  const createdAt = new Date().toISOString()
  const t0 = performance.now()
  const runs = (part) => only === null || only === part
  const dispatch = runs('dispatch') ? await runDispatch(s.dispatch, { signal, progress }) : null
  signal?.throwIfAborted()
  const processes = runs('processes') ? await runProcesses(s.processes, { signal, progress }) : null
  signal?.throwIfAborted()
  const telemetry = runs('telemetry') ? await runTelemetry(s.telemetry, { signal, progress }) : null
  signal?.throwIfAborted()
  const generator = runs('generator') ? await runGenerator(s.generator, { signal, progress, trace }) : null
  signal?.throwIfAborted()
  // The timeline's server samples, measured with the telemetry bench's settings.
  const sampling = runs('sampling') ? await runSampling(s.telemetry, { signal, progress }) : null
  signal?.throwIfAborted()
  // The Lab-Stamps header, measured with the same settings.
  const stamps = runs('stamps') ? await runStamps(s.telemetry, { signal, progress }) : null
  signal?.throwIfAborted()
  // The ruler a run reads before its first server and after its last: its cost.
  const ruler = runs('ruler') ? await runRuler(s.ruler, { signal, progress }) : null
  signal?.throwIfAborted()
  const history = runs('history') ? await runHistory(s.history, { signal, progress }) : null
  return {
    kind: 'loadlab-bench',
    schema: 1,
    createdAt,
    durationMs: performance.now() - t0,
    quick,
    only,
    machine: await machine(),
    dispatch,
    processes,
    telemetry,
    generator,
    sampling,
    stamps,
    ruler,
    history,
    notes: [
      '± is the relative standard deviation over the rounds; ratios are per round (both sides measured back to back), shown as median (min–max).',
      ...(quick ? ['--quick: tiny rounds for the smoke test; these numbers are not a measurement.'] : [])
    ]
  }
}
