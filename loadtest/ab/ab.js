// `loadlab ab A B` as one function (the package's abCompare): pairs of blocks, each block one lab
// run of one arm (lab.js runLab, as `npm run lab` runs it), each pair in a seeded random order;
// after every pair the decision (decide.js) on all the blocks so far; stops when every figure is
// called, at AB.maxPairs, or when another pair would pass --max-time. Returns the ab report
// (ab.schema.json); prints nothing.
import { performance } from 'node:perf_hooks'
import { randomInt } from 'node:crypto'
import { parseOptions } from '../options.js'
import { planLab, runLab } from '../lab.js'
import { machine } from '../run/watch/machine.js'
import { gitCommit } from '../run/commit.js'
import { reportId } from '../report/write.js'
import { redactUrl } from '../result/redact.js'
import { AB } from '../result/rules.js'
import { roundTo } from '../result/stats.js'
import { checkAbOptions } from './options.js'
import { crossed, decide, figuresOf, pairOrders, stopOf } from './decide.js'
import { startService } from './service.js'

export const AB_SCHEMA = 1

// The lab's command-line words of one block of `side` (A's or B's thing), `url` a command's
// service.
function blockArgv (o, side, url = null) {
  const load = ['-c', o.connections, '-a', o.amount, '--warmup', o.warmup, '-t', o.timeout,
    '--no-ruler']
  const shared = [...(o.work ? ['--work', o.work] : []), ...(o.task ? ['--task', o.task] : [])]
  const what = {
    server: ['--server', side, ...shared],
    work: ['--server', o.server, '--work', side],
    task: ['--server', o.server, '--task', side],
    runtime: ['--server', o.server, '--runtime', side, ...shared],
    url: ['--url', side],
    command: ['--url', url]
  }[o.kind]
  return [...what, ...load].map(String)
}

// The lab's options of a block, checked by the lab's own parser; no files written.
function blockOptions (o, side, url) {
  const opts = parseOptions(blockArgv(o, side, url ?? 'http://127.0.0.1:1/'))
  return { ...opts, out: null }
}

// Both arms planned before any block runs: a bad server, work, task or runtime is a usage error
// now.
async function planArms (o, signal) {
  if (o.kind === 'command') return
  for (const side of [o.a, o.b]) await planLab(blockOptions(o, side), { signal })
}

// One block: the arm's lab run (a command's service started before and stopped after), as a record;
// `calibration` gains the works this block calibrated. scripts/validate-ab.js records blocks with
// it.
export async function runBlock (o, arm, pair, position, { signal, calibration }) {
  const side = arm === 'A' ? o.a : o.b
  const started = performance.now()
  const startedAt = new Date().toISOString()
  const service = o.kind === 'command' ? await startService(side, { path: o.path, signal }) : null
  let report
  try {
    report = await runLab(blockOptions(o, side, service?.url), { signal, calibration })
  } finally {
    await service?.stop()
  }
  Object.assign(calibration, report.calibration) // each work calibrated once, in its first block
  const result = report.results[0]
  return {
    pair,
    position,
    arm,
    startedAt,
    seconds: roundTo((performance.now() - started) / 1000, 2),
    status: result?.interrupted ? 'interrupted' : result?.status ?? 'failed',
    failure: result?.failure?.reason ?? null,
    trusted: result?.trusted ?? false,
    untrusted: result?.untrusted ?? [],
    requests: result?.requests?.total ?? null,
    ...figuresOf(result)
  }
}

// A block the decision cannot use: failed, interrupted, or without a figure.
const unusable = (b) => b.status !== 'ok' || b.rps === null || b.p50 === null || b.p99 === null

// Why the run stopped: a signal, a failed block, else the rule's stop (decide.js stopOf).
function stopNow ({ blocks, signal, ...look }) {
  if (signal.aborted) return 'interrupted'
  if (blocks.some(unusable)) return 'failed'
  return stopOf(look)
}

