// Types of loadlab's API (index.js), written by hand. The report's full format is report.schema.json;
// these types cover the parts a script reads: results, capacity, decision, thresholds. Every object of a
// report may carry more fields than are named here.

/** A reason or verdict: a sentence, or a code with its figures (and perhaps its sentence). */
export type Reason = string | { code: string; text?: string; [figure: string]: unknown }

/** The lab's options: its CLI's long options in camelCase (`--max-body` → `maxBody`); see `loadlab --help`. */
export interface LabOptions {
  /** Servers to run, by name (`['simple', 'queued-threads']`), or `'all'`. */
  server?: string | string[]
  /** An experiment: tour, capacity, overload, heavy-cpu, … (`loadlab --list`). */
  experiment?: string
  /** Concurrent connections (default 10; an experiment's own: `npx loadlab --list`); with `rate`, the cap on
   * kept connections. */
  connections?: number
  /** Open loop: requests per second on a schedule. */
  rate?: number
  /** Open loop schedule: `constant` (default) or `poisson`. */
  arrival?: 'constant' | 'poisson'
  /** Seed of the poisson schedule, of a mix and of the rounds' orders (`runs`). */
  seed?: number
  /** Open loop: generator threads. */
  generators?: number
  /** With `url` and `rate`: this process's shard of the plan, `'I/N'`. */
  shard?: string
  /** With `shard`: the common start. */
  startAt?: string | Date
  /** Capacity and overload experiments: the p99 targets in ms, strictly increasing. */
  slo?: number | number[] | string
  /** Overload experiment: a capacity report to take each strategy's capacity from. */
  capacityFrom?: string
  /** Capacity experiment: one sweep per value of a server setting, `'threads=1,2,4'`. */
  tune?: string
  /** Capacity experiment: run the decision's winner at its plan rate. */
  confirm?: boolean
  /** Requests per measured round, per server (default 200 for a `server`, `url` or `task` run; excludes `duration`). */
  amount?: number
  /** Seconds per measured round, instead of `amount` (default: none). */
  duration?: number
  /** Per-request timeout in seconds (default 10). */
  timeout?: number
  /** Bytes kept of each response body. */
  maxBody?: number
  /** Work per request: `'loop:1e7'`, `'fib:25'`, `'render:1000'`, `'sleep:100'`. */
  work?: string
  /** Your own work: a module path, `PATH[#export]`. */
  task?: string
  /** With `task`: the input of every call (JSON text, `@FILE`, or the value itself). */
  input?: string | Record<string, unknown> | unknown[]
  /** Rounds: every server once a round, each round in a fresh order drawn from `seed` (capacity: a sweep each). */
  runs?: number
  /** With `runs` of 2 or more: the server the paired ratios divide by (default the first). */
  baseline?: string
  /** Requests in the discarded warm-up round, 0 = none (default 20 for a `server`, `url` or `task` run). */
  warmup?: number
  /** A service the lab did not start. */
  url?: string
  /** A request mix: a JSON file or a built-in spec such as `'heavy:80,cheap:20'`. */
  mix?: string
  /** One request kind: its method (`-m`). */
  method?: string
  /** One request kind: its headers (`-H 'K: V'`), as `'K: V'` lines or an object. */
  header?: string | string[] | Record<string, string>
  /** One request kind: its body (`-b`). */
  body?: string
  /** Node majors or node paths to run the servers under: `[20, 24]`. */
  node?: string | Array<string | number>
  /** Runtimes to run the servers under: `['node22', 'bun']` or paths. */
  runtime?: string | string[]
  /** Where the report files go (default reports/ inside the lab's checkout, else ./loadlab-reports/); `false`: none. */
  out?: string | false
  /** Write the report's JSON compressed, as `<id>.json.gz`. */
  gzip?: boolean
  /** Free text naming the machine or the run. */
  label?: string
  /** Pass/fail bounds, e.g. `'p99<500'`, `'errors==0'`, `'capacity>200'`. */
  threshold?: string | string[]
  /** The experiment's small version. */
  quick?: boolean
  /** Leave out the ruler: the machine is not read before and after the run. */
  noRuler?: boolean
}

