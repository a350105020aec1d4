// Both load loops, through the lab, against a server that breaks HTTP/1.1 one fixed way per mode
// (test/fixtures/servers/misbehaving.js): run/generate/http1.js, the open loop's client, and
// run/generate/autocannon-strict.js, the closed loop's parser rules. Interim 1xx answers are skipped and counted;
// every other fault is an error, a protocol error where the response broke the protocol, never a verified 2xx
// answer (a round where none was answered fails, its counts kept); a head that never ends does not grow the lab.
// Real sockets, the lab's own run (in this process, and as its CLI where its memory is the point).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { MODES, listenMisbehaving } from '../../../fixtures/servers/misbehaving.js'
import { labReport, startLab, tempDir } from '../../../helpers/lab.js'
import { MAX_HEAD_BYTES } from '../../../../loadtest/run/generate/http1.js'

const N = 20
// --timeout 2: a client that waits on a broken answer gives up soon (none should wait at all).
const LOOPS = {
  open: ['--rate', '50', '--amount', String(N), '--timeout', '2'],
  closed: ['--connections', '2', '--amount', String(N), '--timeout', '2']
}
// The first error each mode's requests end with (both loops say it the same way; the closed loop names
// http-parser-js's findings in http1.js's words).
const ERRORS = {
  'endless-head': `protocol error: a response head over ${MAX_HEAD_BYTES} bytes`,
  'two-lengths': 'protocol error: two different Content-Length values',
  'negative-length': 'protocol error: bad Content-Length "-5"',
  'body-204': 'protocol error: 12 bytes after a complete 204 response',
  'two-responses': 'protocol error: 83 bytes after a complete 200 response',
  'short-body': 'the connection closed before the response ended',
  'bad-chunk': 'protocol error: bad chunk size "zz"',
  garbage: 'protocol error: bad status line'
}

// One lab run of `loop` against the fixture in `mode`: its one result.
async function runAgainst (mode, loop, t) {
  const server = await listenMisbehaving(mode)
  const out = await tempDir()
  t.after(() => Promise.all([server.close(), out.cleanup()]))
  const { json } = await labReport(['--url', `${server.url}/`, ...LOOPS[loop], '--warmup', '0', '--out', out.dir], { html: false })
  return json.results[0]
}

test('both loops skip 100 and 103 and count each request once, at its 200 (item 1)', async (t) => {
  assert.deepEqual(Object.keys(MODES).sort(), ['interim', ...Object.keys(ERRORS)].sort(), 'every mode is checked')
  for (const loop of Object.keys(LOOPS)) {
    const r = await runAgainst('interim', loop, t)
    assert.equal(r.status, 'ok', `${loop}: ${JSON.stringify(r.failure)}`)
    const { sent, completed, ok, non2xx, errors, protocolErrors, interim, mismatches } = r.requests
    assert.deepEqual({ sent, completed, ok, non2xx, errors, protocolErrors, interim, mismatches },
      { sent: N, completed: N, ok: N, non2xx: 0, errors: 0, protocolErrors: 0, interim: 2 * N, mismatches: 0 }, loop)
    assert.deepEqual(r.statusCodes, { 200: N }, `${loop}: no 1xx taken as an answer`)
    assert.ok(r.notes.includes(`${2 * N} interim answers (1xx) skipped: each request counted once, at its final answer`), loop)
  }
})

test('both loops: every broken response is an error, a protocol error where it broke HTTP/1.1, and the result names the count (items 4, 5)', { timeout: 240000 }, async (t) => {
  for (const [mode, error] of Object.entries(ERRORS)) {
    const protocol = mode !== 'short-body' // a connection that closes mid-body is a connection error
    for (const loop of Object.keys(LOOPS)) {
      const r = await runAgainst(mode, loop, t)
      const what = `${mode}, ${loop} loop`
      // no request answered at all: the round fails, and says so with its counts (they are kept below)
      assert.equal(r.status, 'failed', `${what}: ${JSON.stringify(r.failure)}`)
      assert.match(r.failure.reason, new RegExp(`^no request answered 2xx \\(no answer: ${N} errors, 0 timeouts\\): `), what)
      const { sent, completed, ok, errors, protocolErrors, timeouts } = r.requests
      assert.deepEqual({ sent, completed, ok, errors, protocolErrors, timeouts },
        { sent: N, completed: 0, ok: 0, errors: N, protocolErrors: protocol ? N : 0, timeouts: 0 }, what)
      assert.ok(r.examples.error.startsWith(error), `${what}: ${r.examples.error}`)
      assert.equal(r.trusted, false, what)
      if (protocol) assert.ok(r.untrusted.includes(`${N} protocol errors (responses that broke HTTP/1.1, each connection closed)`), `${what}: ${r.untrusted}`)
    }
  }
})

// The lab's CLI against `url`, its peak RSS (VmHWM, read until it exits) in MB; it exits `code` (1 where no
// request was answered: the result failed).
async function peakRssMb (args, code) {
  const lab = startLab(args)
  let peak = 0
  while (lab.exitCode === null) {
    try {
      peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${lab.pid}/status`, 'latin1'))[1]) / 1024
    } catch {} // gone between the check and the read
    await delay(20)
  }
  const r = await lab
  assert.equal(r.exitCode, code, r.stderr)
  return peak
}

test('a head that never ends does not grow the lab: its peak RSS no higher than against a good server (item 2)', { timeout: 120000 }, async (t) => {
  const endless = await listenMisbehaving('endless-head')
  const good = await listenMisbehaving('interim')
  const outs = await Promise.all([0, 1, 2, 3].map(() => tempDir()))
  t.after(() => Promise.all([endless.close(), good.close(), ...outs.map((o) => o.cleanup())]))
  const round = ['--duration', '2', '--warmup', '0']
  const loads = [['--rate', '50'], ['--connections', '2']]
  // The four lab processes side by side (each its own process, its own peak), the good and the endless
  // one of a loop under the same conditions.
  const peaks = await Promise.all(loads.flatMap((load, i) => [good, endless].map((server, j) =>
    peakRssMb(['--url', `${server.url}/`, ...load, ...round, '--out', outs[2 * i + j].dir], server === good ? 0 : 1))))
  for (const [i, load] of loads.entries()) {
    const [base, peak] = peaks.slice(2 * i, 2 * i + 2)
    t.diagnostic(`${load.join(' ')}: peak RSS ${peak.toFixed(0)} MB against the endless head, ${base.toFixed(0)} MB against a good server`)
    assert.ok(peak < base + 48, `${load.join(' ')}: peak RSS ${peak.toFixed(0)} MB against the endless head, ${base.toFixed(0)} MB against a good server`)
  }
})
