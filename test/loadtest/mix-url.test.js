// A service of the user's own by --url with a request mix, through both loops: the service sees only the
// mix's requests (methods, paths as given, bodies as given), each class is counted apart, and bodies
// that change on every answer are not mismatches (the mix compares bodies only when asked).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { labReport, tempDir } from '../helpers/lab.js'
import { TWO_CLASSES, startOwnService, tally } from '../helpers/own-service.js'

const CHEAP = 'GET /api/items?id=7 '
const HEAVY = 'POST /api/render {"rows":500}'
// The one request the lab sends of its own: does the service announce the lab's endpoints?
const ASK = 'GET /health '

function checkSeen (seen, { plan }) {
  const t = tally(seen.requests)
  assert.deepEqual(Object.keys(t).sort(), [ASK, CHEAP, HEAVY].sort(), JSON.stringify(t))
  assert.equal(t[ASK], 1)
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
      '--seed', '3', '--warmup', '0', '--out', dir])
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
      '--warmup', '0', '--out', dir])
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