/** What onProgress hears while runLab runs. */
export type ProgressEvent =
  | { type: 'calibrating'; specs: string[]; runtime?: string | null }
  /** A runtime being installed (`runtime`, `node`). */
  | { type: 'runtime'; text: string }
  /** A mode of the run left out, and why. */
  | { type: 'note'; text: string }
  | { type: 'step' | 'done'; index: number; total: number; name: string; text: string }
  | { type: 'round'; index: number; total: number; name: string; round: { elapsedMs: number; [figure: string]: unknown } }
  | { type: 'written'; dir: string; id: string; paths: string[]; errors: Array<{ file: string; message: string }> }
  /** The machine read before (at 'start') and after (at 'end') the run: reading null while it is read. */
  | { type: 'ruler'; at: 'start' | 'end'; reading: RulerReading | null }

export interface RunLabControl {
  /** Stops the run and its servers; the report then holds what was measured (status `'partial'`). */
  signal?: AbortSignal
  onProgress?: (event: ProgressEvent) => void
}

/** What happened to the requests of a run's shown round. */
export interface Requests {
  sent: number
  completed: number
  ok: number
  non2xx: number
  /** Connection errors, timeouts and body mismatches. */
  errors: number
  timeouts: number
  mismatches: number
  unanswered: number
  [count: string]: number
}

/** Latency in ms (the open loop's from each request's due time). */
export interface Latency {
  min: number | null
  mean: number | null
  max: number | null
  p50: number | null
  p97_5: number | null
  p99: number | null
  p99_9: number | null
  percentiles?: Record<string, number | null>
  [figure: string]: unknown
}

/** The rates (req/s) a capacity lies between: the highest that held the target, the lowest that did not. */
export interface Bracket {
  pass: number | null
  fail: number | null
}

/** How far a capacity is known (reports/README.md "bound"); 'no-target' only in a decision's `unmet`. */
export type Bound = 'refined' | 'ruled-out' | 'at-least' | 'cannot-meet' | 'below-lowest' | 'undecided' | 'no-target'

/** Why a capacity is undecided: its code and figures. */
export interface Undecided {
  code: 'budget-spent' | 'step-limit' | 'lowest-pending' | 'few-at-lowest' | 'floor-overlap' | 'no-step' | 'unknown'
  [figure: string]: unknown
}

/** The capacity at one p99 target. */
export interface CapacityFigure {
  sloMs: number | null
  /** The highest rate whose p99 held the target; null: none did. */
  rps: number | null
  bound: Bound | null
  /** With bound 'undecided' only: why. */
  undecided?: Undecided | null
  bracket?: Bracket | null
  /** How often the knee lies in the bracket (a lower bound: at or above its pass), by the sample rule. */
  confidence?: number | null
  p99?: number | null
  [figure: string]: unknown
}

/** A capacity sweep: its steps and the capacity it found. */
export interface Sweep {
  serviceMs?: number | null
  idealRps?: number | null
  sloMs?: number | null
  steps?: Array<Record<string, unknown>>
  capacity: CapacityFigure
  targets?: CapacityFigure[]
  /** What the sweeps cost: the requests their steps sent and their seconds (null where not timed). */
  cost?: { requests: number; sec: number | null }
  /** The leaders' passes at each target when the sweep started (null: none): where a target was ruled out. */
  leads?: Array<number | null> | null
  [field: string]: unknown
}

/** One run: an HTTP run (kind `'http'`) or an in-process case (`'dispatch'`, `'offload'`). */
export interface Result {
  kind?: 'http' | 'dispatch' | 'offload' | string
  /** SERVER[/VARIANT]@WORK[#RUNTIME]: what compare lines runs up by. */
  key: string
  server?: string
  variant?: string | null
  work?: string | null
  status: 'ok' | 'failed' | 'partial'
  failure?: { reason: Reason; exitCode: number | null; signal: string | null; stderrTail: string[] } | null
  /** false when a rule of the lab puts the figures in doubt; `untrusted` says why. */
  trusted?: boolean
  untrusted?: Reason[]
  requests?: Requests | null
  rps?: number | null
  latency?: Latency | null
  efficiency?: number | null
  /** The capacity experiment's sweep. */
  capacity?: Sweep | null
  /** Where the open loop's requests spent their time (docs/attribution.md). */
  phases?: Phases | null
  notes?: Reason[]
  [field: string]: unknown
}

/** A phase of a request's time: from its due time to the last byte read, in order. */
export type PhaseName = 'sent' | 'wait' | 'queue' | 'start' | 'send' | 'run' | 'return' | 'reply'

