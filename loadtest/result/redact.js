// Credentials in a URL (`http://user:pw@host/`) never reach a report: the report's every string with a
// URL's user information replaced by `***`, at the data level, so the JSON, the Markdown and the page
// made from it carry none. Pure functions.

// scheme://user[:password]@ — the user information of a URL within any text (a command line, a note).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]+@/gi

// The text with every URL's user information replaced by ***.
export function redactUrl (text) {
  return typeof text === 'string' ? text.replace(USERINFO, '$1***@') : text
}

// A copy of a plain value (a report) with every string redacted (redactUrl); the keys are kept as they are.
export function redactCredentials (value) {
  if (typeof value === 'string') return redactUrl(value)
  if (Array.isArray(value)) return value.map(redactCredentials)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactCredentials(v)]))
}
