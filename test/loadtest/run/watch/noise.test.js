// Noise seen: steal and busy cores from /proc/stat texts, the noise figures of a round, and a real round
// with a CPU hog beside it marked disturbed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { once } from 'node:events'
import {
  busyCores, noiseOf, parsePidStat, parseProcStat, readMachine, readProcesses, stealPercent, topConsumers
} from '../../../../loadtest/run/watch/noise.js'
import { disturbances as disturbanceCodes, nearLimits as nearCodes } from '../../../../loadtest/result/trust.js'
import { TRUST } from '../../../../loadtest/result/rules.js'
import { reasonText } from '../../../../loadtest/text/reasons.js'
import { readReport, runLab, tempDir } from '../../../helpers/lab.js'

// The rules' codes in words, as a report says them (text/reasons.js).
const disturbances = (fig) => disturbanceCodes(fig).map(reasonText)
const nearLimits = (noise) => nearCodes(noise).map(reasonText)

// Two /proc/stat texts 1 s apart on a 2-core guest (100 ticks a second): 50 ticks of steal out of 200.
const BEFORE = 'cpu  1000 10 500 8000 40 0 20 100 0 0\ncpu0 500 5 250 4000 20 0 10 50 0 0\nintr 1 2 3\n'
const AFTER = 'cpu  1060 10 520 8050 50 0 30 150 7 0\ncpu0 530 5 260 4030 25 0 15 75 3 0\nintr 4 5 6\n'

test('noise: steal and busy cores from /proc/stat texts', () => {
  const a = parseProcStat(BEFORE)
  const b = parseProcStat(AFTER)
  assert.deepEqual(a, { busy: 1530, idle: 8040, steal: 100, total: 9670, kernel: 20 })
  assert.equal(stealPercent(a, b), 25, '50 ticks of steal in 200')
  assert.equal(busyCores(a, b, { wallMs: 1000, clockTicks: 100 }), 0.9, '90 busy ticks in 1 s (guest is inside user)')
  assert.equal(parseProcStat('intr 1 2 3\n'), null, 'no cpu line')
  assert.equal(parseProcStat('cpu  a b c d\n'), null, 'not numbers')
  assert.equal(stealPercent(a, null), null)
  assert.equal(readMachine(() => { throw Object.assign(new Error('no /proc'), { code: 'ENOENT' }) }), null, 'null where there is no /proc')
})

test('noise: foreign cores are the busy cores the lab, the server and the kernel did not use; work inflation against the calibration', () => {
  const [start, end] = [parseProcStat(BEFORE), parseProcStat(AFTER)]
  const at = { start, end, wallMs: 1000, clockTicks: 100 }
  const cpu = { labCpuSeconds: 0.2, serverCpuSeconds: 0.3, workMs: 15, serviceMs: 10, cores: 2 }
  const n = noiseOf({ ...at, ...cpu, workSumMs: 600 })
  // 90 busy ticks: 10 of them softirq (the kernel's), 50 the lab's and the server's, 30 other processes'
  assert.deepEqual(n, {
    stealPct: 25,
    foreignCores: 0.3,
    kernelCores: 0.1,
    foreign: null,
    workInflation: 1.5,
    workAgainst: 'warm',
    inFlight: 0.6,
    treeCores: 0.3,
    labCores: 0.2,
    cores: 2
  })
  const quiet = noiseOf({ ...at, labCpuSeconds: 0.5, serverCpuSeconds: 0.5, workMs: null, serviceMs: 10 })
  assert.equal(quiet.foreignCores, 0, 'never below 0 (clock ticks round)')
  assert.equal(quiet.workInflation, null, 'no Server-Timing, no inflation')
  const why = disturbances({ noise: n })
  assert.equal(why.length, 3, `0.6 units at once on a tree using 0.3 core: the slow work is interference (${why.join('; ')})`)
  const own = noiseOf({ ...at, ...cpu, workSumMs: 4000 })
  assert.equal(own.inFlight, 4, 'Little\'s law: 4 s of work in 1 s')
  assert.equal(disturbances({ noise: own }).length, 2, '4 units at once on 2 cores: the slow work is its own')
  assert.deepEqual(disturbances({ noise: { stealPct: 1, foreignCores: 0.1, workInflation: 1.1 } }), [])
  assert.ok(TRUST.foreignCores > 0 && TRUST.stealPct > 0)
})

test('noise: a hair over a limit is named, not a verdict; past the band it disturbs', () => {
  const hair = TRUST.foreignCores * (1 + TRUST.nearLimit / 2) // 0.21 cores against 0.2
  assert.deepEqual(disturbances({ noise: { foreignCores: hair } }), [])
  assert.deepEqual(nearLimits({ foreignCores: hair }), [`foreignCores ${hair} within ${TRUST.nearLimit * 100} % over its limit 0.2`])
  const clear = TRUST.foreignCores * (1 + TRUST.nearLimit * 2)
  assert.equal(disturbances({ noise: { foreignCores: clear } }).length, 1)
  assert.deepEqual(nearLimits({ foreignCores: clear }), [])
})

