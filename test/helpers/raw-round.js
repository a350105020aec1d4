// A load engine's raw round and a plan entry as the result builder receives them (not a test file):
// the fixtures of the result/ and report/ unit tests.
import { createHistogram, recordMs } from '../../loadtest/result/histogram.js'

// An HDR histogram holding these millisecond values, as the load engines record them.
export function hist (values) {
  const h = createHistogram()
  for (const v of values) recordMs(h, v)
  return h
}

// A raw round of ten answered requests (1 to 10 ms), with outside figures; `over` replaces fire fields.
export function rawRound (over = {}) {
  return {
    fire: {
      sent: 10,
      completed: 10,
      ok: 10,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      mismatches: 0,
      statusCodes: { 200: 10 },
      latency: hist([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      workMs: hist([1, 1]),
      queueMs: hist([0, 2, 2]),
      durationMs: 100,
      mismatchSample: null,
      errorSample: null,
      autocannon: null,
      stopped: false,
      ...over
    },
    probe: { latencies: [1, 2], failed: 0, abandoned: 0 },
    outside: {
      cpuSeconds: 0.2,
      peakRssBytes: 1e8,
      peakProcesses: 1,
      peakThreads: 10,
      samples: [],
      loadGenerator: { cpuSeconds: 0.05, wallSeconds: 1, utilisation: 0.05 }
    },
    recovery: { ms: 3, status: 200 },
    telemetry: { strategy: 'simple', eventLoop: { p50: 1, p99: 9, max: 10 } }
  }
}

// A closed-loop plan entry of simple with loop:1e7.
export const entry = {
  server: 'simple',
  variant: null,
  work: 'loop:1e7',
  args: ['--work', 'loop:1e7'],
  connections: 4,
  amount: 10,
  durationSec: null,
  timeoutSec: 10
}
