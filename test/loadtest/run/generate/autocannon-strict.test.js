// autocannon-strict.js patches autocannon's private client fields and its http-parser-js parser: each field
// it touches is checked here against the installed versions, and the versions against the ones it was
// written for (CHECKED_AGAINST), so an upgrade fails this test before it silently loosens the closed loop.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { createServer } from 'node:http'
import { once } from 'node:events'
import autocannon from 'autocannon'
import { CHECKED_AGAINST } from '../../../../loadtest/run/generate/autocannon-strict.js'

const fromAutocannon = createRequire(createRequire(import.meta.url).resolve('autocannon'))
const { HTTPParser } = fromAutocannon('http-parser-js')

test('autocannon-strict: autocannon and its parser are the versions the patch was checked against', () => {
  assert.equal(fromAutocannon('./package.json').version, CHECKED_AGAINST.autocannon)
  assert.equal(fromAutocannon('http-parser-js/package.json').version, CHECKED_AGAINST['http-parser-js'])
})

test('autocannon-strict: every private field it touches is there, with the meaning it relies on', async (t) => {
  // http-parser-js: the callback slots it wraps (kOnHeadersComplete 2, kOnMessageComplete 4), the states
  // strictChunkHead moves between, the state a body read until close is in
  assert.equal(HTTPParser.kOnHeadersComplete, 2)
  assert.equal(HTTPParser.kOnMessageComplete, 4)
  for (const state of ['BODY_CHUNKHEAD', 'BODY_CHUNK', 'BODY_CHUNKTRAILERS', 'BODY_RAW']) {
    assert.equal(typeof HTTPParser.prototype[state], 'function', state)
  }
  const server = createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1')
  t.after(() => server.close())
  await once(server, 'listening')
  const seen = {}
  const instance = autocannon({
    url: `http://127.0.0.1:${server.address().port}`,
    connections: 1,
    amount: 3,
    setupClient (client) {
      const parser = client.parser
      seen.client = {
        connect: typeof client._connect,
        destroyConnection: typeof client._destroyConnection,
        peek: typeof client.pipelinedRequests?.peek,
        clear: typeof client.pipelinedRequests?.clear,
        destroyed: typeof client.destroyed
      }
      seen.parser = {
        execute: typeof parser.execute,
        initialize: typeof parser.initialize,
        type: parser.type,
        maxHeaderSize: 'maxHeaderSize' in parser,
        chunkHead: typeof parser.BODY_CHUNKHEAD
      }
      const execute = parser.execute
      parser.execute = function (chunk) {
        if (!seen.callbacks) {
          seen.callbacks = { headers: typeof parser[2], complete: typeof parser[4] }
          const complete = parser[4]
          parser[4] = function () { // where the patch reads the message's end and status
            const info = parser.info
            const [end, offset, state] = [parser.end, parser.offset, parser.state].map((x) => typeof x)
            seen.after ??= { end, offset, status: info?.statusCode, state }
            return complete.call(this)
          }
        }
        return execute.call(this, chunk)
      }
      client.on('response', () => {
        seen.conn ??= typeof client.conn?.prependListener // the socket _connect opened
      })
    }
  })
  const result = await instance
  assert.equal(result['2xx'], 3)
  assert.deepEqual(seen.client, {
    connect: 'function', destroyConnection: 'function', peek: 'function', clear: 'function', destroyed: 'boolean'
  })
  assert.deepEqual(seen.parser, {
    execute: 'function', initialize: 'function', type: HTTPParser.RESPONSE, maxHeaderSize: true, chunkHead: 'function'
  })
  assert.deepEqual(seen.callbacks, { headers: 'function', complete: 'function' }, 'autocannon set its callbacks before the first bytes')
  assert.equal(seen.conn, 'function')
  assert.deepEqual(seen.after, { end: 'number', offset: 'number', status: 200, state: 'string' })
})
