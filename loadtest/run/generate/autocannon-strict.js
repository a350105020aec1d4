// autocannon's client held to the open loop's HTTP/1.1 rules (http1.js). autocannon 9 parses with
// http-parser-js and takes every message as the answer to the oldest request: an interim 100 or 103 is
// counted as a response (and another request sent), a parse error is dropped (the request times out), a
// negative Content-Length, a bad chunk size or a second response pass as 2xx, and a connection that
// closes mid-response leaves its request to be answered by the next one. It has no option for any of
// this, so its client's parser is wrapped, as fire.js's streamBodies wraps its request queue: interim
// answers (1xx but 101) are skipped and counted, and a protocol error fails the request (a connection
// error to autocannon and to the lab's counts), closes the connection and opens a fresh one.
import { protocolError } from '../../errors.js'
import { MAX_HEAD_BYTES } from './http1.js'

const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/

// What an http-parser-js error means, in http1.js's words.
function describeParseError (err) {
  if (err.code === 'HPE_UNEXPECTED_CONTENT_LENGTH') return 'two different Content-Length values'
  if (err.code === 'HPE_INVALID_CONSTANT') return 'bad status line'
  if (/max header size/.test(err.message)) return `a response head over ${MAX_HEAD_BYTES} bytes`
  if (err.code === 'HPE_INVALID_CHUNK_SIZE') return err.message
  return `unparsable response (${err.code ?? err.message})`
}

// What is wrong with a final response's head (http-parser-js's info: statusCode, headers as a flat
// [name, value, …] list), or null.
function headFault (info) {
  const lengths = []
  let coding = null
  for (let i = 0; i < info.headers.length; i += 2) {
    const name = String(info.headers[i]).toLowerCase()
    if (name === 'content-length') lengths.push(...String(info.headers[i + 1]).split(',').map((v) => v.trim()))
    else if (name === 'transfer-encoding') coding = info.headers[i + 1]
  }
  const bad = lengths.find((v) => !/^\d{1,15}$/.test(v))
  if (bad !== undefined) return `bad Content-Length ${JSON.stringify(bad.slice(0, 20))}`
  if (new Set(lengths.map(Number)).size > 1) return `two different Content-Length values (${lengths.join(' and ')})`
  if (lengths.length && coding !== null) return 'both Content-Length and Transfer-Encoding'
  if (info.statusCode === 204 && (coding !== null || Number(lengths[0]) > 0)) return 'a 204 response with a body'
  if (info.statusCode === 101) return 'a 101 Switching Protocols answer to a request that asked for no upgrade'
  return null
}

// The autocannon and http-parser-js versions whose private fields this module uses, each checked by
// test/loadtest/run/generate/autocannon-strict.test.js: another version fails that test (package.json pins
// autocannon to this one).
export const CHECKED_AGAINST = Object.freeze({ autocannon: '9.0.0', 'http-parser-js': '0.5.10' })

// Hold one autocannon client (setupClient's argument) to the protocol: onInterim(status) hears each
// skipped interim answer, onProtocolError(err) each protocol error (the request's connError follows).
// The steps share one record `h`: the client, its parser and request queue, and whether the message
// being parsed is an interim answer (skipped).
export function holdToProtocol (client, { onInterim, onProtocolError }) {
  const { parser, pipelinedRequests: queue } = client
  const h = { client, parser, queue, interim: false, onInterim, onProtocolError }
  checkHooks(h)
  h.parser.maxHeaderSize = MAX_HEAD_BYTES
  h.parser.BODY_CHUNKHEAD = strictChunkHead
  wrapExecute(h)
  watchConnections(h)
}

// The private fields this module wraps, or an error saying autocannon changed.
function checkHooks ({ client, parser, queue }) {
  const hooks = [parser?.execute, client._connect, client._destroyConnection, queue?.peek]
  if (hooks.some((f) => typeof f !== 'function')) {
    const what = 'parser.execute, _connect, _destroyConnection or request queue'
    throw new Error(`autocannon has no ${what} to hold to HTTP/1.1 (version changed?)`)
  }
}

