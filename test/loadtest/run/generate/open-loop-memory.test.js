// The open loop's memory is bounded by design: at a rate far above what the server answers, and against
// a server that accepts connections and never answers, a round ends on time, counts what it dropped
// (past its bound of waiting requests) and what timed out, and the generator's RSS (VmHWM from /proc)
// stays under RSS_BOUND_MB. The generator runs in a child process, so its memory is its own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { setTimeout as delay } from 'node:timers/promises'
import { ROOT } from '../../../helpers/lab.js'
import { LAST_CHANCE } from '../../../../loadtest/run/generate/open-loop.js'

// The bound the lab states for its own RSS (docs/generator.md), at any rate, duration and server.
const RSS_BOUND_MB = 300
const CHILD = join(ROOT, 'test', 'helpers', 'open-loop-child.js')
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{"sum":4950}'

// A raw server: `slow` answers each request 20 ms after it arrives (at most 50 a second a connection),
// `silent` accepts connections and never answers. Resolves { url, close() }.
function listen (mode) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let pending = ''
    socket.on('data', (chunk) => {
      if (mode === 'silent') return
      pending += chunk.latin1Slice()
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4)
        setTimeout(() => socket.writable && socket.write(OK), 20)
      }
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`,
    close () {
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(resolve))
    }
  })))
}

// One round in a child: its result and its peak RSS (MB), read from /proc until it exits.
async function roundInChild (opts) {
  const child = execa(process.execPath, [CHILD, JSON.stringify(opts)], { cwd: ROOT, reject: false })
  let peak = 0
  while (child.exitCode === null) {
    try {
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'latin1'))[1]) / 1024)
    } catch {} // gone between the check and the read
    await delay(20)
  }
  const r = await child
  assert.equal(r.exitCode, 0, r.stderr)
  return { ...JSON.parse(r.stdout), peakMb: peak }
}

// 30,000 req/s for 2 s, 64 connections, 1 s timeout, at most 20,000 waiting: the slow server answers
// at most 3,200 req/s, the silent one none.
const ROUND = { rate: 30000, durationSec: 2, timeoutSec: 1, connections: 64, maxWaiting: 20000, warmupMs: 0 }

for (const mode of ['slow', 'silent']) {
  test(`open loop against a ${mode} server: ends on time, counts what it dropped, RSS under ${RSS_BOUND_MB} MB`, { timeout: 60000 }, async (t) => {
    const server = await listen(mode)
    t.after(() => server.close())
    const r = await roundInChild({ url: server.url, ...ROUND })
    t.diagnostic(`${mode}: ${JSON.stringify(r)}`)
    assert.equal(r.sent, ROUND.rate * ROUND.durationSec, 'every due request is counted as sent')
    assert.equal(r.completed + r.timeouts + r.dropped + r.errors, r.sent, 'each ends once: answered, timed out, dropped or failed')
    assert.ok(r.dropped > 0, `past ${ROUND.maxWaiting} waiting requests the excess is dropped (${r.dropped})`)
    assert.match(r.droppedReason, /20000 requests already waited for one of 64 connections/)
    assert.ok(r.peakWaiting <= ROUND.maxWaiting, `the waiting ring stays within its bound (${r.peakWaiting})`)
    assert.ok(r.written <= r.completed + r.timeouts + r.errors, 'a written request ends once')
    if (mode === 'silent') {
      assert.equal(r.completed, 0)
      assert.ok(r.timeouts > 0)
      // a connection's request times out and the waiter written in its place has at least LAST_CHANCE of
      // its timeout left: at most one new connection a slot per that time, not one per waiting request
      const perSlot = 1 + Math.ceil((ROUND.durationSec + ROUND.timeoutSec) / (ROUND.timeoutSec * LAST_CHANCE))
      assert.ok(r.written <= ROUND.connections * perSlot, `waiters time out without a socket: ${r.written} written`)
    } else assert.ok(r.completed > 0)
    // due + timeout for the last request, with room for a busy machine, never the backlog's whole drain
    assert.ok(r.elapsedMs < (ROUND.durationSec + ROUND.timeoutSec) * 1000 + 2500, `ended on time (${Math.round(r.elapsedMs)} ms)`)
    assert.ok(r.peakMb < RSS_BOUND_MB, `peak RSS ${r.peakMb.toFixed(0)} MB`)
  })
}