test('noise: the other processes named by /proc/PID/stat, leaving out the lab, the server tree and its children', () => {
  const stat = (pid, name, ppid, utime, stime) => `${pid} (${name}) S ${ppid} 1 1 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 100`
  assert.deepEqual(parsePidStat(stat(7, 'tmux: server (1)', 1, 30, 5)), { pid: 7, name: 'tmux: server (1)', ppid: 1, ticks: 35 })
  assert.equal(parsePidStat('garbage'), null)
  const read = (rows) => new Map(rows.map((r) => [r[0], parsePidStat(stat(...r))]))
  const before = read([[10, 'node', 1, 100, 0], [11, 'npm', 1, 50, 0], [20, 'node', 1, 0, 0], [30, 'sshd', 1, 5, 0]])
  // 1 s: another node used 120 ticks (two processes), npm 30, the server (20) and its fork (21) are ours
  const after = read([[10, 'node', 1, 190, 0], [11, 'npm', 1, 80, 0], [12, 'node', 1, 30, 0], [20, 'node', 1, 90, 0],
    [21, 'node', 20, 40, 0], [30, 'sshd', 1, 5, 0]])
  const top = topConsumers(before, after, { wallMs: 1000, clockTicks: 100, exclude: new Set([20]) })
  assert.deepEqual(top, [{ name: 'node', cores: 1.2, processes: 2 }, { name: 'npm', cores: 0.3, processes: 1 }])
  const why = disturbances({ noise: { foreignCores: 1.5, foreign: top } })
  assert.deepEqual(why, ['other processes used 1.5 cores > 0.2 (node 1.2, npm 0.3)'])
  assert.deepEqual(topConsumers(before, new Map(), { wallMs: 1000 }), [])
  const none = readProcesses({ readdir: () => { throw new Error('no /proc') } })
  assert.equal(none.size, 0, 'empty where there is no /proc')
})

test('noise: a strategy that starts a process per request is held against its cold calibration: its inflation is its own', () => {
  const n = { workInflation: 2, workAgainst: 'cold process', cores: 2, inFlight: 0.5, treeCores: 0.5, labCores: 0.1 }
  assert.deepEqual(disturbances({ noise: n }), [], 'a fresh process slower than its cold calibration, nothing else busy: its own')
  assert.deepEqual(disturbances({ noise: { ...n, workAgainst: 'cold thread', workInflation: 1.35 } }), [])
  assert.deepEqual(disturbances({ noise: { ...n, workAgainst: 'warm' } }),
    ['the work ran 2 × its calibrated time > 1.3 × with 0.5 at once on 2 cores'], 'an inline strategy with the same figures: disturbed')
  assert.deepEqual(disturbances({ noise: { ...n, foreignCores: 0.9 } }), ['other processes used 0.9 cores > 0.2'],
    'other processes still disturb it')
})

test('noise: a CPU hog beside a real round marks it disturbed with foreign cores', { skip: !existsSync('/proc/stat') && 'no /proc' }, async (t) => {
  const { dir, cleanup } = await tempDir()
  t.after(cleanup)
  // A bounded hog: it spins at most 30 s, and the test ends it by its pid as soon as the round is over.
  const hog = spawn(process.execPath, ['-e', 'const end = Date.now() + 30000; while (Date.now() < end);'], { stdio: 'ignore' })
  const exited = once(hog, 'exit')
  t.after(async () => {
    if (hog.exitCode === null && hog.signalCode === null) process.kill(hog.pid, 'SIGKILL')
    await exited
  })
  // The lab in its own process, as a user runs it: the lab leaves out its own children (its
  // calibration, its servers) from the other processes, and a hog started by the lab's process would be one.
  const run = await runLab([
    '--server', 'simple', '--work', 'loop:1e6', '--rate', '40', '--duration', '2', '--warmup', '5', '--out', dir
  ])
  // The hog's own name as /proc gives it while it ran (the binary's name, 'node' under Node 20; Node 24
  // names its main thread 'MainThread' once started, so a name read at its spawn is not the one the lab saw).
  const hogName = parsePidStat(readFileSync(`/proc/${hog.pid}/stat`, 'utf8')).name
  process.kill(hog.pid, 'SIGTERM')
  await exited
  assert.equal(run.exitCode, 0, run.stderr)
  const { json } = await readReport(dir)
  const [r] = json.results
  assert.equal(r.status, 'ok')
  assert.equal(typeof r.noise.stealPct, 'number')
  assert.ok(r.noise.foreignCores > TRUST.foreignCores, `the hog seen: ${r.noise.foreignCores} foreign cores`)
  assert.equal(typeof r.noise.workInflation, 'number', 'Server-Timing against the calibration')
  assert.equal(r.disturbed, true)
  assert.equal(r.trusted, false)
  assert.ok(r.untrusted.some((x) => /^disturbed: .*other processes used/.test(x)), r.untrusted.join('; '))
  assert.ok(r.noise.foreign.some((p) => p.name === hogName && p.cores > TRUST.foreignCores),
    `the hog named (${hogName}): ${JSON.stringify(r.noise.foreign)}`)
})
