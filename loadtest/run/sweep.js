// Capacity: the highest offered rate a strategy holds with p99 (from the due time) under a target and
// no failed request. The sweep offers open-loop rates as fractions of the calibrated ideal
// (cores / service time), stops one step after the first that fails, bisects between the last passing
// and the first failing rate, then offers 1.2 × the capacity to show what happens past it.
import { holds } from '../result/capacity.js'

// Coarse steps, as fractions of the ideal rate.
export const FRACTIONS = [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0, 1.15, 1.3, 1.5]
// The default p99 target: this many service times.
export const SLO_SERVICE_MULTIPLE = 5
// The step past capacity: this multiple of it.
export const OVERLOAD = 1.2
// Bisection stops when the interval is narrower than this share of its upper end.
const PRECISION = 0.02

// The p99 target for a service time: --slo when given, else SLO_SERVICE_MULTIPLE service times.
export function sloFor (serviceMs, sloMs = null) {
  if (sloMs) return { sloMs, rule: `--slo ${sloMs} ms` }
  if (!(serviceMs > 0)) return { sloMs: null, rule: 'no calibration: no target' }
  return {
    sloMs: SLO_SERVICE_MULTIPLE * serviceMs,
    rule: `${SLO_SERVICE_MULTIPLE} × the calibrated service time (${serviceMs} ms)`
  }
}

// A sweep over rates for one server: next(history) → the next rate to offer (null: done), where history
// is [{ rate, figures }] of the steps so far. describe() says how the rates are chosen.
export function createSweep ({ serviceMs, cores, sloMs = null, fractions = FRACTIONS, refine = 3 }) {
  const slo = sloFor(serviceMs, sloMs)
  const idealRps = serviceMs > 0 ? (cores / serviceMs) * 1000 : null
  const kinds = [] // the kind of each rate handed out: coarse, refine, over
  let lo = 0
  let hi = null
  let refinesLeft = refine
  let phase = 'coarse'
  const give = (kind, rate) => {
    kinds.push(kind)
    return rate
  }
  return {
    kinds,
    describe () {
      return {
        idealRps,
        serviceMs,
        cores,
        sloMs: slo.sloMs,
        sloRule: slo.rule,
        fractions,
        refine,
        overload: OVERLOAD,
        rule:
          `open-loop steps at ${fractions.map((f) => `${Math.round(f * 100)}%`).join(', ')} of the ideal ` +
          '(cores / service time), stopping one step after the first that fails; then up to ' +
          `${refine} bisections between the last passing and the first failing rate (until within ` +
          `${PRECISION * 100}%); then one step at ${OVERLOAD} × the capacity. A step holds when its p99 from the due ` +
          'time is within the target and every request was answered 2xx with the expected body.'
      }
    },
    next (history) {
      if (idealRps === null || slo.sloMs === null) return null
      const steps = history.map((h, i) => ({ rate: h.rate, kind: kinds[i], pass: holds(h.figures, slo.sloMs) }))
      const last = steps.at(-1)
      if (phase === 'coarse') {
        const coarse = steps.filter((s) => s.kind === 'coarse')
        const firstFail = coarse.findIndex((s) => !s.pass)
        const pastFail = firstFail >= 0 && firstFail < coarse.length - 1
        if (coarse.length < fractions.length && !pastFail) return give('coarse', fractions[coarse.length] * idealRps)
        const failRate = firstFail >= 0 ? coarse[firstFail].rate : null
        const passing = coarse.filter((s) => s.pass && (failRate === null || s.rate < failRate)).map((s) => s.rate)
        lo = passing.length ? Math.max(...passing) : 0
        hi = failRate
        phase = 'refine'
      } else if (phase === 'refine' && last?.kind === 'refine') {
        if (last.pass) lo = last.rate
        else hi = last.rate
      }
      if (phase === 'refine') {
        if (hi !== null && refinesLeft > 0 && (hi - lo) / hi > PRECISION) {
          refinesLeft--
          return give('refine', (lo + hi) / 2)
        }
        phase = 'over'
        if (lo > 0) return give('over', lo * OVERLOAD)
      }
      return null
    }
  }
}