/** The phases of one open-loop result: per phase over the requests, and in the requests at p50 and p99. */
export interface Phases {
  count: number
  missing?: number
  ignored?: number
  clamped?: number
  phases: Partial<Record<PhaseName, { count: number; p50: number | null; p99: number | null; mean: number | null }>>
  at?: Partial<Record<'p50' | 'p99', {
    latencyMs: number
    requests: number
    phases: Partial<Record<PhaseName, number>>
    share: Partial<Record<PhaseName, number>>
  }>> | null
  unexplained?: { medianMs: number | null; p99Ms: number | null; maxMs: number | null } | null
  resolutionMs?: number | null
}

/** The capacity (and overload) experiment's answer. */
export interface Decision {
  sloMs: number | null
  /** The run chosen (null: none held the target). */
  key: string | null
  server: string | null
  variant?: string | null
  setting?: { name: string; value: string } | null
  /** The command that starts the chosen server as it was measured. */
  command?: string | null
  capacityRps: number | null
  bracket?: Bracket | null
  bound?: Bound | null
  undecided?: Undecided | null
  /** The rate to plan for: the capacity less the headroom. */
  planRps: number | null
  headroom?: number
  /** What the search for the decision cost: its sweeps, their requests and seconds (null where not measured). */
  search?: { sweeps: number; requests: number | null; sec: number | null }
  decidedBy?: Reason | Record<string, unknown> | null
  runnerUp?: { key: string; server: string; capacityRps: number | null; bound?: Bound | null; [field: string]: unknown } | null
  /** Tied on capacity with the chosen (their brackets overlap): the other, as it would be deployed; null: no tie. */
  alternative?: {
    key: string; server: string; setting: { name: string; value: string } | null; variant: string | null
    shedding: string | null; label: string | null; flags: string[]; command: string
  } | null
  /** Why no winner is named (a code: disturbed, runs-disagree, none-meets; an older report's: tie); null: one is. */
  refused?: { reason: string; [field: string]: unknown } | null
  /** --confirm: the winner run again at planRps, and whether it held. */
  confirm?: {
    key: string; command: string; rate: number; sloMs: number; durationSec: number; held: boolean
    p99: number | null; rps: number | null; [field: string]: unknown
  } | null
  /** The runs with no capacity at the target, and their bound. */
  unmet?: Array<{ key: string; bound: Bound | null; [field: string]: unknown }>
  /** The targets at which the leader changes. */
  changes?: Array<Record<string, unknown>>
  /** Whose target it is, the machine and runtime it holds for, the winner's spread and shedding flags. */
  target?: Record<string, unknown> | null
  machine?: Record<string, unknown> | null
  runtime?: string | Record<string, unknown> | null
  spread?: Record<string, unknown> | null
  flags?: string[] | null
  /** Past capacity: the probes, the winner's goodput past C and the rule that weighed it. */
  past?: Record<string, unknown> | null
  pastCapacity?: Record<string, unknown> | null
  pastRule?: Record<string, unknown> | null
  [field: string]: unknown
}

/** A --threshold judged on every run it applies to. */
export interface ThresholdResult {
  threshold: string
  status: 'passed' | 'crossed' | 'not-applicable'
  runs: Array<{ key: string | null; run: string; figure: number | null; status: 'passed' | 'crossed' | 'not-applicable'; reason?: Reason }>
  [field: string]: unknown
}

/** A figure of the ruler: the median of its samples (above 0), their spread in percent, their count. */
export interface RulerFigure {
  value: number
  /** The samples' p90 over their p10, less 1, in percent. */
  spreadPct: number
  n: number
}

/** One reading of the machine: what it does on one thread, the cores it gives, loopback HTTP, starts, timers. */
export interface RulerReading {
  at: string
  /** The reading's own cost, ms. */
  durationMs: number
  /** ms per call on one thread of the lab's fixed works. */
  single: { loop: RulerFigure; hash: RulerFigure; json: RulerFigure; render: RulerFigure }
  cores: {
    /** os.availableParallelism() (it follows affinity: 1 under taskset -c 0). */
    offered: number
    /** The measured speedup at the most threads (offered, at least 2): the cores really given. */
    effective: RulerFigure
    scaling: Array<{ threads: number; speedup: RulerFigure }>
  }
  /** A bare node:http answer: round trip at one connection, requests/s at `connections`. */
  loopback: { rttMs: RulerFigure; rps: RulerFigure; connections: number }
  /** Starting a Worker and a child node, until its first message back (ms). */
  spawn: { workerMs: RulerFigure; processMs: RulerFigure }
  /** The idle setTimeout's lag (ms, may be 0). */
  timerLagMs: RulerFigure
}

