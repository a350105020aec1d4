// A service of the user's own by --url with a request mix, through both loops: the service sees only the
// mix's requests (methods, paths as given, bodies as given), each class is counted apart, and bodies
// that change on every answer are not mismatches (the mix compares bodies only when asked). The capacity
// sweep's URL carries user:password, which reaches no report file and not the terminal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { labReport, readReport, runLab, tempDir } from '../helpers/lab.js'
import { TWO_CLASSES, TWO_CLASSES_LOOSE, startOwnService, tally } from '../helpers/own-service.js'
import { firstTargetOutcome } from '../helpers/capacity-rule.js'

const CHEAP = 'GET /api/items?id=7 '
const HEAVY = 'POST /api/render {"rows":500}'
// A service that does not announce the lab's endpoints (no loadlab-strategy header) sees no request of
// the lab's own: not even GET /health.

function checkSeen (seen, { plan }) {
  const t = tally(seen.requests)
  assert.deepEqual(Object.keys(t).sort(), [CHEAP, HEAVY].sort(), JSON.stringify(t))
  assert.equal(seen.dropped, 0)
  // the plan, the readiness answer and the recovery request (both the mix's first class), nothing more
  assert.equal(t[CHEAP] + t[HEAVY], plan + 2)
  assert.ok(seen.requests.every((r) => !r.url.endsWith('/')), 'no slash added to a path')
}

function checkClasses (r, plan) {
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.requests.mismatches, 0, r.examples?.mismatchBody ?? '')
  assert.deepEqual(r.classes.map((c) => [c.name, c.sloMs]), [['cheap', 50], ['heavy', 300]])
  const sent = r.classes.reduce((a, c) => a + c.requests.sent, 0)
  const ok = r.classes.reduce((a, c) => a + c.requests.ok, 0)
  assert.equal(sent, plan)
  assert.equal(ok, r.requests.ok)
  for (const c of r.classes) {
    assert.ok(c.requests.sent > 0, c.name)
    assert.equal(c.latency.count, c.requests.completed + c.requests.timeouts)
    assert.ok(c.latency.p99 >= c.latency.p50, c.name)
  }
  assert.match(r.key, /^127\.0\.0\.1:\d+@mix:two-classes:[0-9a-f]{12}/)
  assert.ok(r.notes.some((n) => /skipped: the \/health probe, \/__lab\/stats and its reset/.test(n)), r.notes.join('\n'))
}

test('--url with a mix, open loop: only the mix\'s requests, counted per class, no body mismatch', async () => {
  const service = await startOwnService()
  const { dir, cleanup } = await tempDir()
  try {
    const { json } = await labReport(['--url', `${service.url}/api`, '--mix', TWO_CLASSES, '--rate', '100', '--amount', '150',
      '--seed', '3', '--warmup', '0', '--out', dir], { html: false })
    const [r] = json.results
    checkClasses(r, 150)
    assert.equal(json.method.mix.name, 'two-classes')
    checkSeen(await service.seen(), { plan: 150 })
  } finally {
    await service.stop()
    await cleanup()
  }
})

test('--url with a mix, closed loop through autocannon\'s requests: the same', async () => {
  const service = await startOwnService()
  const { dir, cleanup } = await tempDir()
  try {
    const { json } = await labReport(['--url', `${service.url}/api`, '--mix', TWO_CLASSES, '--connections', '4', '--amount', '100',
      '--warmup', '0', '--out', dir], { html: false })
    const [r] = json.results
    checkClasses(r, 100)
    // the weighted cycle: 80:20 is four cheap to one heavy, exactly, over whole cycles of each connection
    assert.deepEqual(r.classes.map((c) => c.requests.sent), [80, 20])
    checkSeen(await service.seen(), { plan: 100 })
  } finally {
    await service.stop()
    await cleanup()
  }
})

