// What a round's request counts add up to. `errors` has this one meaning everywhere it is read (the
// `errors` threshold, compare's errors column, a capacity step's verdict): reports/README.md says it.

// An HTTP status's class (2 for 2xx, 3 for 3xx …), or null for what is not a status.
export const statusClass = (status) => (Number.isInteger(status) ? Math.floor(status / 100) : null)
const REDIRECT = 3
// Whether a status is a success (2xx), a redirect (3xx).
export const isSuccess = (status) => statusClass(status) === 2
export const isRedirect = (status) => statusClass(status) === REDIRECT

// The parts of `errors`: requests that ended without a verified 2xx answer.
export const ERROR_KINDS = Object.freeze(['errors', 'timeouts', 'dropped', 'non2xx', 'mismatches'])

// Failed requests of a result's or round's `requests`: connection errors + timeouts + dropped (the open
// loop's, never written) + non-2xx answers + body mismatches (not `unanswered`, what was still in flight
// when a --duration round stopped); a count that is not a number counts 0; null without a `requests` object.
export function errorsOf (requests) {
  if (!requests || typeof requests !== 'object') return null
  return ERROR_KINDS.reduce((sum, k) => sum + (Number.isFinite(requests[k]) ? requests[k] : 0), 0)
}