/** A figure's drift between two readings: b over a, the two spreads combined, beyond them or not. */
export interface RulerDrift {
  /** 'single.loop', 'cores.effective', 'loopback.rttMs', … */
  figure: string
  ratio: number | null
  spreadPct: number
  beyond: boolean
}

/** The machine read before and after a run (absent with noRuler and in older reports). */
export interface Ruler {
  start: RulerReading
  /** null when the run ended before its end reading. */
  end: RulerReading | null
  /** Each figure, end over start. */
  drift: RulerDrift[]
  /** Some figure drifted beyond its spread: the machine moved during the run. */
  moved: boolean
}

/** A lab report (schema 1): what runLab resolves and the lab writes as JSON (loadlab/report.schema.json). */
export interface Report {
  schema: 1
  kind: 'loadlab-report'
  id: string
  createdAt: string
  finishedAt?: string | null
  status: 'complete' | 'failed' | 'partial'
  experiment: string
  label?: string | null
  machine: { hostname: string; cpuModel?: string | null; cores: number; [field: string]: unknown }
  ruler?: Ruler
  method: {
    command?: string | null
    loop?: string | null
    /** git rev-parse HEAD where the lab ran, null outside a git checkout (loadlab history shows it). */
    commit?: string | null
    [field: string]: unknown
  }
  calibration?: Record<string, Record<string, unknown>>
  results: Result[]
  notes?: Reason[]
  decision?: Decision
  /** `runs` of 2 or more: each result's figures over the baseline's, paired by round. */
  paired?: Paired
  thresholds?: ThresholdResult[]
  [field: string]: unknown
}

/** One figure over the baseline's, paired by round: the geometric mean of the per-round ratios and its sign-flip
 * interval, covering it at least `coverage`; low and high null (`why`) for fewer pairs than `needs`. */
export interface PairedRatio {
  ratio: number
  pairs: number
  low: number | null
  high: number | null
  coverage: number | null
  why?: 'too-few-pairs'
  needs?: number
}

/** A report's paired ratios (result/rules.js PAIRED): null baseline, with `why`, when it failed or is missing. */
export interface Paired {
  baseline: string | null
  baselineServer?: string
  why?: 'baseline-failed' | 'baseline-missing'
  confidence: number
  minRounds: number
  rounds: number
  entries: Array<{
    key: string
    server: string
    figures: Partial<Record<'rps' | 'p50' | 'p99' | 'capacity', PairedRatio | null>>
  }>
}

/** An error a user can cause: one line of message, a code (LAB_USAGE, LAB_REPORT_INVALID, …), an exit status. */
export declare class LabError extends Error {
  code: string
  exitCode: number
}

/** The lab's run: resolves its report; writes its files unless `out: false`. A bad option rejects (LAB_USAGE). */
export declare function runLab (options?: LabOptions, control?: RunLabControl): Promise<Report>

/** A fleet server started as `node servers/NAME` starts it, once it answers /health. */
export interface StartedServer {
  name: string
  url: string
  pid: number
  strategy: string | null
  work: string | null
  /** Ends it and every process it started; resolves once they have exited. */
  stop (): Promise<{ exit: { exitCode: number | null; signal: string | null } | null; forced: boolean; leftovers: number[] }>
}

/** The server's own flags, as words (`['--work', 'loop:1e5']`) or an object (`{ work: 'loop:1e5', threads: 2 }`). */
export type ServerFlags = string[] | Record<string, string | number | boolean | undefined>

/** One server of the fleet on a free port of 127.0.0.1, resolved once it answers /health; a bad flag rejects
 * with the server's line (LAB_USAGE). */
export declare function startServer (name: string, flags?: ServerFlags): Promise<StartedServer>

