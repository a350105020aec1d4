// Errors the lab can raise, each with a code and the exit status it leads to.

// An error a user caused or the lab must stop for: one line of message, a code, an exit status.
export class LabError extends Error {
  constructor (code, message, { exitCode = 1, cause } = {}) {
    super(message, cause ? { cause } : undefined)
    this.name = 'LabError'
    this.code = code
    this.exitCode = exitCode
  }
}

// A bad command-line option: exit 2 before anything starts.
export function usageError (message) {
  return new LabError('LAB_USAGE', message, { exitCode: 2 })
}

// A server that could not be started, never became healthy, or died.
export function serverError (message, details = {}) {
  const err = new LabError('LAB_SERVER', message)
  Object.assign(err, details)
  return err
}

// The run was interrupted (SIGINT): whatever was measured is still reported.
export function abortError (reason = 'interrupted') {
  return new LabError('LAB_ABORTED', reason, { exitCode: 130 })
}

// Describe a value for an error message the way execa/piscina do: `-1` (number).
export function describe (value) {
  return `\`${String(value)}\` (${typeof value})`
}
