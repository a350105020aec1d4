// The decision's command, started by hand as printed, serves the work: each CPU server with its setting and
// its shedding flags. The decision on a real quick capacity run (two targets, a tuned setting, --confirm):
// capacity.test.js.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { startCommand } from '../../helpers/command.js'
import { decide } from '../../../loadtest/result/decision.js'
import { expectedBody } from '../../../servers/lib/workloads.js'

// A probe's overload block as run/round/past-capacity.js keeps it: goodput at 1.5 and 2 × C, recovery (s).
function probed (variant, flags, [g15, g2], recoverySec) {
  const steps = [{ multiple: 1.5, goodputShare: g15, shedShare: 0 }, { multiple: 2, goodputShare: g2, shedShare: 0 }]
  const ms = recoverySec * 1000
  const recovery = { ms, metastable: false, burstEndMs: 5000, observedMs: 5000 + ms + 3000 }
  return { variant, label: 'as swept', shedding: flags.join(' '), flags, overload: { steps, recovery } }
}

test('decision.command, started by hand as printed, serves the work: each CPU server with its setting and shedding flags', async (t) => {
  const work = 'loop:1e5'
  const swept = (server, setting, shedding) => {
    const key = `${server}${setting ? `[${setting[0].slice(2)}=${setting[1]}]` : ''}@${work}#capacity`
    const target = { sloMs: 100, rps: 80, bracket: { pass: 80, fail: 84 }, bound: 'refined' }
    // as swept collapses and the shedding setting keeps (its command is the one chosen); none: as swept keeps
    const past = shedding
      ? [probed(null, [], [0, 0], 44), probed('shedding', shedding, [0.9, 0.9], 0)]
      : [probed(null, [], [0.9, 0.9], 0)]
    const capacity = { sloMs: 100, capacity: target, targets: [target] }
    const args = ['--work', work, ...(setting ?? [])]
    const ok = { status: 'ok', trusted: true, untrusted: [] }
    return { kind: 'http', key, server, variant: null, work, args, ...ok, capacity, pastCapacity: past }
  }
  const cases = [
    swept('simple', null, ['--shed-loop-delay', '60']),
    swept('cluster', ['--workers', '2'], ['--shed-loop-delay', '60']),
    swept('queued-threads', ['--threads', '2'], ['--deadline', 'auto', '--slo', '100']),
    swept('child-process', null, null),
    swept('worker-per-request', null, null),
    swept('cluster-threads', ['--workers', '1'], null)
  ]
  for (const r of cases) {
    const d = decide({ machine: {}, results: [r] })
    assert.equal(d.command, ['node', `servers/${r.server}`, ...r.args, ...r.pastCapacity.at(-1).flags].join(' '))
    const { url, child } = await startCommand(d.command)
    t.after(() => child.exitCode === null && child.kill('SIGKILL'))
    const res = await fetch(`${url}/`)
    assert.equal(res.status, 200, d.command)
    assert.equal(await res.text(), expectedBody(work), `${d.command}: the work's body`)
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
})
