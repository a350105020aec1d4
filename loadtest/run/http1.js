// The open loop's own HTTP/1.1 client: GET on kept connections, one request at a time per connection
// (no pipelining), the request's bytes built once per round, the response parsed in place (status line,
// the headers the lab reads, a body by Content-Length, chunked, or until close) and its body handed on
// chunk by chunk. It does what the open loop needs and no more: the loop itself caps the connections and
// queues what finds them all busy, so a dispatch always gets a connection (an idle one, or a new one).
import net from 'node:net'
import tls from 'node:tls'
import { performance } from 'node:perf_hooks'

const CRLF2 = Buffer.from('\r\n\r\n')
const NO_BODY = new Set([204, 304])
const READ_BUFFER_BYTES = 64 * 1024

// A pool of kept connections to `origin` (http: or https:). dispatch(handler) sends the round's request;
// the handler hears onConnect(abort), onHeaders(status, serverTiming), onData(chunk), onComplete() or
// onError(err). preopen(n) opens n idle connections ahead; resolves, once each connected or failed, to
// the performance.now() at which each connected (null: it failed).
// destroy() closes every connection. onOpen() hears each connection opened.
export function createHttp1Pool (origin, path, { userAgent = 'loadlab-open-loop', onConnectionError, onOpen } = {}) {
  const url = new URL(origin)
  const secure = url.protocol === 'https:'
  const port = Number(url.port) || (secure ? 443 : 80)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: ${userAgent}\r\n\r\n`, 'latin1')
  const idle = []
  const all = new Set()
  // One read buffer for every plain connection of the pool (net's `onread`): a read allocates nothing,
  // and each chunk is consumed (parsed, compared, or copied where kept) before the next read reuses it.
  const readBuffer = secure ? null : Buffer.allocUnsafe(READ_BUFFER_BYTES)
  const open = () => {
    let conn = null
    const onread = readBuffer && { buffer: readBuffer, callback: (n, buf) => conn.onData(buf.subarray(0, n)) }
    const socket = secure ? tls.connect({ host, port, servername: host }) : net.connect({ host, port, onread })
    socket.setNoDelay(true)
    conn = new Connection(socket, { idle, all, onConnectionError })
    all.add(conn)
    onOpen?.()
    return conn
  }
  return {
    dispatch (handler) {
      const conn = idle.pop() ?? open()
      conn.send(request, handler)
    },
    preopen (n) {
      const waits = []
      for (let i = 0; i < n; i++) {
        const conn = open()
        idle.push(conn)
        waits.push(new Promise((resolve) => {
          conn.socket.once(secure ? 'secureConnect' : 'connect', () => resolve(performance.now()))
          conn.socket.once('close', () => resolve(null))
        }))
      }
      return Promise.all(waits)
    },
    async destroy () {
      for (const conn of all) conn.socket.destroy()
      all.clear()
      idle.length = 0
    }
  }
}

// One kept connection and the response it is reading.
class Connection {
  constructor (socket, pool) {
    this.socket = socket
    this.pool = pool
    this.handler = null
    this.head = null // header bytes not yet complete
    this.body = null // { mode: 'length' | 'chunked' | 'close', left, chunk state }
    this.keep = true
    this.abort = (err) => socket.destroy(err) // one a connection, handed to each request it carries
    socket.on('data', (chunk) => this.onData(chunk))
    socket.on('error', (err) => this.fail(err))
    socket.on('close', () => this.onClose())
  }

  send (request, handler) {
    this.handler = handler
    this.head = null
    this.body = null
    handler.onConnect(this.abort)
    this.socket.write(request)
  }

  onData (chunk) {
    if (!this.handler) return // bytes nobody asked for: ignored (the connection is closed on error)
    let rest = chunk
    if (this.body === null) {
      rest = this.readHead(chunk)
      if (rest === null) return
    }
    this.readBody(rest)
  }

  // Gather the status line and headers; returns the bytes after them, or null while incomplete.
  readHead (chunk) {
    const buf = this.head ? Buffer.concat([this.head, chunk]) : chunk
    const end = buf.indexOf(CRLF2)
    if (end < 0) {
      this.head = buf === chunk ? Buffer.from(buf) : buf // a chunk may be the pool's reused read buffer
      return null
    }
    this.head = null
    const text = buf.latin1Slice(0, end)
    const status = Number(text.slice(9, 12))
    if (!(status >= 100 && status < 600)) {
      this.fail(new Error(`bad HTTP response: ${JSON.stringify(text.slice(0, 40))}`))
      return null
    }
    const headers = parseHeaders(text)
    this.keep = !/close/i.test(headers.connection ?? '') && text.startsWith('HTTP/1.1')
    this.body = bodyMode(status, headers)
    this.handler.onHeaders(status, headers['server-timing'] ?? null)
    return buf.subarray(end + 4)
  }

  readBody (buf) {
    const b = this.body
    if (b.mode === 'length') {
      const take = Math.min(b.left, buf.length)
      if (take > 0) this.handler.onData(take === buf.length ? buf : buf.subarray(0, take))
      b.left -= take
      if (b.left === 0) this.complete()
    } else if (b.mode === 'chunked') {
      readChunked(this, b, buf)
    } else if (buf.length) {
      this.handler.onData(buf) // until the connection closes
    }
  }

  complete () {
    const handler = this.handler
    this.handler = null
    this.body = null
    if (this.keep) this.pool.idle.push(this)
    else {
      this.drop()
      this.socket.end()
    }
    handler.onComplete()
  }

  fail (err) {
    const handler = this.handler
    this.handler = null
    this.drop()
    this.socket.destroy()
    if (handler) handler.onError(err)
    else this.pool.onConnectionError?.(err)
  }

  onClose () {
    if (this.handler && this.body?.mode === 'close') return this.complete()
    if (this.handler) return this.fail(new Error('the connection closed before the response ended'))
    this.drop()
  }

  // No longer offered to new requests.
  drop () {
    this.pool.all.delete(this)
    const i = this.pool.idle.indexOf(this)
    if (i >= 0) this.pool.idle.splice(i, 1)
  }
}

// The header fields the client reads, by lower-case name (the last of repeated ones).
function parseHeaders (text) {
  const out = {}
  let at = text.indexOf('\r\n') + 2
  while (at > 1 && at < text.length) {
    const next = text.indexOf('\r\n', at)
    const line = next < 0 ? text.slice(at) : text.slice(at, next)
    const colon = line.indexOf(':')
    if (colon > 0) {
      const name = line.slice(0, colon).toLowerCase()
      if (name === 'content-length' || name === 'transfer-encoding' || name === 'connection' || name === 'server-timing') {
        out[name] = line.slice(colon + 1).trim()
      }
    }
    at = next < 0 ? text.length : next + 2
  }
  return out
}

// How the body ends: a length (0 for 1xx, 204, 304), chunks, or the connection's close.
function bodyMode (status, headers) {
  if (status < 200 || NO_BODY.has(status)) return { mode: 'length', left: 0 }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) return { mode: 'chunked', left: 0, state: 'size', line: '' }
  if (headers['content-length'] !== undefined) return { mode: 'length', left: Number(headers['content-length']) || 0 }
  return { mode: 'close', left: 0 }
}

// Chunked transfer coding: size line, data, CRLF, …, a zero size, trailers, CRLF.
function readChunked (conn, b, buf) {
  let i = 0
  while (i < buf.length && conn.handler) {
    if (b.state === 'data') {
      const take = Math.min(b.left, buf.length - i)
      conn.handler.onData(buf.subarray(i, i + take))
      b.left -= take
      i += take
      if (b.left === 0) b.state = 'crlf'
      continue
    }
    const nl = buf.indexOf(10, i)
    if (nl < 0) {
      b.line += buf.latin1Slice(i)
      return
    }
    const line = (b.line + buf.latin1Slice(i, nl)).trim()
    b.line = ''
    i = nl + 1
    if (b.state === 'crlf') b.state = 'size'
    else if (b.state === 'size') {
      b.left = parseInt(line, 16)
      if (Number.isNaN(b.left)) return conn.fail(new Error(`bad chunk size ${JSON.stringify(line.slice(0, 20))}`))
      b.state = b.left === 0 ? 'trailer' : 'data'
    } else if (b.state === 'trailer' && line === '') return conn.complete()
  }
}
