// /proc sampling on real processes: a child shows up in the tree with its CPU, RSS and threads, and
// is gone (not alive) once it has exited.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execa } from 'execa'
import pWaitFor from 'p-wait-for'
import { isAlive, processTree, readStat, sampleTree, startSampler } from '../../loadtest/run/watch/sample.js'

test(
  'sampleTree sees a spinning child: processes, CPU, RSS, threads; isAlive follows its exit',
  { timeout: 30000 },
  async () => {
    const child = execa(process.execPath, ['-e', 'const end = Date.now() + 60000; while (Date.now() < end) {}'], {
      env: { ...process.env },
      reject: false,
      stdin: 'ignore'
    })
    try {
      await pWaitFor(() => processTree(process.pid).some((s) => s.pid === child.pid), { interval: 20, timeout: 10000 })
      const sampler = startSampler(process.pid, { intervalMs: 50 })
      await pWaitFor(() => (readStat(child.pid)?.cpuSeconds ?? 0) >= 0.2, { interval: 50, timeout: 20000 })
      const round = sampler.stop()
      assert.ok(round.cpuSeconds >= 0.1, `tree CPU counted: ${round.cpuSeconds}`)
      assert.ok(round.peakProcesses >= 2, 'this process and the child')
      assert.ok(round.peakThreads >= 2 && round.peakRssBytes > 0)
      assert.ok(round.samples.length >= 2)
      assert.ok([...sampler.seen.values()].some((m) => m.pid === child.pid))
      const s = sampleTree(process.pid)
      const member = s.members.find((m) => m.pid === child.pid)
      assert.ok(member && isAlive(member))
      child.kill('SIGKILL')
      await child
      assert.equal(isAlive(member), false)
      assert.equal(
        isAlive({ pid: process.pid, startTime: member.startTime }),
        false,
        'a pid with another start time is another process'
      )
    } finally {
      child.kill('SIGKILL')
      await child
    }
  }
)
