// The lab's whole run as one function: plan, calibrate, run each server (or an in-process experiment),
// and return the report object. No printing, no writing, no process signals: the CLI (cli.js) parses,
// renders progress, writes the files and sets the exit code around it; tests call it directly.
import { checkWork } from './options.js'
import { experimentFor } from './experiments/index.js'
import { calibrate, calibrateCold, recheckCalibration } from './run/watch/calibrate.js'
import { runEntry } from './run/round/runner.js'
import { roundOrders } from './run/round/order.js'
import { scaleOutMethod, scaleOutNotes } from './run/generate/generators.js'
import { entryLoad, recoveryTimeoutSec } from './run/round/load.js'
import { experimentNameOf, experimentView, resolvePlan } from './plan.js'
import { buildHttpResult, buildReport } from './result/build.js'
import { gitCommit } from './run/commit.js'
import { reasonText } from './text/reasons.js'
import { calibrationKey, runName } from './result/key.js'
import { machine, packageVersion } from './run/watch/machine.js'
import { bootTimeoutMs } from './run/watch/boot.js'
import { evaluateThresholds } from './report/thresholds.js'
import { reportId, checkWritableDir } from './report/write.js'
import { usageError } from './errors.js'
import { findServer, serverOf } from './catalog.js'
import { fmtNum } from './text/format.js'
import { checkTask, describeLabTask, taskRecord } from './run/watch/task.js'
import { samplerSource } from './run/watch/sample.js'
import { resolveRuntimes } from './run/watch/runtimes.js'
import { runtimeName } from './result/runtime.js'
import { decide } from './result/decision.js'
import { confirmWinner } from './run/round/confirm.js'
import { limitingClass } from './result/mix.js'
import { redactCredentials } from './result/redact.js'
import { probePastCapacity } from './run/round/past-capacity.js'
import { handOff } from './run/round/overload.js'
import { handOffMixed } from './experiments/mixed.js'
import { serviceTime } from './result/figures.js'
import { readRuler, rulerOff } from './run/ruler/index.js'
import { rulerOf } from './result/ruler.js'
import { pairedOf } from './result/paired.js'
import { isAbsolute, relative } from 'node:path'
import { ROOT } from './catalog.js'

// Everything decided before anything starts: the plan (plan.js: every option resolved once), the
// experiment, the entries and each entry's load. Throws a usage error (exit 2) for a bad combination;
// starts nothing (a --node runtime the project provides may be installed from the npm registry:
// `onProgress` hears { type: 'runtime', text }).
export async function planLab (opts, { onProgress = () => {}, signal } = {}) {
  if (opts.work) await checkWork(opts.work)
  samplerSource() // a bad LOADLAB_SAMPLER stops the lab here (exit 2)
  bootTimeoutMs() // and a bad LOADLAB_BOOT_TIMEOUT_MS
  rulerOff() // and a bad LOADLAB_RULER
  const experiment = await experimentFor(experimentNameOf(opts))
  const resolved = resolvePlan(opts, experiment)
  const { experimentName, load, cwd } = resolved
  const task = resolved.taskSpec
    ? await describeLabTask({ task: resolved.taskSpec, input: resolved.input, timeoutSec: load.timeoutSec, cwd })
    : null
  const planOpts = experimentView(resolved, task)
  const inProcess = typeof experiment.run === 'function'
  let plan = entriesOf(experiment, planOpts, { ...resolved, inProcess })
  const runtimes = await runtimesOf(resolved, { inProcess, onProgress })
  // Under --runtime, the whole plan once per runtime, runtime by runtime.
  if (runtimes) plan = runtimes.flatMap((runtime) => plan.map((e) => ({ ...e, runtime })))
  const loads = plan.map((e) => entryLoad(e, load)) // may throw a usage error: before anything starts
  checkBaseline(resolved.baseline, plan)
  for (const e of plan) if (e.work && !task) await checkWork(e.work, `work (${e.server})`)
  if (resolved.out) await writableOut(resolved.out)
  // One real call of the task before any server starts: its failures stop the lab with one line.
  const taskCheck = task ? await checkTask(task, { signal }) : null
  return { experimentName, experiment, load, planOpts, resolved, inProcess, plan, loads, task, taskCheck, runtimes }
}

// --baseline: a server of the plan (its run's name or its server's); nothing to check without one.
function checkBaseline (name, plan) {
  if (!name || plan.some((e) => runName(e) === name || e.server === name)) return
  throw usageError(`--baseline: ${name} is not a server of this run; its servers: ${plan.map(runName).join(', ')}`)
}

