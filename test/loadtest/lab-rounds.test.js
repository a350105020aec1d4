// A real `--runs 2` run of two servers: round 1 of every server, then round 2, each round in the
// order the seed draws; each round keeps its number, place and start; the report carries the paired
// ratios to the --baseline (too few pairs for an interval at 2), in the JSON (schema-checked), the
// Markdown and the table.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { runLab, readReport, tempDir } from '../helpers/lab.js'
import { readReport as readChecked } from '../../loadtest/compare/api.js'
import { roundOrders } from '../../loadtest/run/round/order.js'
import { PAIRED } from '../../loadtest/result/rules.js'
import { join } from 'node:path'

const SERVERS = ['simple', 'queued-threads']
const SEED = 3
const ARGS = ['--server', SERVERS.join(','), '--runs', '2', '--seed', String(SEED), '--baseline', 'queued-threads',
  '-c', '2', '--amount', '10', '--warmup', '2', '--work', 'loop:1e4']

let out, r, report
before(async () => {
  out = await tempDir()
  r = await runLab([...ARGS, '--out', out.dir])
  report = await readReport(out.dir)
}, { timeout: 480000 }) // four starts and stops on a busy machine
after(() => out?.cleanup())

test('rounds: every server\'s round 1 runs before any round 2, each round in the order --seed draws', async () => {
  assert.equal(r.exitCode, 0, r.stderr)
  const { json } = report
  await readChecked(join(out.dir, `${json.id}.json`)) // report.schema.json holds it
  const rounds = json.method.rounds
  assert.equal(rounds.seed, SEED)
  assert.equal(json.method.runs, 2)
  const keyOf = Object.fromEntries(json.results.map((x) => [x.server, x.key]))
  const drawn = roundOrders(SERVERS.map((server) => ({ server })), 2, SEED).map((o) => o.map((i) => keyOf[SERVERS[i]]))
  assert.deepEqual(rounds.rounds.map((x) => x.order), drawn)
  const starts = (k) => json.results.map((x) => x.runs.find((u) => u.round === k).startedAt)
  assert.ok(starts(1).every((s) => starts(2).every((t) => s < t)), 'round 1 of every server before round 2')
  for (const x of json.results) {
    assert.deepEqual(x.runs.map((u) => u.round), [1, 2])
    for (const u of x.runs) {
      const round = rounds.rounds[u.round - 1]
      assert.equal(round.order[u.place - 1], x.key, 'its place in that round\'s order')
      assert.ok(round.startedAt <= u.startedAt)
    }
  }
  for (const round of rounds.rounds) {
    const byPlace = round.order.map((key) => json.results.find((x) => x.key === key).runs[round.round - 1].startedAt)
    assert.deepEqual(byPlace, byPlace.slice().sort(), 'each round runs in its order')
  }
})

test('rounds: the report pairs each server with the --baseline by round, with too few pairs for an interval', () => {
  const { json, md } = report
  const p = json.paired
  assert.equal(p.baseline, json.results.find((x) => x.server === 'queued-threads').key)
  assert.equal(p.rounds, 2)
  assert.equal(p.minRounds, PAIRED.minRounds)
  assert.deepEqual(p.entries.map((e) => e.server), ['simple'])
  for (const f of ['rps', 'p50', 'p99']) {
    const fig = p.entries[0].figures[f]
    assert.equal(fig.pairs, 2)
    assert.ok(fig.ratio > 0)
    assert.equal(fig.low, null)
    assert.equal(fig.why, 'too-few-pairs')
  }
  assert.equal(p.entries[0].figures.capacity, null)
  assert.match(md, /## Paired ratios \(to queued-threads@loop:1e4, 2 rounds\)/)
  assert.match(r.stderr, /Paired ratios \(to queued-threads@loop:1e4, 2 rounds\)/)
  assert.match(r.stderr, /simple +[\d.]+ × \(2 of \d+ pairs\)/)
})

test('rounds: --baseline without --runs, or naming no server of the run, is a usage error (exit 2)', async () => {
  const alone = await runLab(['--server', 'simple', '--baseline', 'simple', '--amount', '4'])
  assert.equal(alone.exitCode, 2)
  assert.match(alone.stderr, /--baseline goes with --runs N/)
  const unknown = await runLab(['--server', 'simple', '--runs', '2', '--baseline', 'cluster', '-c', '1', '--amount', '4'])
  assert.equal(unknown.exitCode, 2)
  assert.match(unknown.stderr, /--baseline: cluster is not a server of this run; its servers: simple/)
})
