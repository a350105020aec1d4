// A FIFO gate in front of N slots (threads of a pool): a request takes a slot when one is free and nobody
// is waiting, else waits in arrival order; a full queue refuses at once; a client that leaves while
// waiting is dropped from the queue; with a deadline, a request that has waited longer than it is
// refused (503) without running, by one timer set for the oldest waiter's deadline (and checked again
// when a slot frees). Used by the queued pools (queued-threads,
// queued-processes), whose pool must never queue on its own. With `cancel: false` (004's queued server)
// a client that leaves keeps its place and its work runs all the same.
import { performance } from 'node:perf_hooks'
import { ServerError } from './errors.js'

const left = () => new ServerError('ERR_ABORTED', 'client left before its work started')

// Join the line: an entry { go, fail, at } pushed onto `waiting`, settled by go (its turn) or fail (refused);
// with `cancel`, a client that leaves is taken out of the line and its promise rejects.
function waitInLine (waiting, signal, { cancel, counts, at }) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      waiting.splice(waiting.indexOf(entry), 1)
      counts.aborted++
      reject(left())
    }
    const settle = (fn) => (value) => {
      signal.removeEventListener('abort', onAbort)
      fn(value)
    }
    const entry = { go: settle(resolve), fail: settle(reject), at }
    if (cancel) signal.addEventListener('abort', onAbort, { once: true })
    waiting.push(entry)
  })
}

// slots: how many may hold a slot at once; maxQueue: how many may wait (undefined: unbounded);
// deadlineMs: how long one may wait (undefined: for ever); unit: what a slot is, for messages ('thread',
// 'process'); cancel: whether a client that leaves is dropped. counts.aborted, counts.rejected and
// counts.expired are incremented here.
export function createFifoGate ({
  slots, maxQueue, deadlineMs, counts, unit = 'thread', cancel = true, clock = () => performance.now()
}) {
  const waiting = [] // { go, fail, at } in arrival order
  let held = 0
  let timer = null // set for the oldest waiter's deadline

  // Wait for a free slot in arrival order; rejects at once when the queue is full or the client left.
  function acquire (signal) {
    if (cancel && signal.aborted) {
      counts.aborted++
      return Promise.reject(left())
    }
    if (held < slots && waiting.length === 0) {
      held++
      return Promise.resolve()
    }
    if (maxQueue !== undefined && waiting.length >= maxQueue) {
      counts.rejected++
      return Promise.reject(new ServerError('ERR_QUEUE_FULL', `queue full (--max-queue ${maxQueue}), retry later`))
    }
    const turn = waitInLine(waiting, signal, { cancel, counts, at: clock() })
    watchDeadline()
    return turn
  }

  // One timer for the oldest waiter's deadline (they expire in arrival order): when it fires, every
  // waiter past the deadline is refused, and the timer is set for the next.
  function watchDeadline () {
    if (deadlineMs === undefined || timer !== null || waiting.length === 0) return
    timer = setTimeout(onDeadline, Math.max(0, waiting[0].at + deadlineMs - clock()) + 1)
    timer.unref()
  }

  function onDeadline () {
    timer = null
    const t = clock()
    while (waiting.length && t - waiting[0].at > deadlineMs) expired(waiting.shift(), t)
    watchDeadline()
  }

  // A waiting request past its deadline: refused, it never runs.
  const expired = (entry, t) => {
    counts.expired = (counts.expired ?? 0) + 1
    const waited = (t - entry.at).toFixed(1)
    entry.fail(new ServerError('ERR_DEADLINE', `waited ${waited} ms for a ${unit}, past --deadline ${deadlineMs} ` +
      'ms, retry later'))
  }

  // Hand a freed slot to the oldest waiting request still within its deadline, or give it back.
  function release () {
    const t = clock()
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      if (deadlineMs !== undefined && t - next.at > deadlineMs) expired(next, t)
      else return next.go()
    }
    held--
  }

  return {
    acquire,
    release,
    // Fail every waiting request (shutting down).
    failAll: (err) => {
      clearTimeout(timer)
      timer = null
      for (const entry of waiting.splice(0)) entry.fail(err)
    },
    get waiting () {
      return waiting.length
    },
    get held () {
      return held
    }
  }
}
