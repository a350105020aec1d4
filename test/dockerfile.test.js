// The Dockerfile (the image of examples/kubernetes/): no Docker engine runs here, so what can be checked
// is checked for real: every file it copies exists, and its install step on those files alone, in a
// folder of their own (npm ci --omit=dev, from npm's cache where it can), gives a lab that runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { cp, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import yaml from 'js-yaml'
import { ROOT } from '../loadtest/catalog.js'
import { tempDir } from './helpers/lab.js'

// The Dockerfile's instructions: [{ op, args }] (continuation lines joined, comments left out).
function instructions (text) {
  return text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/)
      return { op: op.toUpperCase(), args: rest }
    })
}

const steps = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
const copies = steps.filter((s) => s.op === 'COPY').map((s) => ({ from: s.args.slice(0, -1), to: s.args.at(-1) }))

test('the Dockerfile: a Node image, the lab\'s folder, every file it copies there, installed from the lockfile', () => {
  assert.match(steps[0].op === 'FROM' ? steps[0].args[0] : '', /^node:\d+(-slim)?$/)
  const job = yaml.load(readFileSync(join(ROOT, 'examples', 'kubernetes', 'loadlab-shards.yml'), 'utf8'))
  const [container] = job.spec.template.spec.containers
  assert.deepEqual(steps.find((s) => s.op === 'WORKDIR')?.args, [container.workingDir], 'the Job runs where the image has the lab')
  const sources = copies.flatMap((c) => c.from)
  for (const f of sources) assert.ok(existsSync(join(ROOT, f)), `COPY ${f}: no such file`)
  for (const { from, to } of copies) {
    assert.ok(to === './' || (from.length === 1 && from[0] === to), `COPY ${from.join(' ')} ${to}: to the same place in /lab`)
  }
  assert.ok(sources.includes('package-lock.json'), 'the lockfile is copied')
  const run = steps.filter((s) => s.op === 'RUN').map((s) => s.args.join(' '))
  assert.ok(run.some((r) => /^npm ci --omit=dev\b/.test(r)), run.join('; '))
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  assert.match(ignored, /^\*\*\/node_modules$/m, 'the checkout\'s own dependencies stay out of the build')
})

test('its install step on the copied files alone gives a lab that runs --server simple --amount 20', { timeout: 600_000 }, async (t) => {
  const dir = await tempDir('loadlab-image-')
  t.after(() => dir.cleanup())
  // each COPY puts its files where they are in the repository (checked above): the same here
  for (const f of copies.flatMap((c) => c.from)) await cp(join(ROOT, f), join(dir.dir, f), { recursive: true })
  const npm = await execa('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir.dir, reject: false })
  assert.equal(npm.exitCode, 0, npm.stderr)
  assert.ok(!existsSync(join(dir.dir, 'node_modules', 'eslint')), 'no dev dependency installed')
  const out = join(dir.dir, 'out')
  const lab = await execa(process.execPath, ['bin/loadlab.js', '--server', 'simple', '--amount', '20', '--out', out],
    { cwd: dir.dir, reject: false, stdin: 'ignore' })
  assert.equal(lab.exitCode, 0, lab.stderr)
  const [json] = (await readdir(out)).filter((f) => f.endsWith('.json'))
  const report = JSON.parse(await readFile(join(out, json), 'utf8'))
  assert.equal(report.results[0].requests.sent, 20)
  assert.equal(report.results[0].requests.ok, 20)
})