// The plan's entries: the --url's one, or the experiment's (only the servers --server names); none for an
// in-process experiment.
function entriesOf (experiment, planOpts, { experimentName, url, servers, inProcess }) {
  if (inProcess && servers) throw usageError(`--server: experiment ${experimentName} runs in-process, without servers`)
  if (url) return urlPlan(experiment, experimentName, planOpts, url)
  if (inProcess) return []
  let plan = experiment.plan(planOpts)
  if (servers && experimentName !== 'custom') plan = plan.filter((e) => servers.some((n) => serverOf(n) === e.server))
  if (plan.length === 0) {
    throw usageError(`--server: experiment ${experimentName} has no entry ` +
      `for ${servers?.join(', ') ?? 'any built server'}`)
  }
  return plan
}

// --runtime or --node: the runtimes, resolved (installed where the project provides them); null without.
async function runtimesOf ({ runtimes, runtimeFlag, experimentName, cwd }, { inProcess, onProgress }) {
  if (!runtimes) return null
  if (inProcess) throw usageError(`${runtimeFlag}: experiment ${experimentName} runs in-process, without servers`)
  return resolveRuntimes(runtimes, { flag: runtimeFlag, log: (text) => onProgress({ type: 'runtime', text }), cwd })
}

// --out: a directory the lab can write into, checked before anything starts.
async function writableOut (out) {
  try {
    await checkWritableDir(out)
  } catch (err) {
    throw usageError(`--out: cannot write reports into ${out}: ${err.code ?? err.message}`)
  }
}

// A --url run's one entry: the service at that address, named by its host (or by /health's strategy when
// it is a lab server); the capacity and overload experiments give it their sweep (and overload steps),
// as they plan their first strategy, without the lab's arguments or work.
function urlPlan (experiment, name, planOpts, url) {
  const base = { server: new URL(url).host, variant: null, args: [], work: planOpts.user.work }
  if (name === 'custom') return [base]
  const [first] = experiment.plan({ ...planOpts, servers: null, tune: null })
  return [{ ...first, ...base, durationSec: first.durationSec }]
}

// Under --node each work spec is calibrated per runtime: filed as `SPEC#LABEL` (result/key.js calibrationKey),
// each naming its runtime; an entry sees its own runtime's, keyed by spec.
function keepCalibration (calibration, measured, runtime) {
  for (const [spec, c] of Object.entries(measured)) {
    const own = runtime ? { ...c, runtime: runtime.label, node: runtime.node, runtimeName: runtimeName(runtime) } : c
    calibration[calibrationKey(spec, runtime?.label)] = own
  }
}

function calibrationFor (calibration, runtime) {
  if (!runtime) return calibration
  return Object.fromEntries(
    Object.values(calibration)
      .filter((c) => c.runtime === runtime.label)
      .map((c) => [c.spec, c])
  )
}

// How the method block names a request mix: its name, hash and classes as checked.
function mixMethod (mix) {
  return mix ? { name: mix.name, hash: mix.hash, builtIn: mix.builtIn, classes: mix.requests } : null
}

// How the report's method block describes this run.
function methodOf (
  { load, inProcess, plan, task, taskCheck, runtimes, resolved: { url, taskSpec } }, command, commit = null
) {
  const openLoop = Boolean(load.rate) || plan.some((e) => e.sweep)
  return {
    tool: inProcess ? 'in-process' : openLoop ? 'loadlab open loop (run/generate/http1.js)' : 'autocannon',
    toolVersion: inProcess || openLoop ? null : packageVersion('autocannon'), // the open loop is the lab's own code
    loop: inProcess ? null : openLoop ? 'open' : 'closed',
    rate: load.rate,
    arrival: load.rate ? load.arrival : null,
    seed: load.rate && (load.arrival === 'poisson' || load.mix) ? load.seed : null,
    mix: mixMethod(load.mix), // the request mix (result/mix.js), null: GET of one URL
    ...scaleOutMethod(load), // generators, shard, startAt (run/generate/generators.js)
    latencyFrom: openLoop ? 'due time' : inProcess ? null : 'send',
    histograms: inProcess ? null : 'HdrHistogram, microseconds, 3 significant digits, compressed base64',
    connections: inProcess ? null : load.connections,
    amount: inProcess ? null : load.amount,
    durationSec: inProcess ? null : load.durationSec,
    timeoutSec: inProcess ? null : load.timeoutSec,
    maxBody: inProcess ? null : load.maxBody,
    warmup: load.warmup > 0 ? { amount: load.warmup } : null,
    recovery:
      inProcess || load.recovery === false
        ? null
        : { timeoutSec: recoveryTimeoutSec(load) },
    runs: load.runs,
    url,
    outsideSampling: !url && !inProcess,
    sampler: !url && !inProcess ? samplerSource() : null, // 'proc' or 'ps' (sample.js)
    task: task ? taskRecord(task, taskCheck, taskSpec) : null,
    // --node: the runtimes the servers and calibration ran under (null: the lab's own node)
    runtimes: runtimes ? runtimes.map(({ path, args, major, flag, ...said }) => said) : null,
    commit, // git rev-parse HEAD where the lab was run from, null outside a checkout (run/commit.js)
    command
  }
}

