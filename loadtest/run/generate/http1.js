// The open loop's own HTTP/1.1 client: GET on kept connections, one request at a time per connection
// (no pipelining), the request's bytes built once per round, the response parsed in place (status line,
// the headers the lab reads, a body by Content-Length, chunked, or until close) and its body handed on
// chunk by chunk. It does what the open loop needs and no more: the loop itself caps the connections and
// queues what finds them all busy, so a request always gets a connection (an idle one, or a new one).
// It is as strict as an HTTP client must be (RFC 9112): interim answers (1xx but 101) are skipped and
// counted, and a response that breaks the protocol fails its request with a protocol error and closes its
// connection: a head over MAX_HEAD_BYTES, a bad status line or header line, a 101 nobody asked for, two
// different or a bad Content-Length, Content-Length with Transfer-Encoding, a 204 with a body, a bad
// chunk, bytes after the response (a second response) or on an idle connection.
import net from 'node:net'
import tls from 'node:tls'
import { performance } from 'node:perf_hooks'
import { protocolError } from '../../errors.js'

const CRLF2 = Buffer.from('\r\n\r\n')
const NO_BODY = new Set([204, 304])
const READ_BUFFER_BYTES = 64 * 1024
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: [^\r\n]*)?$/
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/

// The longest response head the client reads (status line and headers, with the blank line that ends
// them), and the most bytes of chunk-size and trailer lines: 16 KiB, Node's own parser's default
// (--max-http-header-size). A head that never ends is a protocol error at this size, not a growing buffer.
export const MAX_HEAD_BYTES = 16 * 1024