export interface CompareOptions {
  /** The index of the report the ratios are to (default 0). */
  baseline?: number
  /** Latency in ms (default) or in multiples of each machine's calibrated service time. */
  units?: 'ms' | 'service'
  /** --fail-on bounds, e.g. `'p99:+10%'`, `'rps:-5%'`, or parsed ({ metric, sign, bound }); a bound that is none,
   * or on a figure no report has, is refused (LAB_USAGE, LAB_COMPARE_FAIL_ON). */
  failOn?: Array<string | { metric: string; sign: '+' | '-'; bound: number }>
  /** Let a change past a bound that the rulers put down to the machine pass (--allow-machine; default false). */
  allowMachine?: boolean
  /** The reports' labels (default: each report's id). */
  names?: string[]
}

/** A figure's interval from its own run (order statistics, batch means, a capacity's bracket). */
export interface FigureInterval {
  value: number
  /** 0 for an open side (a low percentile too few requests cannot bound). */
  low: number
  /** null in JSON for an open side (a capacity that is a lower bound, a high percentile too few requests
   * cannot bound). */
  high: number | null
  method: 'order-statistics' | 'batch-means' | 'median-latency' | 'bracket'
  n?: number
  batches?: number
  rounds?: number
}

/** compare's verdict on one ratio (docs/compare.md; the rule book's `compare` rule). */
export interface FigureVerdict {
  kind: string
  /** This report's figure over the baseline's. */
  ratio: number | null
  /** The ratio's band: both runs' intervals and the floor of its kind of figure. */
  low: number | null
  high: number | null
  verdict: 'better' | 'worse' | 'within-noise' | 'machine' | 'disturbed' | 'no-interval'
  /** 'told' where both reports carry a ruler; 'unknown': the machine cannot be told apart. */
  machine: 'told' | 'unknown'
  /** The ratio the rulers predict for the strategy, the share (of the log) they explain, ratio over predicted. */
  predicted: number | null
  explained: number | null
  residual: number | null
}

/** The machines side by side: ruler lines, each machine's ranking of the runs, and where it flips. */
/** Why a report's ruler explains nothing (compare sets it aside and judges that report's ratios raw). */
export interface RulerSetAside {
  /** moved: end against start, from its readings; offered: not its machine block's cores; scaling: effective
   * cores not its own scaling's; runs: its own runs show more cores; calibration: its loop not the report's. */
  code: 'moved' | 'offered' | 'scaling' | 'runs'
  [field: string]: unknown
}

export interface ComparisonMachines {
  /** Per report its ruler's figures, `moved` (recomputed from its readings) and `setAside` (or null). */
  rulers: Array<({ moved: boolean; setAside: RulerSetAside | null; [field: string]: unknown }) | null>
  /** The reports (indices) without a ruler. */
  noRuler: number[]
  rankings: Array<{ figure: 'rps' | 'capacity' | null; order: string[]; top: string | null }>
  flips: Array<{ report: number; above: string; below: string; sure: boolean }>
  decisions: Array<{ report: number; was: string; now: string; sure: boolean }>
  /** Over reports with rounds: each one's paired ratios to one baseline strategy (`blocks`, null for a report
   * without rounds) and the ratios whose intervals are apart between two reports; null with fewer than two. */
  paired: {
    baseline: string
    blocks: Array<Paired | null>
    changed: Array<{
      report: number; key: string; figure: 'rps' | 'p50' | 'p99' | 'capacity'; here: PairedRatio; there: PairedRatio
    }>
  } | null
}

/** One report's cell of an HTTP row (its figures; beside the baseline, the verdict on each). */
export interface ComparisonCell {
  rps?: number | null
  p50?: number | null
  p99?: number | null
  intervals?: Record<string, FigureInterval | null>
  verdicts?: Record<string, FigureVerdict>
  [field: string]: unknown
}

/** What compare renders: the runs the reports share, their figures, verdicts and ratios, and the gates. */
export interface Comparison {
  units: 'ms' | 'service'
  baseline: number
  reports: Array<Record<string, unknown>>
  rows: Array<{ key: string; kind: string; cells: Array<ComparisonCell | null>; [field: string]: unknown }>
  classes: Array<Record<string, unknown>>
  phases: Array<Record<string, unknown>>
  machines: ComparisonMachines
  flags: Array<Record<string, unknown>>
  /** A change put down to the machine passes a gate only with this (--allow-machine). */
  allowMachine: boolean
  gates: Array<{
    runs: Array<{
      report: number
      status: 'regressed' | 'unverified' | 'within bound' | 'within noise' | 'machine' | 'disturbed' | 'not comparable'
      /** The run fails the bound: regressed, put down to the machine without allowMachine, or unverified (its
       * latency histogram contradicts its own figures). */
      fails: boolean
      noise: FigureVerdict | null
      [field: string]: unknown
    }>
    [field: string]: unknown
  }>
  notes: string[]
}