// How the rounds of a run of --runs N were ordered (run/round/order.js): the seed and each round's start and
// order; null for a run of one round, or one without servers.
function roundsOf (load, rounds) {
  return rounds.length ? { seed: load.seed, order: 'random per round', rounds } : null
}

// The experiment's notes, and the lab's own about how it reaches the server.
function notesOf (experiment, planOpts, url) {
  const notes = []
  if (url) notes.push(`outside sampling skipped: --url ${url} (a server the lab did not start)`)
  notes.push(...scaleOutNotes(planOpts)) // --generators, --shard (run/generate/generators.js)
  if (typeof experiment.notes === 'function') notes.push(...experiment.notes(planOpts))
  else if (Array.isArray(experiment.notes)) notes.push(...experiment.notes)
  return notes
}

// The progress callbacks of one step of the run (a server, or the in-process experiment).
function stepProgress (onProgress, index, total, name) {
  return {
    update: (text) => onProgress({ type: 'step', index, total, name, text }),
    done: (text) => onProgress({ type: 'done', index, total, name, text }),
    round: (round) => onProgress({ type: 'round', index, total, name, round })
  }
}

// An in-process experiment (dispatch): its results, or a note when it fails.
async function runInProcess ({ experiment, experimentName, planOpts }, ctx) {
  const p = stepProgress(ctx.onProgress, 1, 1, experimentName)
  try {
    const note = (text) => { // a line the report keeps (e.g. why a mode did not run), said on the terminal too
      ctx.notes.push(text)
      ctx.onProgress({ type: 'note', text })
    }
    ctx.results.push(...(await experiment.run({ ...planOpts }, { signal: ctx.signal, progress: p.update, note })))
    p.done(ctx.signal.aborted ? 'interrupted' : 'done')
  } catch (err) {
    p.done(`FAILED: ${err.message.split('\n')[0]}`)
    if (!ctx.signal.aborted) {
      ctx.failed = true
      ctx.notes.push(`experiment ${experimentName} failed: ${err.message.split('\n')[0]}`)
    }
  }
}

// How a child runs under a runtime (the lab's own node without one): its binary and the arguments
// before the script.
function runOn (runtime) {
  return runtime ? { execPath: runtime.path, execArgs: runtime.args } : {}
}

// The --task a calibration measures, by its spec (calibrate's `tasks`): the first one and a sweep's check again.
const tasksOf = (task) => (task ? { [task.spec]: task.task } : {})

// Calibrate every planned work spec, runtime by runtime, before any server starts.
async function calibratePlanned ({ plan, task, runtimes }, ctx) {
  const planned = [...new Set(plan.map((e) => e.work).filter(Boolean))]
  const tasks = tasksOf(task)
  for (const runtime of runtimes ?? [null]) {
    const specs = planned.filter((s) => !ctx.calibration[calibrationKey(s, runtime?.label)]) // given: kept
    if (!specs.length) continue
    if (ctx.signal.aborted) break
    ctx.onProgress({ type: 'calibrating', specs, runtime: runtime?.label ?? null })
    const measured = await calibrate(specs, { signal: ctx.signal, tasks, ...runOn(runtime) }).catch((err) => {
      if (ctx.signal.aborted) return {}
      throw err
    })
    await coldCalibrations(measured, plan, { signal: ctx.signal, tasks, ...runOn(runtime) })
    keepCalibration(ctx.calibration, measured, runtime)
  }
}

