// The open loop's HTTP/1.1 client (run/generate/http1.js) against real sockets: lengths, chunks, a body until
// close, headers split across packets, keep-alive reuse, a refused connection, an abort; and strictness
// against the misbehaving fixture (issue 30): 1xx skipped, the head capped, protocol violations refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { once } from 'node:events'
import pWaitFor from 'p-wait-for'
import { setTimeout as delay } from 'node:timers/promises'
import { MAX_HEAD_BYTES, createHttp1Pool } from '../../../../loadtest/run/generate/http1.js'
import { listenMisbehaving } from '../../../fixtures/servers/misbehaving.js'

// One request through a pool: { status, timing, body } or { error }.
function get (pool) {
  return new Promise((resolve) => {
    const chunks = []
    const out = { status: null, timing: null }
    pool.send({
      onConnect () {},
      onHeaders (status, timing) { Object.assign(out, { status, timing }) },
      onData (chunk) { chunks.push(Buffer.from(chunk)) },
      onComplete () { resolve({ ...out, body: Buffer.concat(chunks).toString() }) },
      onError (error) { resolve({ error: error.message }) }
    })
  })
}

async function listen (server) {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${server.address().port}`
}

test('http1: Content-Length and chunked bodies, kept connections reused, Server-Timing read', async (t) => {
  let connections = 0
  const server = http.createServer((req, res) => {
    if (req.url === '/chunked') {
      res.write('{"a":')
      setTimeout(() => res.end('1}'), 5)
      return
    }
    res.setHeader('Server-Timing', 'work;dur=1.5')
    res.end('{"sum":4950}')
  })
  server.on('connection', () => connections++)
  const origin = await listen(server)
  const plain = createHttp1Pool(origin, '/')
  const chunked = createHttp1Pool(origin, '/chunked')
  t.after(async () => {
    await Promise.all([plain.destroy(), chunked.destroy()])
    server.close()
  })
  for (let i = 0; i < 3; i++) assert.deepEqual(await get(plain), { status: 200, timing: 'work;dur=1.5', body: '{"sum":4950}' })
  for (let i = 0; i < 3; i++) assert.deepEqual(await get(chunked), { status: 200, timing: null, body: '{"a":1}' })
  assert.equal(connections, 2, 'one kept connection per pool, reused')
  const both = await Promise.all([get(plain), get(plain)])
  assert.deepEqual(both.map((r) => r.body), ['{"sum":4950}', '{"sum":4950}'])
  assert.equal(connections, 3, 'a second request at once opens a second connection')
})

test('http1: headers split across packets, a body until close, a refused connection, an abort', async (t) => {
  const server = net.createServer(async (socket) => {
    socket.on('error', () => {})
    await once(socket, 'data')
    socket.write('HTTP/1.1 200 OK\r\nConnec')
    await delay(5)
    socket.write('tion: close\r\n\r\nhello ')
    await delay(5)
    socket.end('world')
  })
  const origin = await listen(server)
  const pool = createHttp1Pool(origin, '/')
  t.after(async () => {
    await pool.destroy()
    server.close()
  })
  assert.deepEqual(await get(pool), { status: 200, timing: null, body: 'hello world' })
  assert.deepEqual(await get(pool), { status: 200, timing: null, body: 'hello world' }, 'a closed connection is not reused')
  const refused = createHttp1Pool('http://127.0.0.1:9', '/')
  assert.match((await get(refused)).error, /ECONNREFUSED/)
  // An abort ends the exchange of the request it names, and only that one: the caller times the request
  // out itself, so the pool calls neither onError nor onComplete, and the connection closes.
  const closed = []
  const hang = net.createServer((socket) => {
    socket.on('error', () => {})
    socket.on('close', () => closed.push(true))
    socket.resume() // read the request, so the client's close is seen
  })
  const hangOrigin = await listen(hang)
  t.after(() => hang.close())
  const slow = createHttp1Pool(hangOrigin, '/')
  const heard = []
  const handler = {
    onConnect (stop) {
      stop({}) // another request's handler: nothing happens
      setTimeout(() => { stop(handler); heard.push('aborted') }, 20)
    },
    onHeaders () { heard.push('headers') },
    onData () { heard.push('data') },
    onComplete () { heard.push('complete') },
    onError (err) { heard.push(`error ${err.message}`) }
  }
  slow.send(handler)
  await pWaitFor(() => closed.length === 1, { timeout: 5000 })
  assert.deepEqual(heard, ['aborted'])
  await slow.destroy()
})

// One request through a fresh pool against the misbehaving fixture in `mode`: the request's outcome and
// what the pool heard (interim statuses, protocol errors, idle-connection faults).
async function getFrom (mode) {
  const server = await listenMisbehaving(mode)
  const heard = { interim: [], protocol: [], idle: [] }
  const pool = createHttp1Pool(server.url, '/', {
    onInterim: (status) => heard.interim.push(status),
    onProtocolError: (err) => heard.protocol.push(err.message),
    onConnectionError: (err) => heard.idle.push(err.message)
  })
  try {
    const r = await get(pool)
    await delay(20) // anything that follows the answer on its connection
    return { r, heard }
  } finally {
    await pool.destroy()
    await server.close()
  }
}

test('http1: interim 100 and 103 answers are skipped and counted, the final 200 is the answer (item 1)', { timeout: 10000 }, async () => {
  const { r, heard } = await getFrom('interim')
  assert.deepEqual(r, { status: 200, timing: null, body: '{"sum":4950}' })
  assert.deepEqual(heard, { interim: [100, 103], protocol: [], idle: [] })
})

test('http1: a head that never ends fails at 16 KiB as a protocol error, its connection closed (item 2)', { timeout: 10000 }, async () => {
  const before = process.memoryUsage().rss
  const { r, heard } = await getFrom('endless-head')
  assert.equal(r.error, `protocol error: a response head over ${MAX_HEAD_BYTES} bytes`)
  assert.equal(MAX_HEAD_BYTES, 16 * 1024)
  assert.deepEqual(heard.protocol, [r.error])
  assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'the head was not gathered without bound')
})

test('http1: two Content-Lengths, a negative one, a 204 with a body, a second response: protocol errors (item 4)', { timeout: 20000 }, async () => {
  const expected = {
    'two-lengths': 'two different Content-Length values (2 and 7)',
    'negative-length': 'bad Content-Length "-5"',
    'body-204': '12 bytes after a complete 204 response (a body on a 204 response)',
    'two-responses': '83 bytes after a complete 200 response (a second response)',
    'short-body': 'the connection closed before the response ended',
    'bad-chunk': 'bad chunk size "zz"',
    garbage: 'bad status line "this is not HTTP"'
  }
  for (const [mode, message] of Object.entries(expected)) {
    const { r, heard } = await getFrom(mode)
    const protocol = mode !== 'short-body'
    assert.equal(r.error, protocol ? `protocol error: ${message}` : message, mode)
    assert.deepEqual(heard.protocol, protocol ? [r.error] : [], `${mode}: one protocol error, heard by the pool`)
    assert.deepEqual(heard.idle, [], `${mode}: nothing more on the closed connection`)
  }
})

test('http1: a response nobody asked for on an idle kept connection closes it as a protocol error (item 4)', { timeout: 10000 }, async (t) => {
  const server = net.createServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), 30)
    })
  })
  const origin = await listen(server)
  const heard = { protocol: [], idle: [] }
  const pool = createHttp1Pool(origin, '/', {
    onProtocolError: (err) => heard.protocol.push(err.message),
    onConnectionError: (err) => heard.idle.push(err.message)
  })
  t.after(async () => {
    await pool.destroy()
    server.close()
  })
  assert.deepEqual(await get(pool), { status: 200, timing: null, body: 'ok' })
  await delay(200)
  const message = 'protocol error: 40 bytes on an idle connection (a response nobody asked for)'
  assert.deepEqual(heard, { protocol: [message], idle: [message] })
})
