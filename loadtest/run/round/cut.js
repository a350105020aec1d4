// A sweep's step cut short (result/rules.js CUT): the step stops sending once it is a clear failure at every
// target, on the requests it sent so far. Fed by the open loop's events (open-loop.js onResponse) and asked by
// its schedule for each due time once the one before was sent (schedule.js `until`), so the clock is past that
// one. A request is over the target when it ended past it (answered late, or timed out at a timeout past it), or
// when it is still out longer: it can only end past it. The memory is the requests out (the due times sent and
// not yet passed by the target, and those ended early).
import { CUT } from '../../result/rules.js'

// The due times passed over before the ring is compacted (half of it at least).
const COMPACT_AT = 1024

// A cut for a step judged against targets up to `overMs` (its loosest): onResponse(event) for each ended
// request, until(next) for the schedule, figures() what the report keeps ({ atSec, sent, over }, or null when
// the step ran its length). `rule`: the rule book's CUT, or another with its minSec, minRequests and share.
export function createCut ({ overMs, rule = CUT }) {
  const { minSec, minRequests, share } = rule
  const minMs = minSec * 1000
  let sent = 0
  let over = 0 // ended past the target, or counted while still out past it
  let atMs = null
  let lastDue = 0 // the due time of the request sent last
  let due = [] // the due times sent, in order, not yet older than the target
  let head = 0
  const ended = new Set() // due times in `due` whose request ended (judged on its own)
  const countedOut = new Set() // due times counted over while still out: not counted again when they end
  return {
    onResponse (e) {
      if (countedOut.delete(e.dueMs)) return
      if (e.dueMs >= oldest()) ended.add(e.dueMs)
      if (e.latencyMs > overMs) over++ // a timeout at its timeout, as the step's histogram counts it
    },
    until (next) {
      if (atMs !== null) return true
      // the schedule asks for the next due time once the last one was sent: the clock has passed that one
      const now = lastDue
      // every request due before now − overMs and still out is over the target
      while (head < due.length && due[head] < now - overMs) {
        const d = due[head++]
        if (!ended.delete(d)) {
          countedOut.add(d)
          over++
        }
      }
      if (head > COMPACT_AT && head * 2 > due.length) {
        due = due.slice(head)
        head = 0
      }
      if (now >= minMs && sent >= minRequests && over >= share * sent) {
        atMs = now
        return true
      }
      due.push(next)
      lastDue = next
      sent++
      return false
    },
    figures () {
      return atMs === null ? null : { atSec: Math.round(atMs) / 1000, sent, over }
    }
  }

  // The due time from which requests are still tracked (older ones were passed by the target).
  function oldest () {
    return head < due.length ? due[head] : Infinity
  }
}