// The cold calibrations the plan needs: a measured spec that a strategy starting a process or thread per
// request runs (catalog.js `starts`) gets `cold[start]` (run/watch/calibrate.js calibrateCold).
async function coldCalibrations (measured, plan, opts) {
  for (const e of plan) {
    const start = findServer(e.server)?.starts
    const cal = measured[e.work]
    if (!start || cal?.method !== 'measured' || cal.cold?.[start] || opts.signal.aborted) continue
    cal.cold = { ...cal.cold, [start]: await calibrateCold(e.work, start, opts) }
  }
}

// A work spec only the server named (a run without --work): calibrated right after that server stopped,
// before its result is built; a failure is a note.
async function calibrateReported (record, ctx) {
  const runtime = record.entry.runtime ?? null
  const spec = record.workReported
  if (!spec || ctx.signal.aborted || calibrationFor(ctx.calibration, runtime)[spec]) return
  try {
    keepCalibration(ctx.calibration, await calibrate([spec], { signal: ctx.signal, ...runOn(runtime) }), runtime)
  } catch (err) {
    ctx.notes.push(`calibration of ${spec} failed: ${err.message.split('\n')[0]}`)
  }
}

// The progress line of a finished server.
function doneLine (record, result) {
  if (record.failure) return `FAILED: ${record.failure.reason}`
  if (record.interrupted) return 'interrupted'
  const trust = result.trusted ? '' : ` (untrusted: ${result.untrusted.join('; ')})`
  const two = result.overload?.steps?.find((s) => s.multiple === 2)
  if (two) return `done, goodput at 2 × C ${Math.round(two.goodputShare * 100)} % of C${trust}`
  return `done, ${fmtNum(result.rps)} req/s${trust}`
}

// A --tune entry's sweep seeded from the bracket the previous value of its setting found (the same server).
function seeded (entry, results) {
  if (!entry.setting || !entry.sweep) return entry
  const prev = results.findLast((r) => r.server === entry.server && r.status !== 'failed' && r.capacity?.capacity)
  const seed = prev?.capacity.capacity.bracket ?? null
  return seed ? { ...entry, sweep: (x) => entry.sweep({ ...x, seed }) } : entry
}

// A capacity entry's sweep given the leaders so far (`ruleOut`, rule book CLIMB): `leaders`, the trusted results
// swept before it, where a target whose confirmed failure is the tie margin under a leader's pass is searched no
// further (result/capacity.js belowLead), and `guides`, every result swept before it, where its climb starts (a
// start decides nothing: a disturbed pass serves). Each the highest pass at each target, grouped by their
// targets (the sweep takes the group judged at its own).
function led (entry, results) {
  if (!entry.ruleOut || !entry.sweep) return entry
  const guides = passesByTargets(results)
  if (guides.length === 0) return entry
  const leaders = passesByTargets(results.filter((r) => r.trusted))
  return { ...entry, sweep: (x) => entry.sweep({ ...x, leaders, guides }) }
}

// The highest pass at each target of `results`, grouped by their targets: [{ targetsMs, passes }].
function passesByTargets (results) {
  const groups = new Map()
  for (const r of results) {
    const c = r.capacity
    if (!c?.targetsMs?.length || c.targets?.length !== c.targetsMs.length) continue
    const key = c.targetsMs.join(',')
    const passes = c.targets.map((t) => (t.rps > 0 ? t.rps : 0))
    const g = groups.get(key)
    groups.set(key, { targetsMs: c.targetsMs, passes: g ? g.passes.map((p, k) => Math.max(p, passes[k])) : passes })
  }
  return [...groups.values()]
}

// The plan's servers round by round (--runs N): round k runs every entry once, each booted for its round and
// stopped after it, in the order run/round/order.js draws from --seed; each entry's rounds go on its one run
// record, whose result is built again after each (what a later entry stands on: lab.js led, seeded, handOff).
// ctx.results: the results in the plan's order; ctx.rounds: each round's order and start (method.rounds).
async function runServers (lab, ctx) {
  const { plan, load } = lab
  const orders = roundOrders(plan, load.runs, load.seed)
  const records = plan.map(() => null)
  const built = plan.map(() => null)
  const total = orders.reduce((a, o) => a + o.length, 0)
  let step = 0
  for (const [k, order] of orders.entries()) {
    if (ctx.signal.aborted) break
    const at = load.runs > 1 ? { round: k + 1, last: k === orders.length - 1 } : null
    if (at) ctx.rounds.push({ round: k + 1, startedAt: new Date().toISOString(), order })
    for (const [place, i] of order.entries()) {
      step++
      if (ctx.signal.aborted) break
      if (records[i]?.failure) continue // a server that failed a round is not started again
      ctx.results = built.filter(Boolean)
      const where = { record: records[i], at: at && { ...at, place: place + 1 }, step, total }
      ;({ record: records[i], result: built[i] } = await runRound(lab, ctx, i, where))
    }
  }
  ctx.results = built.filter(Boolean)
  // each round's order by the results' keys (its plan entries' names where one has no result)
  for (const r of ctx.rounds) r.order = r.order.map((i) => built[i]?.key ?? runName(plan[i]))
}

