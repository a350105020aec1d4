// A child process that runs one open-loop round (fireOpenLoop) with the options in argv[2] (JSON) and
// prints { raw counts, elapsedMs } as one JSON line: its memory is what the test reads from /proc.
import { performance } from 'node:perf_hooks'
import { fireOpenLoop } from '../../loadtest/run/generate/open-loop.js'

const opts = JSON.parse(process.argv[2])
const started = performance.now()
const raw = await fireOpenLoop(opts)
const { sent, completed, timeouts, dropped, droppedReason, errors, written, waited, peakWaiting, peakInFlight } = raw
const elapsedMs = performance.now() - started
process.stdout.write(JSON.stringify({
  sent, completed, timeouts, dropped, droppedReason, errors, written, waited, peakWaiting, peakInFlight, elapsedMs
}) + '\n')
