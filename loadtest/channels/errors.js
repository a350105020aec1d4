// Errors of the hook-call channels, each with a stable `code`: ChannelError, one of the lab's errors.
import { ChannelError } from '../errors.js'

export { ChannelError }

// The hook threw: the message is the hook's, the worker's stack is kept in `workerStack`.
export function hookError (message, workerStack) {
  const err = new ChannelError('LAB_CHANNEL_HOOK', message)
  if (workerStack) err.workerStack = workerStack
  return err
}

// A call on a dispatcher that is closing or closed.
export function closedError (mode) {
  return new ChannelError('LAB_CHANNEL_CLOSED', `${mode} dispatcher is closed`)
}

// A payload that does not fit the shared channel's buffer.
export function tooLargeError (what, bytes, capacity) {
  return new ChannelError(
    'LAB_CHANNEL_TOO_LARGE',
    `${what} needs ${bytes} bytes but the shared channel's buffer holds ${capacity} (raise maxPayloadBytes)`
  )
}

// A worker thread that died (exit or uncaught error) with calls in flight.
export function workerGoneError (mode, detail, cause) {
  return new ChannelError('LAB_CHANNEL_WORKER_GONE', `${mode} worker ended: ${detail}`, cause ? { cause } : undefined)
}

// How long a pool's workers may take to start before startupError (both pools).
export const STARTUP_TIMEOUT_MS = 30_000

// Workers that did not start (hook failed to load, or start-up timed out).
export function startupError (mode, detail, cause) {
  return new ChannelError('LAB_CHANNEL_STARTUP', `${mode} pool did not start: ${detail}`, cause ? { cause } : undefined)
}

// The AbortSignal's reason as an error (an AbortError when the signal gave none).
export function signalError (signal) {
  const reason = signal?.reason
  if (reason instanceof Error) return reason
  return new DOMException('The dispatch run was aborted', 'AbortError')
}
