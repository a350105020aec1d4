// The shedding variants as real servers: the queued pool's --deadline and --max-queue auto, and
// @fastify/under-pressure on simple (--shed-loop-delay); every bad flag exits 2 with one line.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { getJson, runServer, startServer } from '../helpers/server.js'
import { QUEUE_SHEDDING, resolveQueue } from '../../servers/lib/shedding.js'

// `n` GETs at once over their own connections: [{ status, retryAfter, code }].
async function burst (url, n) {
  const agent = new Agent({ connections: n })
  try {
    return await Promise.all(Array.from({ length: n }, async () => {
      const res = await request(`${url}/`, { dispatcher: agent })
      const body = await res.body.text()
      let code = null
      let message = null
      try {
        ({ code = null, message = null } = JSON.parse(body))
      } catch {}
      return { status: res.statusCode, retryAfter: res.headers['retry-after'] ?? null, code, message }
    }))
  } finally {
    await agent.close()
  }
}

const refusals = [
  ['queued-threads', ['--deadline', '0'], /^--deadline: expected a number of ms/],
  ['queued-threads', ['--deadline', 'soon'], /^--deadline: expected a number of ms/],
  ['queued-threads', ['--max-queue', 'lots'], /^--max-queue: expected an integer >= 0/],
  ['queued-threads', ['--max-queue', 'auto'], /^--max-queue auto: needs --slo MS/],
  ['queued-threads', ['--deadline', 'auto', '--slo', '5', '--service-ms', '20'],
    /^--deadline auto: the service time 20 ms is not below --slo 5 ms/],
  ['queued-threads', ['--slo', '100'], /^--slo: only with --max-queue auto or --deadline auto/],
  ['simple', ['--shed-loop-delay', 'x'], /^--shed-loop-delay: expected a number of ms/],
  ['cluster', ['--shed-loop-delay', '-'], /^--shed-loop-delay: /]
]
for (const [name, args, message] of refusals) {
  test(`${name} ${args.join(' ')}: exit 2 with one line`, async () => {
    const { code, stderr } = await runServer(name, ['--port', '0', ...args])
    assert.equal(code, 2)
    const lines = stderr.trim().split('\n')
    assert.equal(lines.length, 1, stderr)
    assert.match(lines[0], message)
  })
}

test('a duration in ms takes the 1e3 form, as the integer flags do', () => {
  assert.equal(QUEUE_SHEDDING.deadline.parse('1e3'), 1000)
  assert.equal(QUEUE_SHEDDING.maxQueue.parse('1e3'), 1000)
  assert.equal(QUEUE_SHEDDING.deadline.parse('2.5'), 2.5)
  assert.throws(() => QUEUE_SHEDDING.deadline.parse('1e9'), /from 0 \(exclusive\) to 3600000/)
})

test("Little's law and the deadline from a target and a service time", () => {
  const q = resolveQueue({ options: { maxQueue: 'auto', deadline: 'auto', slo: 100 }, threads: 2, serviceMs: 20 })
  assert.equal(q.maxQueue, 8) // 2 × (100 − 20) / 20
  assert.equal(q.deadlineMs, 60) // 100 − 2 × 20
  assert.match(q.lines[0], /max-queue auto: 8 = floor\(2 threads × \(100 − 20\) \/ 20\)/)
  assert.match(q.lines[1], /deadline auto: 60 ms/)
  // a service time under 1 ms keeps two significant digits: never "/ 0" in the formula
  const tiny = resolveQueue({ options: { maxQueue: 'auto', slo: 1 }, threads: 2, serviceMs: 0.04 })
  assert.equal(tiny.maxQueue, 48) // 2 × (1 − 0.04) / 0.04
  assert.match(tiny.lines[0], /max-queue auto: 48 = floor\(2 threads × \(1 − 0\.04\) \/ 0\.04\)/)
  const fixed = resolveQueue({ options: { maxQueue: 3 }, threads: 2, serviceMs: null })
  assert.deepEqual(fixed, { maxQueue: 3, deadlineMs: undefined, lines: [] })
})