// One round of plan entry i (lab.js runServers): its server run, the work it named calibrated, a sweep's
// calibration checked again (the worst check of its rounds kept): the entry's record, continued, and its result.
async function runRound (lab, ctx, i, { record, at, step, total }) {
  const { plan, loads, load, task, taskCheck, resolved: { url } } = lab
  const entry = plan[i]
  const name = entry.runtime ? `${runName(entry)} on ${entry.runtime.label}` : runName(entry)
  const p = stepProgress(ctx.onProgress, step, total, at ? `${name} (round ${at.round}/${load.runs})` : name)
  const calibration = calibrationFor(ctx.calibration, entry.runtime)
  const { signal } = ctx
  // resolved once, before the run: a shedding variant's C, target and flags from its base's result (overload)
  // and a mixed round's heavy rate from the work's service time, C beside it (experiments/mixed.js)
  const serviceMs = serviceTime(calibration[entry.work])
  const handed = handOff(led(seeded(entry, ctx.results), ctx.results), ctx.results, serviceMs)
  const run = handOffMixed(handed, ctx.results, serviceMs)
  const expectedBody = taskCheck ? (taskCheck.expectedBody ?? taskCheck.body) : null
  const how = { signal, progress: p.update, onRound: p.round, bootTimeoutMs: bootTimeoutMs(), url, calibration }
  const out = await runEntry(run, loads[i], { ...how, expectedBody, record, at })
  await calibrateReported(out, ctx)
  // A capacity sweep's target and ideal stand on the calibration: checked again once its server stopped.
  if (entry.sweep && !signal.aborted) {
    const used = calibration[out.workReported]
    const check = await recheckCalibration(used, { signal, tasks: tasksOf(task), ...runOn(entry.runtime) })
    if (out.calibrationCheck?.holds !== false) out.calibrationCheck = check
  }
  const own = calibrationFor(ctx.calibration, entry.runtime)
  const result = buildHttpResult(out, { calibration: own, cores: ctx.cores, say: reasonText })
  p.done(doneLine(out, result))
  return { record: out, result }
}

// One step after the servers' rounds (the past-capacity probe, --confirm), with its progress line: `run`
// gets the lab's plan, loads and results and the step's progress callback; `doneText` words its outcome.
async function afterRoundsStep ({ plan, loads, resolved: { quick } }, ctx, name, run, doneText) {
  const p = stepProgress(ctx.onProgress, plan.length + 1, plan.length + 1, name)
  const { results, signal } = ctx
  const out = await run({ plan, loads, results, quick, signal, progress: p.update })
  p.done(doneText(out))
  return out
}

// The capacity experiment's past-capacity probe of the close candidates (run/round/past-capacity.js).
function pastCapacityStep (lab, ctx) {
  const calibrationOf = (entry) => calibrationFor(ctx.calibration, entry?.runtime)
  return afterRoundsStep(lab, ctx, 'past capacity',
    (common) => probePastCapacity({ ...common, calibrationFor: calibrationOf }), (n) => `${n} probes`)
}

// How the decision writes its command: `loadlab server …` when the bin runs in a user's project.
function commandForm (command, cwd) {
  const rel = relative(ROOT, cwd)
  const inside = !rel.startsWith('..') && !isAbsolute(rel)
  return { form: command?.startsWith('loadlab') && !inside ? 'loadlab' : 'node', cwd }
}

// --confirm: the decision's winner at its plan rate.
function confirmStep (lab, ctx, decision) {
  const entry = lab.plan[ctx.results.findIndex((r) => r.key === decision.key)]
  const calibration = calibrationFor(ctx.calibration, entry?.runtime)
  return afterRoundsStep(lab, ctx, 'confirm', (common) => confirmWinner(decision, { ...common, calibration }),
    (c) => c.skipped ? `not run: ${c.skipped}` : c.held ? 'held the target' : `did not hold: ${c.why.join('; ')}`)
}