// A fault found in a parser callback stops the parse there (the error is thrown out of execute).
function fault (message) {
  const err = protocolError(message)
  err.stopsParse = true
  throw err
}

// The parser's head and message-complete callbacks, wrapped: an interim answer is skipped and heard; a
// final answer with nothing asked or a bad head, or bytes after a complete answer, is a fault.
function wrapCallbacks (h) {
  const { parser, queue } = h
  const [, onHeaders, , onComplete] = [1, 2, 3, 4].map((k) => parser[k]) // kOnHeaders … kOnMessageComplete
  parser[2] = function (info) {
    h.interim = info.statusCode >= 100 && info.statusCode < 200 && info.statusCode !== 101
    if (h.interim) { // no body (http-parser-js reads none for a 1xx); the return says "do not skip one"
      h.onInterim?.(info.statusCode)
      return false
    }
    if (!queue.peek()) fault(`a response on an idle connection (a response nobody asked for, ${info.statusCode})`)
    const wrong = headFault(info)
    if (wrong) fault(wrong)
    return onHeaders.call(this, info)
  }
  parser[4] = function () {
    if (h.interim) {
      h.interim = false
      return
    }
    const extra = parser.end - parser.offset
    const status = parser.info.statusCode
    if (extra > 0) {
      fault(`${extra} bytes after a complete ${status} response (a second response, or a body it ` +
      'may not have)')
    }
    return onComplete.call(this)
  }
}

// Fail the request on this connection, close it, and open a fresh one (as autocannon does on an error).
function lose (h, err) {
  h.onProtocolError?.(err)
  h.client.emit('connError', err)
  h.client._destroyConnection()
  h.parser.initialize(h.parser.type)
  h.interim = false
  if (!h.client.destroyed) h.client._connect()
}

// The parser's execute, wrapped: the callbacks at the first bytes (autocannon sets them after
// setupClient), and a fault or a parse error loses the request.
function wrapExecute (h) {
  const execute = h.parser.execute
  let wrapped = false
  h.parser.execute = function (chunk) {
    if (!wrapped) {
      wrapCallbacks(h)
      wrapped = true
    }
    let ret
    try {
      ret = execute.call(this, chunk)
    } catch (err) {
      if (!err?.stopsParse) throw err
      lose(h, err)
      return 0
    }
    if (ret instanceof Error) lose(h, protocolError(describeParseError(ret)))
    return ret
  }
}

// A connection that closes mid-response (some bytes of it read) loses that request: an error, and the
// parser starts afresh (autocannon alone would let the next connection's answer end it).
function watchConnections ({ client, parser, queue }) {
  const connect = client._connect
  client._connect = function () {
    connect.call(this)
    const conn = this.conn
    conn.prependListener('end', () => {
      // (a body until close ends here: autocannon's own way stays)
      if (conn !== client.conn || client.destroyed || parser.state === 'BODY_RAW') return
      if (queue.peek()?.bytes > 0) {
        client.emit('connError', new Error('the connection closed before the response ended'))
        queue.clear()
        parser.initialize(parser.type)
      }
    })
    conn.prependListener('error', () => {
      if (conn !== client.conn) return
      queue.clear() // autocannon counts the error; the request must not wait for the next connection's answer
      parser.initialize(parser.type)
    })
  }
}

// http-parser-js's chunk-size state, strict: a size in hex (and extensions), or a parse error.
function strictChunkHead () {
  const line = this.consumeLine()
  if (line === undefined) return
  const m = CHUNK_SIZE.exec(line)
  if (!m) {
    const err = new Error(`bad chunk size ${JSON.stringify(line.slice(0, 20))}`)
    err.code = 'HPE_INVALID_CHUNK_SIZE'
    throw err
  }
  this.body_bytes = parseInt(m[1], 16)
  this.state = this.body_bytes ? 'BODY_CHUNK' : 'BODY_CHUNKTRAILERS'
}
