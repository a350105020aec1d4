// The Kubernetes example (examples/kubernetes/loadlab-shards.yml): an Indexed Job whose pods are the
// shards of one plan. Its container command runs here as written, once per completion index, against a
// local server (the plan made small through the env the manifest declares), and the shards merge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import yaml from 'js-yaml'
import { ROOT } from '../loadtest/catalog.js'
import { startServer } from './helpers/server.js'
import { shardStartAt, tempDir } from './helpers/lab.js'

const MANIFEST = join(ROOT, 'examples', 'kubernetes', 'loadlab-shards.yml')

test('the Kubernetes Indexed Job example: one shard per completion index, a common start, merged into the plan', async (t) => {
  const job = yaml.load(readFileSync(MANIFEST, 'utf8'))
  assert.equal(job.kind, 'Job')
  assert.equal(job.spec.completionMode, 'Indexed')
  const [container] = job.spec.template.spec.containers
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]))
  assert.equal(Number(env.SHARDS), job.spec.completions, 'SHARDS is the completion count')
  assert.equal(job.spec.parallelism, job.spec.completions, 'every shard runs at once')
  assert.equal(env.START_AT, '${START_AT}', 'the start time is passed in when the Job is created') // eslint-disable-line no-template-curly-in-string
  assert.deepEqual(container.command, ['bash', '-eo', 'pipefail', '-c'])
  assert.match(container.args[0], /--shard "\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)\/\$SHARDS" --start-at "\$START_AT"/)

  const server = await startServer('simple', ['--work', 'loop:100'])
  const dir = await tempDir()
  t.after(() => Promise.all([server.stop(), dir.cleanup()]))
  const script = container.args[0].replace('/tmp/reports', dir.dir)
  const small = { TARGET_URL: server.url, RATE: '300', DURATION: '1', SHARDS: '2' }
  // ahead as the fan-out sets it: two lab processes starting on a busy machine can take seconds to be ready
  // (a shard late past its start refuses)
  const startAt = await shardStartAt()
  const run = (index) => execa(container.command[0], [...container.command.slice(1), script], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...small, START_AT: startAt, JOB_COMPLETION_INDEX: String(index) },
    reject: false,
    stdin: 'ignore'
  })
  const pods = await Promise.all([run(0), run(1)])
  const files = []
  for (const [i, pod] of pods.entries()) {
    assert.equal(pod.exitCode, 0, pod.stderr)
    const report = JSON.parse(pod.stdout)
    assert.deepEqual(report.method.shard, { index: i + 1, count: 2 })
    files.push(join(dir.dir, `shard-${i}.json`))
    await writeFile(files[i], pod.stdout)
  }
  const merge = join(ROOT, 'loadtest', 'merge', 'cli.js')
  const merged = await execa(process.execPath, [merge, ...files, '--out', dir.dir], { reject: false })
  assert.equal(merged.exitCode, 0, merged.stderr)
  assert.match(merged.stderr, /^merged 2 shards: 300 requests/)
})