// A pool of kept connections to `origin` (http: or https:). send(handler[, bytes]) sends the round's
// request (or those bytes: a mix class's, requestBytes);
// the handler hears onConnect(abort), onHeaders(status, serverTiming, stamps), onData(chunk), onComplete() or
// onError(err). destroy() closes every connection. Pool-wide: onConnectionError(err) hears a fault no
// request was waiting on, onInterim(status) each skipped 1xx answer, onProtocolError(err) each protocol
// error (a request's, which its onError hears too, or an idle connection's), onOpen() each connection
// opened. preopen(n) opens n idle connections ahead; resolves, once each connected or failed, to the
// performance.now() at which each connected (null: it failed).
export function createHttp1Pool (origin, path, options = {}) {
  const { userAgent = 'loadlab-open-loop', onConnectionError, onInterim, onProtocolError, onOpen } = options
  const url = new URL(origin)
  const secure = url.protocol === 'https:'
  const port = Number(url.port) || (secure ? 443 : 80)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const request = requestBytes(url.host, { path }, userAgent)
  const idle = []
  const all = new Set()
  const pool = { idle, all, onConnectionError, onInterim, onProtocolError }
  // One read buffer for every plain connection of the pool (net's `onread`): a read allocates nothing,
  // and each chunk is consumed (parsed, compared, or copied where kept) before the next read reuses it.
  const readBuffer = secure ? null : Buffer.allocUnsafe(READ_BUFFER_BYTES)
  const open = () => {
    let conn = null
    const onread = readBuffer && { buffer: readBuffer, callback: (n, buf) => conn.onData(buf.subarray(0, n)) }
    const socket = secure ? tls.connect({ host, port, servername: host }) : net.connect({ host, port, onread })
    socket.setNoDelay(true)
    conn = new Connection(socket, pool)
    all.add(conn)
    onOpen?.()
    return conn
  }
  return {
    send (handler, bytes = request) {
      const conn = idle.pop() ?? open()
      conn.send(bytes, handler)
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

// The bytes of one request (built once per round and class): `method` (GET), `path`, a mix class's own
// `headers` and `body` (result/mix.js checked them: tokens, one-line values, a body of known length).
export function requestBytes (
  host, { method = 'GET', path, headers = {}, body = null }, userAgent = 'loadlab-open-loop'
) {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}`]
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'user-agent')) lines.push(`User-Agent: ${userAgent}`)
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  const payload = body === null ? null : Buffer.from(body, 'utf8')
  if (payload !== null || (method !== 'GET' && method !== 'OPTIONS' && method !== 'DELETE')) {
    lines.push(`Content-Length: ${payload?.length ?? 0}`)
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
  return payload === null ? head : Buffer.concat([head, payload])
}

// One kept connection and the response it is reading.
class Connection {
  constructor (socket, pool) {
    this.socket = socket
    this.pool = pool
    this.handler = null
    this.head = null // header bytes not yet complete
    this.status = 0
    this.body = null // { mode: 'length' | 'chunked' | 'close', left, chunk state }
    this.keep = true
    // One a connection, handed to each request it carries: abort(handler) ends that request's exchange
    // at once (the connection is offered to no one again, and closes without an error), if it still
    // carries that request.
    this.abort = (handler) => {
      if (this.handler !== handler) return
      this.handler = null
      this.drop()
      socket.destroy()
    }
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
    if (this.socket.destroyed) return
    if (!this.handler) {
      return this.fail(protocolError(`${chunk.length} bytes on an idle connection (a response nobody asked for)`))
    }
    let rest = chunk
    while (this.body === null) { // a head, or a 1xx head and what follows it
      rest = this.readHead(rest)
      if (rest === null) return
    }
    this.readBody(rest)
  }

  // Gather the status line and headers; returns the bytes after them, or null while incomplete (or failed).
  // An interim (1xx) head is skipped: the bytes after it are returned with no body started.
  readHead (chunk) {
    const buf = this.head ? Buffer.concat([this.head, chunk]) : chunk
    const end = buf.indexOf(CRLF2)
    if (end < 0 && buf.length < MAX_HEAD_BYTES) {
      this.head = buf === chunk ? Buffer.from(buf) : buf // a chunk may be the pool's reused read buffer
      return null
    }
    this.head = null
    if (end < 0 || end + 4 > MAX_HEAD_BYTES) {
      this.fail(protocolError(`a response head over ${MAX_HEAD_BYTES} bytes`))
      return null
    }
    const head = parseHead(buf.latin1Slice(0, end))
    if (typeof head === 'string') {
      this.fail(protocolError(head))
      return null
    }
    const rest = buf.subarray(end + 4)
    if (head.status < 200) {
      this.pool.onInterim?.(head.status)
      return rest
    }
    this.status = head.status
    this.keep = head.keep
    this.body = head.body
    this.handler.onHeaders(head.status, head.serverTiming, head.stamps)
    return this.handler ? rest : null
  }

  readBody (buf) {
    const b = this.body
    if (b.mode === 'length') {
      const take = Math.min(b.left, buf.length)
      if (take > 0) this.handler.onData(take === buf.length ? buf : buf.subarray(0, take))
      b.left -= take
      if (b.left === 0) this.complete(buf.length - take)
    } else if (b.mode === 'chunked') {
      readChunked(this, b, buf)
    } else if (buf.length) {
      this.handler.onData(buf) // until the connection closes
    }
  }

  // The response ended; `extra` bytes came after it, which no request asked for (a second response, or
  // a body a 204 may not have): a protocol error.
  complete (extra = 0) {
    if (!this.handler) return
    if (extra > 0) {
      const what = NO_BODY.has(this.status) ? `a body on a ${this.status} response` : 'a second response'
      return this.fail(protocolError(`${extra} bytes after a complete ${this.status} response (${what})`))
    }
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
    if (err?.code === 'LAB_HTTP_PROTOCOL') this.pool.onProtocolError?.(err)
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

// A response head (its text up to the blank line): { status, keep, body, serverTiming, stamps }, or what is wrong
// with it (a string).
function parseHead (text) {
  const lineEnd = text.indexOf('\r\n')
  const statusLine = lineEnd < 0 ? text : text.slice(0, lineEnd)
  const m = STATUS_LINE.exec(statusLine)
  if (!m) return `bad status line ${JSON.stringify(statusLine.slice(0, 40))}`
  const status = Number(m[2])
  if (status === 101) return 'a 101 Switching Protocols answer to a request that asked for no upgrade'
  const fields = lineEnd < 0 ? {} : parseFields(text, lineEnd + 2)
  if (typeof fields === 'string') return fields
  const body = bodyMode(status, fields)
  if (typeof body === 'string') return body
  const keep = m[1] === '1' && !/(^|[\s,])close([\s,]|$)/i.test(fields.connection ?? '')
  return { status, keep, body, serverTiming: fields['server-timing'] ?? null, stamps: fields['lab-stamps'] ?? null }
}

// The list fields the client reads besides Content-Length.
const LISTS = new Set(['transfer-encoding', 'connection', 'server-timing', 'lab-stamps'])

// The header fields the client reads, by lower-case name (Content-Length checked as one value, however
// often it is sent; the others, lists all, their repeated lines joined with ", " as RFC 9110 5.3 combines
// them: two `Lab-Stamps` lines read as one list, or refused whole where they repeat a phase), or what is
// wrong with a line (a string).
function parseFields (text, at) {
  const out = {}
  while (at < text.length) {
    const next = text.indexOf('\r\n', at)
    const line = next < 0 ? text.slice(at) : text.slice(at, next)
    at = next < 0 ? text.length : next + 2
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon) : ''
    if (!TOKEN.test(name) || line.includes('\r')) return `bad header line ${JSON.stringify(line.slice(0, 40))}`
    const key = name.toLowerCase()
    if (key === 'content-length') {
      const length = contentLength(line.slice(colon + 1), out['content-length'])
      if (typeof length === 'string') return length
      out[key] = length
    } else if (LISTS.has(key)) {
      out[key] = out[key] === undefined ? line.slice(colon + 1).trim() : `${out[key]}, ${line.slice(colon + 1).trim()}`
    }
  }
  return out
}

// A Content-Length field's value (a list of one length repeated is that length, RFC 9110 8.6) checked
// against one already read: the length, or what is wrong (a string).
function contentLength (value, before) {
  let length = before
  for (const part of value.includes(',') ? value.split(',') : [value]) {
    const v = part.trim()
    if (!/^\d{1,15}$/.test(v)) return `bad Content-Length ${JSON.stringify(v.slice(0, 20))}`
    const n = Number(v)
    if (length !== undefined && length !== n) return `two different Content-Length values (${length} and ${n})`
    length = n
  }
  return length
}

// How the body ends: a length (0 for 204 and 304), chunks, or the connection's close; or what is wrong.
function bodyMode (status, fields) {
  const length = fields['content-length']
  const coding = fields['transfer-encoding']
  if (length !== undefined && coding !== undefined) return 'both Content-Length and Transfer-Encoding'
  if (status === 204 && (coding !== undefined || length > 0)) {
    const framing = coding !== undefined ? `Transfer-Encoding: ${coding}` : `Content-Length: ${length}`
    return `a 204 response with a body (${framing})`
  }
  if (status < 200 || NO_BODY.has(status)) return { mode: 'length', left: 0 }
  if (coding !== undefined) {
    // chunked must be the last coding; otherwise the body runs until the close (RFC 9112 6.3).
    if (/(^|,)\s*chunked\s*$/i.test(coding)) return { mode: 'chunked', left: 0, state: 'size', line: '', lineBytes: 0 }
    return { mode: 'close', left: 0 }
  }
  if (length !== undefined) return { mode: 'length', left: length }
  return { mode: 'close', left: 0 }
}

// Chunked transfer coding: size line, data, CRLF, …, a zero size, trailers, CRLF. Size and trailer lines
// together are capped at MAX_HEAD_BYTES.
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
    b.lineBytes += (nl < 0 ? buf.length : nl + 1) - i
    if (b.lineBytes > MAX_HEAD_BYTES) {
      return conn.fail(protocolError(`chunk size and trailer lines over ${MAX_HEAD_BYTES} bytes`))
    }
    if (nl < 0) {
      b.line += buf.latin1Slice(i)
      return
    }
    let line = b.line + buf.latin1Slice(i, nl)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    b.line = ''
    i = nl + 1
    if (b.state === 'crlf') {
      if (line !== '') return conn.fail(protocolError('a chunk longer than its size'))
      b.state = 'size'
    } else if (b.state === 'size') {
      const m = CHUNK_SIZE.exec(line)
      if (!m) return conn.fail(protocolError(`bad chunk size ${JSON.stringify(line.slice(0, 20))}`))
      b.left = parseInt(m[1], 16)
      b.state = b.left === 0 ? 'trailer' : 'data'
    } else if (line === '') return conn.complete(buf.length - i) // the blank line after the trailers
  }
}
