// Secrets never reach a report: a URL's user information (`http://user:pw@host/`) and the values of the
// headers that carry credentials (Authorization, Proxy-Authorization, Cookie) are replaced by `***`, at
// the data level, so the JSON, the Markdown and the page made from it carry none, nor the command line a
// report keeps. Pure functions.

// scheme://user[:password]@ — the user information of a URL within any text (a command line, a note): up
// to the last @ before the host (as a URL parser reads `http://a:p@ss@host/`).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/\\?#]*@/gi
// The headers whose values are credentials (lower case).
export const SECRET_HEADERS = Object.freeze(['authorization', 'proxy-authorization', 'cookie'])
const SECRET_LINE = /^(\s*)([^:=\s]+)(\s*[:=])(.*)$/s // 'Name: value', or autocannon's Name=value

// The text with every URL's user information replaced by ***.
export function redactUrl (text) {
  return typeof text === 'string' ? text.replace(USERINFO, '$1***@') : text
}

// Whether a header name is one whose value is a credential.
export function isSecretHeader (name) {
  return typeof name === 'string' && SECRET_HEADERS.includes(name.trim().toLowerCase())
}

// A `Name: value` (or `Name=value`) header line with its value replaced by *** when the name is a secret one.
export function redactHeaderLine (line) {
  const m = SECRET_LINE.exec(String(line))
  return m && isSecretHeader(m[2]) ? `${m[1]}${m[2]}${m[3]}${m[3].endsWith('=') ? '' : ' '}***` : redactUrl(line)
}

// A command line's words with their secrets replaced: every URL's user information, and the value of a
// secret header given with -H/--header (-H 'K: V', -H'K: V', --header 'K: V', --header='K: V').
export function redactArgs (argv) {
  return argv.map((word, i) => {
    const w = String(word)
    if (i > 0 && (argv[i - 1] === '-H' || argv[i - 1] === '--header')) return redactHeaderLine(w)
    if (w.startsWith('--header=')) return `--header=${redactHeaderLine(w.slice(9))}`
    if (w.startsWith('-H') && w.length > 2 && !w.startsWith('--')) return `-H${redactHeaderLine(w.slice(2))}`
    return redactUrl(w)
  })
}

// A copy of a plain value (a report) with every string redacted (redactUrl) and, in every `headers`
// object (a request mix's classes), the value of each secret header replaced by ***; keys kept as they are.
export function redactCredentials (value, key = null) {
  if (typeof value === 'string') return redactUrl(value)
  if (Array.isArray(value)) return value.map((v) => redactCredentials(v))
  if (value === null || typeof value !== 'object') return value
  const headers = key === 'headers'
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [
    k,
    headers && isSecretHeader(k) && typeof v === 'string' ? '***' : redactCredentials(v, k)
  ]))
}
