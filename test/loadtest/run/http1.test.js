// The open loop's HTTP/1.1 client (run/http1.js) against real sockets: lengths, chunks, a body until
// close, headers split across packets, keep-alive reuse, a refused connection, an abort.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { createHttp1Pool } from '../../../loadtest/run/http1.js'

// One request through a pool: { status, timing, body } or { error }; `abort` is called with the abort.
function get (pool, { abort } = {}) {
  return new Promise((resolve) => {
    const chunks = []
    const out = { status: null, timing: null }
    pool.dispatch({
      onConnect (stop) { abort?.(stop) },
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
  const hang = net.createServer((socket) => socket.on('error', () => {}))
  const hangOrigin = await listen(hang)
  t.after(() => hang.close())
  const slow = createHttp1Pool(hangOrigin, '/')
  const r = await get(slow, { abort: (stop) => setTimeout(() => stop(new Error('timed out')), 20) })
  assert.deepEqual(r, { error: 'timed out' })
  await slow.destroy()
})