test('queued-threads --deadline: a request that waited past it answers 503 with Retry-After, unrun', async (t) => {
  // One thread, 1 s a request, a 300 ms deadline: of 8 at once the first runs; one that arrives while it runs
  // waits, and expires unless it came within 300 ms of its end. How many arrive how late is the machine's, so
  // the test reads the rule: each refusal names a wait past the deadline, and the refused never ran.
  const server = await startServer('queued-threads', ['--threads', '1', '--work', 'sleep-sync:1000', '--deadline', '300'])
  t.after(() => server.stop())
  const answers = await burst(server.url, 8)
  const ok = answers.filter((a) => a.status === 200).length
  const shed = answers.filter((a) => a.status === 503)
  assert.equal(ok + shed.length, 8, JSON.stringify(answers))
  assert.ok(ok >= 1 && shed.length >= 1, `ran ${ok}, refused ${shed.length}`)
  for (const a of shed) {
    assert.equal(a.retryAfter, '1')
    assert.equal(a.code, 'ERR_DEADLINE')
    const waited = Number(/^waited ([\d.]+) ms for a thread, past --deadline 300 ms/.exec(a.message)?.[1])
    assert.ok(waited >= 300, a.message) // past it, written to a tenth of a ms
  }
  const stats = await getJson(`${server.url}/__lab/stats`)
  assert.equal(stats.body.variant, 'deadline')
  assert.equal(stats.body.gauges.expired, shed.length)
  assert.equal(stats.body.gauges.completed, ok) // the shed ones never ran
})

test('queued-threads --max-queue auto: the bound printed with its figures, and held', async (t) => {
  // The bound comes from --service-ms (2 = floor(1 × (100 − 30) / 30)); the work takes 1 s, so of 8 at once
  // the one running and the two waiting hold the thread for seconds. The queue is read while they do: it
  // never holds more than the bound, and a refusal is a full queue's.
  const args = ['--threads', '1', '--work', 'sleep-sync:1000', '--max-queue', 'auto', '--slo', '100', '--service-ms', '30']
  const server = await startServer('queued-threads', args)
  t.after(() => server.stop())
  assert.match(server.stderr(), /max-queue auto: 2 = floor\(1 threads × \(100 − 30\) \/ 30\) \(Little's law; --slo 100 ms, service time 30 ms/)
  const pending = burst(server.url, 8)
  const burstOf = { over: false }
  pending.finally(() => { burstOf.over = true }).catch(() => {})
  const lengths = []
  while (!burstOf.over) {
    lengths.push((await getJson(`${server.url}/__lab/stats`)).body.gauges.queueLength)
    await delay(50)
  }
  const answers = await pending
  const ok = answers.filter((a) => a.status === 200).length
  const full = answers.filter((a) => a.code === 'ERR_QUEUE_FULL')
  assert.equal(ok + full.length, 8, JSON.stringify(answers))
  assert.ok(lengths.length > 0 && Math.max(...lengths) <= 2, `queue lengths read: ${lengths.join(', ')}`)
  assert.ok(full.length >= 1, `${full.length} refused`)
  for (const a of full) assert.match(a.message, /^queue full \(--max-queue 2\), retry later$/)
  const stats = await getJson(`${server.url}/__lab/stats`)
  assert.equal(stats.body.gauges.rejected, full.length)
  assert.equal(stats.body.gauges.completed, ok)
})

test('simple --shed-loop-delay: under-pressure answers 503 once a sample saw the loop blocked; /health passes', async (t) => {
  const server = await startServer('simple', ['--work', 'sleep-sync:300', '--shed-loop-delay', '20'])
  t.after(() => server.stop())
  // The plugin samples each second the mean of a 10 ms timer's delays less 10 ms. A burst blocks the loop for
  // 10 × 300 ms: a window ending in it holds at most 1 s idle (100 ticks) and the block (10 at most), a mean
  // of at least 4,000 / 110 − 10 = 26 ms. Blocks of 60 ms needed the loop blocked 80 % of a window, which a
  // busy machine's gaps between bursts denied. A burst after the flag is up is refused (at most 5 bursts).
  const answers = []
  for (let i = 0; i < 5 && !answers.some((a) => a.status === 503); i++) answers.push(...(await burst(server.url, 10)))
  assert.ok(answers.some((a) => a.status === 200))
  const shed = answers.filter((a) => a.status === 503)
  assert.ok(shed.length > 0, `some shed: ${JSON.stringify(answers)}`)
  for (const a of shed) {
    assert.equal(a.retryAfter, '1')
    assert.equal(a.code, 'FST_UNDER_PRESSURE')
    // (a sample with no tick of its timer, the loop blocked throughout, is the plugin's Infinity)
    assert.match(a.message,
      /^under pressure: eventLoopDelay (\d+(\.\d+)? ms|over the whole 1 s sample \(the loop never ran\)) > --shed-loop-delay 20 ms$/)
  }
  const health = await getJson(`${server.url}/health`)
  assert.equal(health.status, 200)
  assert.equal(health.body.variant, 'under-pressure')
})
