// The GitHub Actions example (examples/github-actions/loadlab.yml): its lab and compare steps run here
// exactly as written, with bash -eo pipefail as Actions runs `shell: bash`, from the repository root,
// with the job's environment; only LOADLAB_OUT and GITHUB_STEP_SUMMARY point into a temporary folder.
import { test } from 'node:test'
import { ROOT } from '../loadtest/catalog.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import yaml from 'js-yaml' // a real YAML parser for the workflow (a dev dependency)

const WORKFLOW = join(ROOT, 'examples', 'github-actions', 'loadlab.yml')

test('the GitHub Actions example: the lab passes its thresholds, compare against the baseline runs as written', { timeout: 300000 }, async () => {
  const wf = yaml.load(readFileSync(WORKFLOW, 'utf8'))
  assert.equal(wf.defaults.run.shell, 'bash')
  const job = wf.jobs.load
  const steps = job.steps
  assert.deepEqual(steps.filter((s) => s.uses).map((s) => s.uses), ['actions/checkout@v4', 'actions/setup-node@v4',
    'actions/cache/restore@v4', 'actions/cache/save@v4', 'actions/upload-artifact@v4', 'actions/upload-artifact@v4'])
  const uploads = steps.filter((s) => s.uses === 'actions/upload-artifact@v4').map((s) => s.with.path)
  assert.deepEqual(uploads, [`${job.env.LOADLAB_OUT}/`, `${job.env.LOADLAB_HISTORY}/`])
  for (const s of steps.filter((s) => s.uses?.startsWith('actions/cache/'))) assert.equal(s.with.path, job.env.LOADLAB_HISTORY)
  const runs = steps.filter((s) => s.run)
  assert.equal(runs[0].run, 'npm ci --no-audit --no-fund') // not run here: node_modules is installed
  const [lab, compare, hist] = runs.slice(1)
  assert.match(lab.run, /^npm run lab -- /)
  assert.match(compare.run, /^npm run -s compare -- /)
  assert.ok(existsSync(join(ROOT, job.env.LOADLAB_BASELINE)), 'the committed baseline exists')

  const dir = await mkdtemp(join(tmpdir(), 'loadlab-actions-'))
  try {
    const summary = join(dir, 'step-summary.md')
    const env = {
      ...process.env, ...job.env, LOADLAB_OUT: join(dir, 'reports'), LOADLAB_HISTORY: join(dir, 'history'), GITHUB_STEP_SUMMARY: summary
    }
    const step = (s) => execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run], { cwd: ROOT, env, reject: false, stdin: 'ignore', timeout: 240000 })

    const labRun = await step(lab)
    assert.equal(labRun.exitCode, 0, labRun.stderr)
    assert.match(labRun.stderr, /^thresholds: 4 passed, 0 crossed$/m)
    const written = await readdir(env.LOADLAB_OUT)
    const report = JSON.parse(await readFile(join(env.LOADLAB_OUT, written.find((f) => f.endsWith('.json'))), 'utf8'))
    assert.deepEqual(report.thresholds.map((t) => [t.threshold, t.status]), [['p99<500', 'passed'], ['errors==0', 'passed'], ['timeouts==0', 'passed'], ['queued-threads:p99<250', 'passed']])
    assert.ok(report.results.every((r) => r.runs?.length === 5))

    const cmp = await step(compare)
    // 0, or 99 when this machine is now slower than when the baseline was made, beyond the runs' intervals
    assert.ok([0, 99].includes(cmp.exitCode), `exit ${cmp.exitCode}: ${cmp.stderr}`)
    assert.match(cmp.stdout, /^# loadlab compare/)
    assert.match(cmp.stdout, /^Verdicts: Each figure has a 95 % interval from its own run/m)
    assert.match(cmp.stdout, /## Gates \(--fail-on\)\n\n.*\n\n- `p99:\+50%`\n {2}- .* B `simple@loop:1e5` p99 /)
    assert.equal(cmp.exitCode === 99, /✗ regressed/.test(cmp.stdout))
    if (cmp.exitCode === 99) assert.match(cmp.stderr, /regression\(s\) past a --fail-on bound: exit 99/)
    assert.equal((await readFile(summary, 'utf8')).trimEnd(), cmp.stdout, 'tee wrote the comparison into the step summary')
    assert.match(await readFile(join(env.LOADLAB_OUT, 'compare.html'), 'utf8'), /data-flag="gates"/)

    // the history of one run: kept, shown, too short for the test, so the gate passes
    const histRun = await step(hist)
    assert.equal(histRun.exitCode, 0, histRun.stderr)
    assert.match(histRun.stdout, /^history: 1 reports on 1 machine\(s\), \d+ series: 0 with a change, \d+ too short/)
    assert.deepEqual((await readdir(env.LOADLAB_HISTORY)).filter((f) => f.endsWith('.json')).length, 1)
    assert.match(await readFile(join(env.LOADLAB_OUT, 'history.html'), 'utf8'), /data-chart="series"/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