/** What `loadlab compare` renders: the runs the reports share, their figures, verdicts and ratios, the gates. */
export declare function compareReports (reports: Report[], options?: CompareOptions): Comparison

/** The merged report of the shards of one plan (lab --shard I/N --start-at T). */
export declare function mergeReports (reports: Report[], options?: { names?: string[]; command?: string | null }): Report

/** A report file, read with the lab's bounds and checked against report.schema.json. */
export declare function readReport (path: string): Promise<Report>


/** One change point of a history's series (loadlab history, docs/history.md). */
export interface HistoryChange {
  /** The index in the series' points of the first report after the change. */
  index: number
  /** 'code': found inside one machine block's reports; 'machine': the series moved to another machine block there. */
  cause: 'code' | 'machine'
  /** Welch's two-sided t-test of the segments before and after (null when a side has no trusted point). */
  pValue: number | null
  before: { mean: number; sd: number; n: number }
  after: { mean: number; sd: number; n: number }
  /** after / before − 1 (null when before is 0). */
  change: number | null
  /** Worse for the figure: a rise of a latency, a fall of a rate. */
  worse: boolean
  /** The machine after the change (and, for a change of machine, the one before and the ruler's figures beyond). */
  machine: string
  from?: string
  figures?: string[]
  report: string
  at: string
  commit: string | null
  /** The last report tested before the change (null: none): the change came after it, by `report`. */
  since: string | null
  /** A change of code: the ruler figures that moved between `since` and `report` (a flag; [] when none). */
  ruler?: string[]
}

/** One series: a figure of one run (experiment, key) over the reports, each machine's part tested apart. */
export interface HistorySeries {
  id: string
  experiment: string
  key: string
  server: string | null
  variant: string | null
  work: string | null
  figure: string
  unit: string
  higherIsBetter: boolean
  /** 'too-short': no machine has enough reports for the test (2 × the minimum segment). */
  status: 'tested' | 'too-short'
  /** How many points the lab marked disturbed (tested only where the trusted ones are too few: tests). */
  disturbed: number
  /** taskHash: a --task work's file hash (the series follows the task by its name). */
  points: Array<{
    report: string; at: string; commit: string | null; machine: string; value: number; trusted: boolean
    disturbed: boolean; taskHash?: string
  }>
  /** withDisturbed: its trusted runs were too few for the test, so the ones marked disturbed were read too. */
  tests: Array<{ machine: string; status: 'tested' | 'too-short'; points: number; withDisturbed: boolean }>
  changes: HistoryChange[]
}

export interface History {
  kind: 'loadlab-history'
  parameters: { maxPValue: number; weakPValue: number; minSegment: number; maxPoints: number }
  reports: Array<{ id: string; file: string; at: string; commit: string | null; machine: string; ruler: boolean }>
  /** One per machine block (CPU model, cores, the cores it could use, memory, kernel, architecture, OS). */
  machines: Array<{
    id: string
    first: string
    reports: number
    cpuModel: string | null
    cores: number | null
    availableParallelism: number | null
    memoryBytes: number | null
    kernel: string | null
  }>
  series: HistorySeries[]
  /** The files left out, each with its one line: not a report, another schema, an id already read. */
  skipped: Array<{ file: string; code: string; message: string }>
  /** The series that fail a failOnChange bound on a machine: its newest change worse past it and significant
   * ('change'), or, without allowDisturbed, no such change but some of its newest runs disturbed ('disturbed'). */
  failures: HistoryGate[]
  /** With allowDisturbed: the series it passed though some of their newest runs were disturbed. */
  passedDisturbed: HistoryGate[]
}

/** One --fail-on-change outcome on one series and machine. */
export interface HistoryGate {
  series: string
  bound: string
  why: 'change' | 'disturbed'
  machine: string
  /** The change (null for 'disturbed'). */
  change: HistoryChange | null
  /** Of the machine's newest runs (CHANGE.minSegment), those marked disturbed; `newest` how many (disturbed). */
  disturbed: number
  newest?: number
}

