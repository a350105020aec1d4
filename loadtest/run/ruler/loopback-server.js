// The ruler's loopback server (measure.js loopbackCost): a bare node:http answer on 127.0.0.1, port 0,
// in a thread of the ruler's child; posts its port, and closes every connection and itself on any message.
// Not an entry point.
import http from 'node:http'
import { parentPort } from 'node:worker_threads'

const server = http.createServer((req, res) => res.end('ok'))
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port))
parentPort.once('message', () => {
  server.closeAllConnections()
  server.close(() => parentPort.close())
})
