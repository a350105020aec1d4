// Ctrl-C and kill -9 of the lab: SIGINT stops within seconds, writes a partial report and leaves no
// server process; after SIGKILL the servers notice the closed IPC channel and exit by themselves.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import pWaitFor from 'p-wait-for'
import { startLab, readReport, tempDir, descendants, alive, cmdline } from '../helpers/lab.js'

// The process group of a pid (/proc/PID/stat field 5, after the command in parentheses).
const processGroup = (pid) => Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ')[2])

// Start a long lab run and resolve once it reports that the measured round is under way (`env` beside
// LOADLAB_PROGRESS).
async function labInMeasuredRound (server, out, env = {}) {
  const lab = startLab(
    [
      '--server',
      server,
      '--work',
      'sleep:200',
      '--connections',
      '2',
      '--amount',
      '2000',
      '--warmup',
      '0',
      '--out',
      out.dir
    ],
    { env: { LOADLAB_PROGRESS: '1', ...env }, buffer: false }
  )
  let stderr = ''
  lab.stderr.setEncoding('utf8')
  lab.stderr.on('data', (c) => {
    stderr += c
  })
  lab.stdout.resume()
  await pWaitFor(() => /: measuring/.test(stderr) || lab.exitCode !== null, { interval: 50, timeout: 60000 })
  assert.equal(lab.exitCode, null, `the lab is still running: ${stderr}`)
  const servers = descendants(lab.pid).filter((pid) => cmdline(pid).includes(`servers/${server}`))
  assert.ok(servers.length >= 1, `the server runs under the lab: ${descendants(lab.pid).map(cmdline).join(' | ')}`)
  const tree = [...new Set([...servers, ...servers.flatMap(descendants)])]
  return { lab, tree, stderr: () => stderr }
}

test(
  'SIGINT mid-run: exits 130 within seconds, partial report written (its ruler\'s start, no end), no server left',
  { timeout: 90000 },
  async () => {
    const out = await tempDir()
    try {
      // the ruler on (the suite's runs read none: test/run.js): the start reading is kept, the end not read
      const { lab, tree, stderr } = await labInMeasuredRound('cluster', out, { LOADLAB_RULER: '' })
      const sentAt = Date.now()
      lab.kill('SIGINT')
      const [code] = await once(lab, 'exit')
      const tookMs = Date.now() - sentAt
      assert.equal(code, 130, stderr())
      // the round had 2,000 requests of 200 ms on 2 connections, 200 s, left: cut short, not waited out (what
      // the stop and the report take is the machine's: 19 s at load 15)
      assert.ok(tookMs < 60000, `stopped in ${tookMs} ms`)
      for (const pid of tree) assert.equal(alive(pid), false, `server process ${pid} is gone`)
      const { json, files } = await readReport(out.dir)
      assert.equal(files.length, 3, `json, md and html: ${files}`)
      assert.equal(json.status, 'partial')
      assert.ok(json.notes.some((n) => /interrupted/.test(n)))
      assert.ok(json.ruler.start.cores.offered >= 1)
      assert.deepEqual([json.ruler.end, json.ruler.drift, json.ruler.moved], [null, [], false])
      assert.match(stderr(), /^ruler \(start\): reading the machine …\nruler \(start\): \d+ cores offered/m, 'said as it is read')
      const res = json.results[0]
      assert.equal(res.server, 'cluster')
      assert.equal(res.interrupted, true)
      assert.equal(res.trusted, false)
      assert.ok(res.requests.sent < 2000, 'the round was cut short')
      assert.deepEqual(res.stop.leftovers, [])
    } finally {
      await out.cleanup()
    }
  }
)

test('SIGKILL of the lab: its servers exit by themselves', { timeout: 90000 }, async (t) => {
  const out = await tempDir()
  t.after(() => out.cleanup())
  const { lab, tree } = await labInMeasuredRound('cluster-threads', out)
  assert.ok(tree.length >= 2, `a primary and its workers: ${tree.join(', ')}`)
  lab.kill('SIGKILL')
  await once(lab, 'exit')
  await pWaitFor(() => tree.every((pid) => !alive(pid)), { interval: 100, timeout: 20000 }).catch(() => {
    const left = tree.filter(alive)
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    }
    assert.fail(`server processes left after the lab was killed: ${left.join(', ')}`)
  })
})

test('Ctrl-C to the whole process group (a terminal): a clean partial result, the server not hit (item 2)', async (t) => {
  const out = await tempDir()
  t.after(out.cleanup)
  const args = ['--server', 'simple', '--work', 'sleep:50', '--duration', '20', '--connections', '2', '--warmup', '0']
  // detached: the lab leads its own process group, as a shell's job does (the issue's `setsid`).
  const lab = startLab([...args, '--out', out.dir], { env: { LOADLAB_PROGRESS: '1' }, buffer: false, detached: true })
  let stderr = ''
  lab.stderr.setEncoding('utf8').on('data', (c) => {
    stderr += c
  })
  lab.stdout.resume()
  await pWaitFor(() => /: measuring/.test(stderr) || lab.exitCode !== null, { interval: 50, timeout: 60000 })
  const servers = descendants(lab.pid).filter((pid) => cmdline(pid).includes('servers/simple'))
  assert.equal(servers.length, 1, 'the server runs under the lab')
  assert.notEqual(processGroup(servers[0]), processGroup(lab.pid), 'the server has its own process group')
  // interrupted once the progress says some were answered (a starved server may answer none in its first
  // second): what was said done is in the report
  let done = 0
  await pWaitFor(() => {
    done = Math.max(0, ...[...stderr.matchAll(/ · (\d+) done · /g)].map((m) => Number(m[1])))
    return done > 0 || lab.exitCode !== null
  }, { interval: 50, timeout: 60000 })
  process.kill(-lab.pid, 'SIGINT')
  const [code] = await once(lab, 'exit')
  assert.equal(code, 130, stderr)
  const { json } = await readReport(out.dir)
  assert.equal(json.status, 'partial')
  const [r] = json.results
  assert.equal(r.status, 'ok', `not failed: ${JSON.stringify(r.failure)}`)
  assert.equal(r.interrupted, true)
  assert.equal(r.requests.errors, 0, 'no connection errors: the server did not take the signal')
  assert.equal(r.requests.non2xx, 0, JSON.stringify(r.statusCodes))
  assert.ok(r.requests.ok >= done && done > 0, `${r.requests.ok} ok, ${done} said done`)
})
