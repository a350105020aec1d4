// What a round's request counts add up to. `errors` has this one meaning everywhere it is read (the
// `errors` threshold, compare's errors column, a capacity step's verdict): reports/README.md says it.

// The parts of `errors`: requests that ended without a verified 2xx answer.
export const ERROR_KINDS = Object.freeze(['errors', 'timeouts', 'dropped', 'non2xx', 'mismatches'])

// Failed requests of a result's or round's `requests`: connection errors + timeouts + dropped (the open
// loop's, never written) + non-2xx answers + body mismatches (not `unanswered`, what was still in flight
// when a --duration round stopped); a count that is not a number counts 0; null without a `requests` object.
export function errorsOf (requests) {
  if (!requests || typeof requests !== 'object') return null
  return ERROR_KINDS.reduce((sum, k) => sum + (Number.isFinite(requests[k]) ? requests[k] : 0), 0)
}