// The one --url capacity sweep with a mix of the suite (hardening-mix.test.js reads the service's log of it here).
test('capacity of a service by --url with a two-class mix, user:password in its URL: a capacity, percentiles per class, a rate decided; the service\'s own log holds only the mix\'s requests, each with a User-Agent and no Connection: close; no credentials in any report file', { timeout: 480000 }, async () => {
  // 1 ms of CPU a POST: a --quick sweep's short steps (2.5 s at most) reach each class's sample at the
  // rates a busy machine keeps. The lab in its own process, as a user runs it.
  const service = await startOwnService({ env: { OWN_SERVICE_SPIN_MS: '1' } })
  const { dir, cleanup } = await tempDir()
  try {
    const url = `${service.url.replace('http://', 'http://user:s3cret-pw@')}/api`
    const run = await runLab(['--url', url, '--mix', TWO_CLASSES_LOOSE, '--experiment', 'capacity', '--quick', '--slo', '800', '--out', dir])
    assert.equal(run.exitCode, 0, run.stderr)
    const files = await readdir(dir)
    assert.deepEqual(files.map((f) => f.split('.').at(-1)).sort(), ['html', 'json', 'md'])
    for (const f of files) {
      const text = await readFile(join(dir, f), 'utf8')
      assert.doesNotMatch(text, /s3cret-pw/, `${f} holds no password`)
      assert.doesNotMatch(text, /user:/, `${f} holds no user information`)
    }
    assert.doesNotMatch(run.stderr, /s3cret-pw/, 'nor the terminal')
    const { json, md } = await readReport(dir)
    const [r] = json.results
    assert.equal(r.status, 'ok', JSON.stringify(r.failure))
    // what the rule guarantees however busy the machine: a capacity where the steps showed each class's p99
    // (--quick: 230 requests a class at 90 %), or none with the evidence for it (helpers/capacity-rule.js)
    const c = r.capacity.capacity
    const outcome = firstTargetOutcome(r)
    assert.ok(r.notes.some((n) => /a 2 s closed-loop probe at 8 connections answered [\d.]+ req\/s/.test(n)), r.notes.join('\n'))
    // the result shows the step at capacity, class by class; with none, no step and no classes
    if (outcome === 'capacity') {
      assert.deepEqual(r.classes.map((c) => [c.name, c.sloMs]), [['cheap', 400], ['heavy', 800]])
      for (const c of r.classes) assert.ok(c.latency.p99 > 0 && c.latency.p50 > 0, c.name)
      assert.match(md, /## Per class\n[^]*?\| cheap \| [\d.]+ \|/)
    } else assert.equal(r.classes, undefined, outcome)
    assert.ok(r.capacity.steps.every((s) => s.requests.mismatches === 0), 'bodies that differ every time are no mismatch')
    assert.ok(r.notes.some((n) => /--url: bodies not compared for cheap, heavy/.test(n)), r.notes.join('\n'))
    assert.match(json.method.command, /http:\/\/\*\*\*@127\.0\.0\.1/)
    // each step was judged class by class: the class that decided it is named
    assert.ok(r.capacity.steps.every((s) => s.cls === null || ['cheap', 'heavy'].includes(s.cls)))
    assert.ok(r.capacity.steps.some((s) => s.cls !== null))
    const d = json.decision
    if (c.rps > 0) {
      assert.equal(d.recommends, 'rate')
      assert.equal(d.key, r.key)
      if (!d.refused) assert.equal(d.planRps, Math.round(c.rps * 0.8 * 10) / 10)
      assert.match(md, /\*\*Limited by:\*\*/)
    }
    const seen = await service.seen()
    const t = tally(seen.requests)
    assert.deepEqual(Object.keys(t).sort(), [CHEAP, HEAVY].sort(), JSON.stringify(t))
    assert.ok(r.notes.some((n) => /does not announce the lab's endpoints \(no loadlab-strategy header\)/.test(n)), r.notes.join('\n'))
    assert.deepEqual(Object.keys(seen.counts).sort(), [CHEAP, HEAVY].sort(), JSON.stringify(seen.counts))
    assert.equal(seen.noUserAgent, 0, 'a User-Agent on every request')
    assert.equal(seen.connectionClose, 0, 'no Connection: close')
    assert.ok(seen.requests.every((q) => q.ua.startsWith('loadlab')), 'the lab\'s User-Agents')
  } finally {
    await service.stop()
    await cleanup()
  }
})
