// One HTTP request on a fresh connection, timed, bounded by a timeout and an abort signal.
import http from 'node:http'
import https from 'node:https'
import { performance } from 'node:perf_hooks'
import { DEFAULTS } from '../../settings.js'

// The User-Agent of the lab's own requests (readiness, recovery, the /health probe, the stats calls),
// unless a mix class sets its own; the load's requests carry the open loop's or autocannon's.
export const USER_AGENT = 'loadlab'

// Where a request goes: a URL (its path and query as the URL gives them), or { origin, path }: the path
// sent exactly as written (a mix class's), to that origin and no other, whatever the path looks like.
function targetOf (url) {
  const u = new URL(typeof url === 'string' ? url : url.origin)
  const path = typeof url === 'string' ? u.pathname + u.search : url.path
  return { protocol: u.protocol, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port, path }
}

// Send one request (`headers` and a string `body`: a mix class's own); resolves { status, body, bytes,
// overCap, headers, ms } (body: its first maxBody bytes, overCap: it was longer) or { status: 'timeout' |
// 'error' | 'aborted', error, ms }. Headers as the docs say (docs/your-service.md): the caller's, Host,
// User-Agent (unless the caller's set one) and Content-Length with a body; no Connection header (the
// connection is the request's own: closed once its answer is read).
export function request (url, {
  method = 'GET', headers = {}, body = null, timeoutMs = 5000, signal, maxBody = DEFAULTS['max-body']
} = {}) {
  return new Promise((resolve) => {
    const start = performance.now()
    const u = targetOf(url)
    const lib = u.protocol === 'https:' ? https : http
    let settled = false
    const done = (value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      resolve({ ms: performance.now() - start, ...value })
    }
    const sent = body === null ? {} : { 'content-length': Buffer.byteLength(body) }
    const agent = Object.keys(headers).some((h) => h.toLowerCase() === 'user-agent') ? {} : { 'user-agent': USER_AGENT }
    let req
    try {
      req = lib.request({ ...u, method, agent: false, headers: { ...agent, ...headers, ...sent } }, onResponse)
    } catch (error) { // a path or header Node will not write: an error of this request, never a throw
      return resolve({ ms: performance.now() - start, status: 'error', error: error.message })
    }
    req.removeHeader('connection') // Node would write Connection: close (agent: false); HTTP/1.1 needs none
    let headAt = null // when the answer's head came: a timeout after it is a body that did not end
    function onResponse (res) {
      headAt = performance.now()
      const chunks = []
      let size = 0
      res.on('data', (c) => {
        if (size < maxBody) chunks.push(c.subarray(0, maxBody - size))
        size += c.length
      })
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        done({ status: res.statusCode, headers: res.headers, body, bytes: size, overCap: size > maxBody })
      })
      res.on('error', (error) => done({ status: 'error', error: brokenAnswer(error) }))
    }
    const timer = setTimeout(() => {
      const error = headAt === null
        ? `no answer within ${timeoutMs} ms`
        : `its head came in ${Math.round(headAt - start)} ms, its body did not end within ${timeoutMs} ms`
      done({ status: 'timeout', error })
      req.destroy()
    }, timeoutMs)
    const onAbort = () => {
      done({ status: 'aborted', error: 'aborted' })
      req.destroy()
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (error) => done({ status: 'error', error: brokenAnswer(error) }))
    req.end(body ?? undefined)
  })
}

// Why an answer broke off, in words: Node says only "aborted" for a connection closed mid-body, and
// "Parse Error: Header overflow" for a head past its parser's limit.
function brokenAnswer (error) {
  if (error.message === 'aborted') return 'the connection closed before the answer\'s body ended'
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'protocol error: a response head over 16384 bytes (Header overflow)'
  return error.message
}

// GET url and parse JSON; resolves { status, json } (json null when the answer is not JSON or not 200).
export async function getJson (url, opts) {
  const r = await request(url, opts)
  let json = null
  if (r.status === 200) {
    try {
      json = JSON.parse(r.body)
    } catch {}
  }
  return { ...r, json }
}
