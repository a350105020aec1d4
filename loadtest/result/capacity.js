// A capacity sweep's verdicts: whether a step held the target, and the capacity its steps show. Pure;
// run/sweep.js chooses the rates, result/build.js reports the outcome.

// Did a step (its round figures) hold the target: p99 ≤ sloMs and every request answered 2xx and verified.
export function holds (fig, sloMs) {
  const q = fig.requests
  const clean = q.errors === 0 && q.timeouts === 0 && q.non2xx === 0 && q.mismatches === 0 && q.unanswered === 0
  return clean && q.completed > 0 && fig.latency.p99 !== null && fig.latency.p99 <= sloMs
}

// The capacity found by a finished sweep: the highest passing rate below the lowest failing rate of
// the coarse and refine steps (the step past capacity is reported apart, as `over`).
export function capacityOf (steps, { sloMs, idealRps }) {
  const measured = steps.filter((s) => s.kind !== 'over')
  const failing = measured.filter((s) => !s.pass).map((s) => s.rate)
  const ceiling = failing.length ? Math.min(...failing) : Infinity
  const passing = measured.filter((s) => s.pass && s.rate < ceiling)
  const best = passing.length ? passing.reduce((a, b) => (b.rate > a.rate ? b : a)) : null
  const over = steps.find((s) => s.kind === 'over') ?? null
  return {
    sloMs,
    rps: best?.rate ?? 0,
    // 'at least': no step failed, the real capacity is above the highest rate offered
    bound: best === null ? 'below the lowest rate offered' : failing.length ? 'refined' : 'at least',
    ratioToIdeal: best && idealRps ? best.rate / idealRps : null,
    p99: best?.p99 ?? null,
    step: best?.index ?? null,
    over
  }
}
