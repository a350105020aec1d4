// --slo as a list, --tune NAME=V1,V2,… (loadtest/tune.js) and --confirm: what parses, and each refusal in
// one line with exit 2.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseOptions } from '../../loadtest/options.js'
import { TUNABLE, parseTune, tuneArgs } from '../../loadtest/tune.js'

function refused (argv, why) {
  assert.throws(() => parseOptions(argv), (err) => {
    assert.equal(err.exitCode, 2, `${argv.join(' ')}: ${err.stack}`)
    assert.match(err.message, why)
    assert.doesNotMatch(err.message, /\n/)
    return true
  }, argv.join(' '))
}
const cap = ['--experiment', 'capacity']

test('--slo takes a strictly increasing list of positive numbers; the first is --slo of one-target readers', () => {
  const o = parseOptions([...cap, '--slo', '100,250,1000'])
  assert.deepEqual(o.slos, [100, 250, 1000])
  assert.equal(o.slo, 100)
  assert.deepEqual(parseOptions([...cap, '--slo', '50']).slos, [50])
  assert.equal(parseOptions(cap).slos, null, 'no --slo: the experiment chooses its targets')
  refused([...cap, '--slo', '100,50'], /^--slo: targets must be strictly increasing, got 100 then 50/)
  refused([...cap, '--slo', '100,100'], /strictly increasing/)
  refused([...cap, '--slo', '100,,400'], /^--slo: expected a number/)
  refused([...cap, '--slo', '0,5'], /^--slo: expected a number from 0\.1/)
  refused([...cap, '--slo', '-5'], /^--slo: expected a number/)
  refused([...cap, '--slo', '1,2,3,4,5,6,7,8,9'], /at most 8 targets/)
})

test('--tune: values per setting, defaults with piscina\'s 1.5 × cores, inf for max-queue only; refused where it does not apply', () => {
  const q = ['--server', 'queued-threads']
  assert.deepEqual(parseOptions([...cap, ...q, '--tune', 'threads=1,2,3']).tune, { name: 'threads', flag: '--threads', values: [1, 2, 3] })
  assert.deepEqual(parseOptions([...cap, ...q, '--tune', 'max-queue=4,inf']).tune.values, [4, 'inf'])
  // --max-queue 0 (never wait) is a setting like any other; below 0 is refused with the range
  assert.deepEqual(parseOptions([...cap, ...q, '--tune', 'max-queue=0,4']).tune.values, [0, 4])
  refused([...cap, ...q, '--tune', 'max-queue=-1'], /^--tune max-queue: expected whole numbers from 0 to 256 or inf, comma-separated, got "-1"/)
  assert.deepEqual(parseOptions([...cap, '--server', 'cluster,cluster-threads', '--tune', 'workers=1,4']).tune.values, [1, 4])
  assert.deepEqual(parseTune('threads', { servers: ['queued-threads'], cores: 2 }).values, [1, 2, 3])
  assert.deepEqual(parseTune('threads', { servers: ['queued-threads'], cores: 8 }).values, [4, 8, 12], 'piscina: 1.5 × 8')
  const qp = ['--server', 'queued-processes']
  assert.deepEqual(parseOptions([...cap, ...qp, '--tune', 'processes=1,2,4']).tune, { name: 'processes', flag: '--processes', values: [1, 2, 4] })
  assert.deepEqual(parseTune('processes', { servers: ['queued-processes'], cores: 2 }).values, [1, 2, 3])
  assert.deepEqual(parseOptions([...cap, ...qp, '--tune', 'max-queue=2,inf']).tune.values, [2, 'inf'])
  refused([...cap, ...qp, '--tune', 'processes=65'], /^--tune processes: expected whole numbers from 1 to 64, comma-separated, got "65"/)
  refused([...cap, ...q, '--tune', 'processes=2'], /^--tune processes: applies to queued-processes only \(not to queued-threads\)$/)
  assert.deepEqual(tuneArgs({ flag: '--max-queue' }, 'inf'), [], 'unbounded: the flag left out')
  assert.deepEqual(tuneArgs({ flag: '--threads' }, 3), ['--threads', '3'])
  refused([...cap, '--server', 'simple,queued-threads', '--tune', 'threads=1,2'], /^--tune threads: applies to queued-threads only \(not to simple\)$/)
  refused([...cap, '--tune', 'threads=1,2'], /applies to queued-threads only \(give --server\)/)
  refused([...cap, '--server', 'cluster', '--tune', 'threads=1'], /not to cluster/)
  refused([...cap, ...q, '--tune', 'threads=inf'], /^--tune threads: expected whole numbers from 1 to 256, comma-separated, got "inf"/)
  refused([...cap, ...q, '--tune', 'threads=0'], /got "0"/)
  refused([...cap, '--server', 'cluster', '--tune', 'workers=256'], /^--tune workers: expected whole numbers from 1 to 16, comma-separated, got "256"/)
  refused([...cap, ...q, '--tune', 'threads=2,2'], /a value given twice/)
  refused([...cap, ...q, '--tune', 'pool=2'], /^--tune: unknown setting `pool`; allowed: threads, processes, workers, max-queue/)
  refused([...cap, ...q, '--tune', '=2'], /^--tune: expected NAME=V1,V2/)
  refused(['--server', 'queued-threads', '--tune', 'threads=1'], /^--tune goes with --experiment capacity/)
  for (const [name, t] of Object.entries(TUNABLE)) assert.ok(t.flag === `--${name}`, `${name}: the server flag of the same name`)
})

test('--confirm is a flag of the capacity experiment', () => {
  assert.equal(parseOptions([...cap, '--confirm']).confirm, true)
  assert.equal(parseOptions(cap).confirm, false)
  refused(['--server', 'simple', '--confirm'], /^--confirm goes with --experiment capacity/)
})

test('--tune plans one capacity sweep per value, the setting in its key and its server arguments; later sweeps seeded', async () => {
  const { planLab } = await import('../../loadtest/lab.js')
  const { seededFractions } = await import('../../loadtest/experiments/capacity.js')
  const lab = await planLab(parseOptions([...cap, '--quick', '--server', 'queued-threads', '--tune', 'max-queue=2,inf', '--slo', '100,400']))
  assert.deepEqual(lab.plan.map((e) => e.setting), [{ name: 'max-queue', value: 2 }, { name: 'max-queue', value: 'inf' }])
  assert.deepEqual(lab.plan.map((e) => e.args.slice(2)), [['--max-queue', '2'], []], 'inf: the server\'s unbounded default')
  const sweep = lab.plan[1].sweep({ serviceMs: 10, cores: 2, seed: { pass: 50, fail: 55 } }).describe()
  assert.deepEqual(sweep.targetsMs, [100, 400])
  assert.deepEqual(sweep.fractions, seededFractions({ pass: 50 }, { serviceMs: 10, cores: 2 }))
  assert.equal(Math.round(sweep.fractions[0] * 200), 30, 'the first seeded step at 0.6 × the previous capacity')
  assert.equal(seededFractions({ pass: null, fail: 4 }, { serviceMs: 10, cores: 2 }), null, 'no capacity: the default steps')
})
