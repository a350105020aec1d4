// Shards of a plan with a request mix merge to the same per-class counts as the plan run unsplit: the
// class of request i comes from the seed and i alone (run/generate/classes.js), whichever shard sends it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { ROOT, shardStartAt, startLab, tempDir } from '../../helpers/lab.js'
import { TWO_CLASSES, startOwnService } from '../../helpers/own-service.js'

const MERGE = join(ROOT, 'loadtest', 'merge', 'cli.js')

async function jsonFiles (dir) {
  return (await readdir(dir)).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f))
}

const perClass = (r) => r.classes.map((c) => [c.name, c.requests.sent, c.requests.ok, c.latency.count])

test('shards with a mix merge to the same per-class counts as one unsplit run', { timeout: 240000 }, async (t) => {
  const service = await startOwnService()
  const shards = await tempDir()
  const whole = await tempDir()
  const merged = await tempDir()
  t.after(async () => {
    await service.stop()
    await Promise.all([shards.cleanup(), whole.cleanup(), merged.cleanup()])
  })
  const plan = ['--url', `${service.url}/api`, '--mix', TWO_CLASSES, '--rate', '150', '--amount', '240', '--seed', '9',
    '--warmup', '0']
  // two lab processes on a busy machine take seconds to be ready
  const startAt = await shardStartAt()
  const shard = (i) => startLab([...plan, '--shard', `${i}/2`, '--start-at', startAt, '--out', shards.dir])
  // the unsplit run meanwhile, while the shards wait for their start: which class request i is does not depend
  // on when it is sent, and every request is answered at this rate whatever runs beside it
  const [unsplit, ...runs] = await Promise.all([startLab([...plan, '--out', whole.dir]), shard(1), shard(2)])
  for (const r of runs) assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(unsplit.exitCode, 0, unsplit.stderr)
  const m = await execa(process.execPath, [MERGE, ...(await jsonFiles(shards.dir)), '--out', merged.dir], { cwd: ROOT, reject: false })
  assert.equal(m.exitCode, 0, m.stderr)
  const read = async (dir) => JSON.parse(await readFile((await jsonFiles(dir))[0], 'utf8')).results[0]
  const [one, sum] = [await read(whole.dir), await read(merged.dir)]
  assert.equal(one.requests.sent, 240)
  assert.equal(one.requests.ok, 240, 'every request answered: the counts compare whole')
  assert.deepEqual(perClass(sum), perClass(one))
  assert.ok(one.classes.every((c) => c.requests.sent > 0))
})
