// An experiment's settings have one source: a value in its defaults (or --quick's) is the value its
// plan uses. Each case changes one default and finds the change in the plan the lab makes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { planLab } from '../../../loadtest/lab.js'
import { parseOptions } from '../../../loadtest/options.js'
import { loadExperiment } from '../../../loadtest/experiments/index.js'
import { tempDir } from '../../helpers/lab.js'
import { cases as offloadCases } from '../../../loadtest/experiments/ssr-offload.js'

const cases = [
  [
    'heavy-cpu',
    'defaults',
    { work: 'loop:3e5' },
    (plan) => plan.every((e) => e.work === 'loop:3e5' && e.args.includes('loop:3e5'))
  ],
  ['heavy-cpu', 'quick', { work: 'loop:2e5' }, (plan) => plan.every((e) => e.work === 'loop:2e5')],
  [
    'sleep',
    'defaults',
    { delay: 7 },
    (plan) => plan.every((e) => /^sleep(-sync)?:7$/.test(e.work) && e.args.join(' ').includes('--delay 7'))
  ],
  [
    'long-vs-small',
    'defaults',
    { steps: 5, work: 'ssr:50' },
    (plan) => plan.every((e) => e.args.join(' ').includes('--steps 5') && e.work === 'ssr:50')
  ],
  ['tour', 'defaults', { work: 'fib:10' }, (plan) => plan.find((e) => e.server === 'simple').work === 'fib:10'],
  ['capacity', 'defaults', { work: 'loop:4e5' }, (plan) => plan.every((e) => e.work === 'loop:4e5')]
]

for (const [name, which, change, check] of cases) {
  test(`${name}: changing ${which} ${Object.keys(change).join(', ')} changes the plan`, async (t) => {
    const { dir, cleanup } = await tempDir()
    t.after(cleanup)
    const experiment = await loadExperiment(name)
    const argv = ['--experiment', name, '--out', dir, ...(which === 'quick' ? ['--quick'] : [])]
    const before = await planLab(parseOptions(argv))
    assert.equal(check(before.plan), false, 'the check fails on the unchanged plan, so it can tell')
    const saved = { ...experiment[which] }
    Object.assign(experiment[which], change)
    t.after(() => {
      for (const k of Object.keys(change)) delete experiment[which][k]
      Object.assign(experiment[which], saved)
    })
    const after = await planLab(parseOptions(argv))
    assert.equal(check(after.plan), true, JSON.stringify(after.plan.map((e) => [e.work, e.args, e.connections])))
  })
}

// ssr-offload runs in-process: its cases come from the settings the lab hands it (defaults, then --quick's).
for (const [which, change, check] of [
  ['defaults', { concurrencies: [3] }, (all) => all.every((c) => c.conc === 3)],
  ['quick', { scenarios: [{ demo: 'fib', args: '9', work: 'fib:9' }] }, (all) => all.every((c) => c.scenario.work === 'fib:9')]
]) {
  test(`ssr-offload: changing ${which} ${Object.keys(change).join(', ')} changes its cases`, async (t) => {
    const { dir, cleanup } = await tempDir()
    t.after(cleanup)
    const experiment = await loadExperiment('ssr-offload')
    const argv = ['--experiment', 'ssr-offload', '--out', dir, ...(which === 'quick' ? ['--quick'] : [])]
    const before = await planLab(parseOptions(argv))
    assert.equal(check(offloadCases(before.planOpts.settings)), false, 'the check fails on the unchanged settings')
    const saved = { ...experiment[which] }
    Object.assign(experiment[which], change)
    t.after(() => {
      for (const k of Object.keys(change)) delete experiment[which][k]
      Object.assign(experiment[which], saved)
    })
    const after = await planLab(parseOptions(argv))
    assert.equal(check(offloadCases(after.planOpts.settings)), true)
  })
}