// What A and B are, as the report names them (a URL's credentials never written).
function armOf (kind, thing) {
  return { kind, name: kind === 'url' ? redactUrl(thing) : thing }
}

// Compares A and B (options: abCompare's, as the CLI's long options in camelCase, or its words
// parsed): resolves the ab report. `signal` stops the run (the report keeps every block measured,
// stopped 'interrupted'); `onBlock(block)` hears each block once measured, `onLook(decision)` the
// decision after each pair (decide.js decide).
export async function abCompare (options, control = {}) {
  const { signal = new AbortController().signal, onBlock = () => {}, onLook = () => {} } = control
  const o = checkAbOptions(options)
  await planArms(o, signal)
  const seed = o.seed ?? randomInt(2 ** 32 - 1)
  const orders = pairOrders(seed, AB.maxPairs)
  const createdAt = new Date()
  const began = performance.now()
  const blocks = []
  const calibration = {}
  let decision = decide(blocks, o)
  let stopped = null
  for (let pair = 1; stopped === null; pair++) {
    const arms = orders[pair - 1] === 'AB' ? ['A', 'B'] : ['B', 'A']
    for (const [position, arm] of arms.entries()) {
      if (signal.aborted || blocks.some(unusable)) break
      const block = await runBlock(o, arm, pair, position + 1, { signal, calibration })
      blocks.push(block)
      onBlock(block)
    }
    decision = decide(blocks.filter((b) => !unusable(b)), o)
    onLook(decision)
    const elapsed = (performance.now() - began) / 1000
    const pairSec = elapsed / pair
    stopped = stopNow({ decision, blocks, pairSec, elapsed, maxTime: o.maxTime, signal })
  }
  return reportOf({ o, seed, createdAt, began, blocks, decision, stopped })
}

// The ab report (ab.schema.json): what was compared and how, every block, each figure's decision,
// the gate.
function reportOf ({ o, seed, createdAt, began, blocks, decision, stopped }) {
  const m = machine()
  const figures = decision.figures.map((f) => ({
    ...f,
    ratio: f.ratio === null ? null : roundTo(f.ratio, 4),
    low: f.low === null ? null : roundTo(f.low, 4),
    high: f.high === null ? null : roundTo(f.high, 4),
    detectable: f.detectable === null ? null : roundTo(f.detectable, 4),
    seconds: f.decidedAt === null ? null : secondsAt(blocks, f.decidedAt)
  }))
  return {
    schema: AB_SCHEMA,
    kind: 'loadlab-ab',
    id: reportId(createdAt, m.hostname, 'ab'),
    createdAt: createdAt.toISOString(),
    finishedAt: new Date().toISOString(),
    a: armOf(o.kind, o.a),
    b: armOf(o.kind, o.b),
    settings: {
      server: ['server', 'url', 'command'].includes(o.kind) ? null : o.server,
      work: o.work,
      task: o.task,
      path: o.kind === 'command' ? o.path : null,
      connections: o.connections,
      amount: o.amount,
      warmup: o.warmup,
      timeoutSec: o.timeout,
      effect: o.effect,
      maxTimeSec: o.maxTime,
      seed
    },
    rule: { ...AB },
    machine: m,
    commit: gitCommit(process.cwd()),
    stopped,
    pairs: decision.pairs,
    seconds: roundTo((performance.now() - began) / 1000, 1),
    figures,
    failOn: o.failOn.map((b) => ({ ...b, crossed: figures.some((f) => crossed(f, b)) })),
    blocks
  }
}

// Seconds from the first block's start to the end of pair `n` (when a figure was called).
function secondsAt (blocks, n) {
  const last = blocks.filter((b) => b.pair === n).at(-1)
  const first = blocks[0]
  if (!last || !first) return null
  const since = (Date.parse(last.startedAt) - Date.parse(first.startedAt)) / 1000
  return roundTo(since + last.seconds, 1)
}