// One ruler reading (run/ruler/) at the run's `at` ('start' or 'end'), said before and after: the reading, or
// null when it failed (a note says why) or the run was stopped meanwhile.
async function rulerReading (at, ctx) {
  ctx.onProgress({ type: 'ruler', at, reading: null })
  try {
    const reading = await readRuler({ signal: ctx.signal })
    ctx.onProgress({ type: 'ruler', at, reading })
    return reading
  } catch (err) {
    if (!ctx.signal.aborted) ctx.notes.push(`ruler: the ${at} reading failed: ${err.message.split('\n')[0]}`)
    return null
  }
}

// Run the lab for validated options (loadtest/options.js) and return the report. `signal` stops the
// current run and every server, and the report holds what was measured (status 'partial');
// `onProgress(event)` hears { type: 'calibrating', specs }, { type: 'step' | 'done', index, total,
// name, text } (text a string) and { type: 'round', index, total, name, round } (a live round's figures).
// Usage errors reject before anything starts; a server's fault is a failed result. Unless --no-ruler, the
// machine is read before anything of the run starts and after the last server stopped ({ type: 'ruler',
// at, reading }: reading null before, the reading after); an interrupted run keeps its start reading.
// `calibration`: a report's calibration of the same works, used instead of calibrating them again (ab's blocks).
export async function runLab (
  opts,
  { signal = new AbortController().signal, onProgress = () => {}, command = null, calibration = {} } = {}
) {
  const lab = await planLab(opts, { onProgress, signal })
  const { experimentName, experiment, planOpts, inProcess } = lab
  const { url, confirm, label, thresholds, cwd } = lab.resolved
  const createdAt = new Date()
  const commit = gitCommit(cwd)
  const m = machine()
  const ctx = {
    signal,
    onProgress,
    cores: m.availableParallelism,
    calibration: { ...calibration },
    results: [],
    rounds: [], // --runs N: each round's number, start and order (method.rounds)
    notes: notesOf(experiment, planOpts, url),
    failed: false
  }
  const start = lab.resolved.ruler && !rulerOff() ? await rulerReading('start', ctx) : null
  if (inProcess) await runInProcess(lab, ctx)
  else {
    await calibratePlanned(lab, ctx)
    await runServers(lab, ctx)
  }
  // The capacity experiment ends with a decision (result/decision.js), first in every output; --confirm
  // runs its winner at the plan rate.
  // (the overload experiment's results carry a capacity too: its decision reads their goodput past it)
  // (a --url service is not restarted for probes: its past capacity is the sweep's own step past it)
  if (experimentName === 'capacity' && !signal.aborted && !url) await pastCapacityStep(lab, ctx)
  const form = commandForm(command, cwd)
  const decides = ['capacity', 'overload'].includes(experimentName)
  const decision = decides ? decide({ machine: m, results: ctx.results }, form) : null
  // a --url run's decision is a rate for that one service, and the class that limits it (not a strategy)
  if (decision && url) Object.assign(decision, { recommends: 'rate', limitedBy: limitingClass(ctx.results[0]) })
  if (decision && confirm && !signal.aborted) decision.confirm = await confirmStep(lab, ctx, decision)
  const end = start && !signal.aborted ? await rulerReading('end', ctx) : null
  if (signal.aborted) {
    ctx.notes.push(
      `interrupted (${signal.reason?.message ?? signal.reason ?? 'aborted'}): results hold what was measured ` +
        'before the interruption'
    )
  }
  const report = buildReport({
    id: reportId(createdAt, m.hostname, experimentName, lab.load.shard),
    createdAt: createdAt.toISOString(),
    finishedAt: new Date().toISOString(),
    interrupted: signal.aborted,
    failed: ctx.failed,
    experiment: experimentName,
    label,
    machine: m,
    ruler: start ? rulerOf(start, end) : null,
    method: { ...methodOf(lab, command, commit), rounds: roundsOf(lab.load, ctx.rounds) },
    calibration: ctx.calibration,
    results: ctx.results,
    notes: ctx.notes
  })
  if (decision) report.decision = decision
  // --runs N: each entry's figures over the baseline's, paired by round (result/paired.js)
  if (ctx.rounds.length) report.paired = pairedOf(report.results, { baseline: lab.resolved.baseline })
  // Thresholds (--threshold) are judged on the finished results; the CLI exits 99 when one is crossed.
  if (thresholds.length) report.thresholds = evaluateThresholds(thresholds, report.results)
  return redactCredentials(report) // a --url's user:password and secret headers, never written
}