/** The history of the reports in some folders (loadlab history): series, their change points, the gate. */
export declare function history (
  paths: string[],
  /** Each option is checked (LAB_USAGE naming it): figures as --fail-on names them, params within their ranges
   * (minSegment 2–1000, maxPoints 4–10000, p-values in (0, 1]); no report, or a bound no series matches, rejects. */
  options?: {
    figures?: string[]
    failOnChange?: Array<string | { metric: string; sign: '+' | '-'; bound: number }>
    allowDisturbed?: boolean
    params?: Partial<History['parameters']>
  }
): Promise<History>

/** What `loadlab ab A B` compares and how (the CLI's long options in camelCase; docs/ab.md). */
export interface AbOptions {
  /** A and B: two URLs, runtimes, servers, works, task files, or (kind 'command') shell commands. */
  a: string
  b: string
  /** What A and B are; default: told by their form. */
  kind?: 'url' | 'runtime' | 'server' | 'work' | 'task' | 'command' | null
  /** The server a task, a work or a runtime runs in (default simple). */
  server?: string
  work?: string | null
  task?: string | null
  /** A command's service: the path loaded on http://127.0.0.1:$PORT (default /). */
  path?: string
  connections?: number
  /** Requests measured per block (default 300). */
  amount?: number
  warmup?: number
  /** Seconds per request. */
  timeout?: number
  /** The change that matters (default 1.3): same means the interval inside 1 / effect … effect. */
  effect?: number
  /** Seconds: no pair starts that would end past it (default 300). */
  maxTime?: number
  /** The seed of the pairs' order (default: a fresh one, kept in the report). */
  seed?: number | null
  /** compare's --fail-on bounds on rps, p50 or p99: 'rps:-10%', 'p99:+20%'. */
  failOn?: string[]
}

/** One figure's decision in an ab report. */
export interface AbFigure {
  figure: 'rps' | 'p50' | 'p99'
  pairs: number
  /** B / A, the geometric mean of the pairs' ratios. */
  ratio: number | null
  low: number | null
  high: number | null
  verdict: 'better' | 'worse' | 'same' | 'undecided'
  decidedAt: number | null
  /** The smallest change (× either way) these pairs could have shown at the rule's power. */
  detectable: number | null
  seconds: number | null
  missing?: number
}

/** One block of an ab run: one lab run of one arm. */
export interface AbBlock {
  pair: number
  position: 1 | 2
  arm: 'A' | 'B'
  startedAt: string
  seconds: number
  status: string
  failure: string | null
  trusted: boolean
  untrusted: Reason[]
  requests: number | null
  rps: number | null
  p50: number | null
  p99: number | null
}

/** The report of `loadlab ab A B` (ab.schema.json). */
export interface AbReport {
  schema: 1
  kind: 'loadlab-ab'
  id: string
  createdAt: string
  finishedAt: string
  a: { kind: NonNullable<AbOptions['kind']>; name: string }
  b: { kind: NonNullable<AbOptions['kind']>; name: string }
  settings: {
    server: string | null; work: string | null; task: string | null; path: string | null; connections: number
    amount: number; warmup: number; timeoutSec: number; effect: number; maxTimeSec: number; seed: number
  }
  /** The rule book's AB values (docs/reference/rules.md). */
  rule: Record<string, number>
  machine: Report['machine']
  commit: string | null
  stopped: 'decided' | 'max-time' | 'max-pairs' | 'failed' | 'interrupted'
  pairs: number
  seconds: number
  figures: AbFigure[]
  failOn: Array<{ spec: string; metric: 'rps' | 'p50' | 'p99'; sign: '+' | '-'; bound: number; crossed: boolean }>
  blocks: AbBlock[]
}

/** What abCompare's caller may pass beside the options: a signal that stops it, and who hears each block and look. */
export interface AbControl {
  /** Stops the run: the report keeps every block measured, stopped 'interrupted'. */
  signal?: AbortSignal
  /** Each block, once measured. */
  onBlock?: (block: AbBlock) => void
  /** The decision after each pair: every figure as it stands, and whether all are called. */
  onLook?: (decision: { pairs: number; figures: AbFigure[]; decided: boolean }) => void
}

/** A against B in paired blocks until each figure is decided (loadlab ab): its report. */
export declare function abCompare (options: AbOptions, control?: AbControl): Promise<AbReport>
