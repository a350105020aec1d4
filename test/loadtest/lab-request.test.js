// The command line a load tester types: autocannon's short flags on a lab server, and `--url` with
// `-m -H -b` against a service of this test's own that logs every request it receives. The method, the
// headers and the body arrive as given in the closed loop and the open loop. (`-m -H -b` is a mix of one
// class: a mix's capacity sweep sends only its requests, mix-url.test.js.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { readReport, runLab, tempDir } from '../helpers/lab.js'

const BODY = '{"n":1}'
const LOAD = ['-m', 'POST', '-H', 'content-type: application/json', '-H', 'x-lab-test: one', '-b', BODY]
// The request as the service sees it: method, path as given, the headers given, the body and its length.
const SENT = `POST /api/orders?id=7 application/json one ${BODY} ${Buffer.byteLength(BODY)}`

// A plain node:http service: answers 200 to anything, and counts what it received as
// "METHOD URL content-type x-lab-test BODY content-length".
async function startLoggingService () {
  const seen = new Map()
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const h = req.headers
      const key = `${req.method} ${req.url} ${h['content-type']} ${h['x-lab-test']} ${Buffer.concat(chunks)} ${h['content-length']}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${server.address().port}/api/orders?id=7`,
    seen: () => Object.fromEntries(seen),
    stop: () => new Promise((resolve) => server.close(resolve))
  }
}

// Every request the service received is the one given: the lab asks nothing else of a service that does
// not announce the lab's endpoints (no GET /health).
function onlyThatRequest (seen, plan = null) {
  assert.deepEqual(Object.keys(seen), [SENT], JSON.stringify(seen))
  // the plan, the readiness request and the recovery request, all three the one request
  if (plan !== null) assert.equal(seen[SENT], plan + 2, JSON.stringify(seen))
  else assert.ok(seen[SENT] > 0, JSON.stringify(seen))
}

async function urlRun (args, { plan = null } = {}) {
  const service = await startLoggingService()
  const out = await tempDir()
  try {
    const r = await runLab(['--url', service.url, ...LOAD, '--warmup', '0', ...args, '--out', out.dir])
    assert.equal(r.exitCode, 0, r.stderr)
    onlyThatRequest(service.seen(), plan)
    return (await readReport(out.dir)).json
  } finally {
    await service.stop()
    await out.cleanup()
  }
}

test('npm run lab -- --server simple -c 2 -a 20: a real run, autocannon\'s letters, -j the JSON on stdout', { timeout: 90000 }, async () => {
  const out = await tempDir()
  try {
    const r = await runLab(['--server', 'simple', '-c', '2', '-a', '20', '--work', 'loop:1e4', '-j', '--out', out.dir])
    assert.equal(r.exitCode, 0, r.stderr)
    const { json } = await readReport(out.dir)
    assert.deepEqual(JSON.parse(r.stdout), json, '-j: the report JSON on stdout')
    assert.equal(json.method.connections, 2)
    assert.equal(json.method.amount, 20)
    const [res] = json.results
    assert.equal(res.status, 'ok', JSON.stringify(res.failure))
    assert.equal(res.requests.sent, 20)
    assert.equal(res.requests.ok, 20)
  } finally {
    await out.cleanup()
  }
})

test('--url -m POST -H … -b …, closed loop: that request, and only it, reaches the service', { timeout: 90000 }, async () => {
  const json = await urlRun(['-c', '2', '-a', '20'], { plan: 20 })
  const [r] = json.results
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.requests.ok, 20)
  assert.equal(json.method.mix.classes.length, 1)
})

test('--url -m -H -b, open loop (-R): the same request, on the schedule', { timeout: 90000 }, async () => {
  const json = await urlRun(['-R', '40', '-a', '40'], { plan: 40 })
  const [r] = json.results
  assert.equal(r.status, 'ok', JSON.stringify(r.failure))
  assert.equal(r.requests.sent, 40)
  assert.equal(json.method.rate, 40)
})
