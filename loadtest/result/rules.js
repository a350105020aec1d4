// The rule book of the capacity verdict: every rule that chooses a sweep's steps, judges them and turns
// their verdicts into a capacity, and every value those rules read, each once with one line of why. A value
// that follows from another is computed from it here. result/sweep.js, result/capacity.js, result/trust.js
// and experiments/capacity.js read their values from this module and define none of their own;
// scripts/reference-docs.js writes docs/reference/rules.md from RULE_BOOK (its test holds them equal).
// The sample-size rule's binomial law lives here too: the sweep's step length and --quick's are computed from it.
import { roundTo } from './stats.js'
import { STRATEGIES } from './strategies.js'

// Every rule in order: { id, title, statement, values: [{ name, value, why, from }] } (docs/reference/rules.md).
export const RULE_BOOK = []

// A rule: its id, title and statement, and its values (name → [value, why] or [(values so far) → value, why,
// from], a value computed from others, `from` saying how). Returns the values, frozen.
function rule (id, title, statement, spec) {
  const values = {}
  const rows = []
  for (const [name, [v, why, from = null]] of Object.entries(spec)) {
    values[name] = typeof v === 'function' ? v(values) : v
    rows.push({ name, value: values[name], why, from })
  }
  RULE_BOOK.push({ id, title, statement, values: rows })
  return Object.freeze(values)
}

export const SAMPLE = rule('sample', 'The sample-size rule',
  'A step decides its percentile from the binomial law of its requests over the target: a pass when a share ' +
  'over it of `share` or more would give so few with probability at most 1 − `confidence`, a failure when it ' +
  'would give so many, else undecided (never a failure). Each step lasts for the fewest requests that can show ' +
  'the percentile with none over the target.', {
    confidence: [0.95, 'one-sided: a verdict wrong once in twenty at most, either way'],
    share: [0.01, 'the default run judges p99: 1 % of the requests may be over the target'],
    minRequests: [(v) => requestsToShow(0, { share: v.share, confidence: v.confidence }),
      'a step\'s default sample: the fewest requests that can show p99 with none over', 'requestsToShow(0)'],
    bracketConfidence: [(v) => bracketConfidenceOf(v.confidence), 'each end wrong at most 1 − confidence (a union ' +
      'bound); a lower bound: `confidence`',
    '1 − 2 × (1 − confidence)'],
    classMargin: [1.15, 'a mix\'s classes are drawn at random (a 20 % class of 1,500 requests: 300 ± 15): a step ' +
      'sized this much over the smallest class\'s share keeps it at its sample in most steps']
  })

export const SLO = rule('slo', 'The default targets',
  'Without --slo a run\'s p99 target is serviceMultiple × the calibrated service time, and a sweep judges ' +
  '`multiples` × it, tightest first; a default target is never under leastMs. --slo\'s own targets are kept.', {
    serviceMultiple: [5, 'a request may wait four service times before it misses: the tightest of the three'],
    multiples: [(v) => [v.serviceMultiple, 10, 25], 'the slowest strategy (a fork per request: p99 134 ms at its ' +
      'floor with a 24.6 ms service time) meets at least the loosest', 'serviceMultiple, 10, 25'],
    leastMs: [10, 'twice the machine\'s own p99 jitter for lone 0.82 ms requests (up to 5 ms): a tighter target ' +
      'judges the machine, not the strategy']
  })

export const SWEEP_LIMITS = rule('limits', 'A sweep\'s limits',
  'The capacity experiment\'s settings (--quick overrides them): a step lasts at least minDurationSec and at ' +
  'most maxStepSec, up to `refine` bisections per target, at most maxSteps steps for the first target and ' +
  'stepsPerTarget more per further target, within budgetSec a sweep (grown for a work slower than budgetWorkMs).', {
    minDurationSec: [2, 'the shortest step (and the brute force\'s): under it a verdict rests on a moment of ' +
      'the machine'],
    maxStepSec: [10, 'a step\'s usual cap: loop:3e7 (about 80 req/s on 2 cores) fits 299 requests in 3–10 s'],
    refine: [3, 'three bisections narrow a 1.2 × bracket to about 2 %'],
    maxSteps: [14, 'the first target\'s steps: floor, climb, down, bisections, repeats, the step past ' +
      'capacity, a hold'],
    stepsPerTarget: [2, 'a bisection and its repeat for each looser target'],
    budgetSec: [100, 'the least budget at which the replay of the quiet default runs keeps every ' +
      'first-target capacity'],
    budgetWorkMs: [24.6, 'the work budgetSec was set on: loop:3e7 as calibrated on the reference machine']
  })

export const LENGTH = rule('length', 'A step\'s length',
  'A step lasts long enough for its sample, within [minDurationSec, maxStepSec], lengthened up to `lengthen` × ' +
  'maxStepSec when that is too short for it (past that it is undecided unless its requests decide). A repeat of ' +
  'a rate whose steps were all undecided, with at most topUpMaxOver over, lasts only for the requests its pool ' +
  'still needs.', {
    lengthen: [3, 'a slow work\'s step may grow to 30 s rather than stay too short to decide'],
    topUpMaxOver: [2, 'a pool with one or two over needs 473 or 628 requests: a top-up, not a whole step']
  })

export const BUDGET = rule('budget', 'The time budget',
  'A step costs its planned length and stepOverheadSec; a step that does not fit is not offered, so no sweep ' +
  'exceeds its budget but by its hold step (HOLD). Steps for the looser targets only fit within looseShare of ' +
  'it. The budget grows with the ' +
  'work: budgetSec holds so many typical steps (minRequests at `typical` × the ideal) of a budgetWorkMs work.', {
    stepOverheadSec: [2, 'a round\'s drain, recovery probe and judging: 1.7 s a step measured, with a margin'],
    looseShare: [0.8, 'the looser targets\' bisections stop first; the rest is kept for the decision\'s target'],
    typical: [0.75, 'a typical step runs near three quarters of the ideal']
  })

export const FLOOR = rule('floor', 'The floor',
  'The sweep measures its floor first, at a rate where requests rarely overlap: rate × p50 at most `overlap` ' +
  '(a true floor). A floor whose requests overlapped is measured again lower: `margin` of the rate where they ' +
  'would just reach `overlap`, at least dropMin and at most dropMax × lower. Only a true floor that failed can ' +
  'show "cannot meet the target". A floor step lasts for minRequests (its p50), no longer: the steps above it show ' +
  'the percentile, and a floor with no pass above it is topped up; a repeat of its failure is as short. While the ' +
  'first target has no pass, the floor\'s top-up keeps its room: a step that would leave too few steps or too ' +
  'little budget for it gives way to it (unless its pool cannot reach its sample in the tries left).', {
    overlap: [0.25, 'one request takes at most a quarter of the gap between arrivals: they rarely wait for each other'],
    margin: [0.8, 'aim a fifth under the rate where requests would just overlap'],
    dropMin: [(v) => 1 / v.margin, 'a floor lowered at all is lowered at least as much as the ' +
      'margin asks', '1 / margin'],
    dropMax: [8, 'a saturated p50 is mostly queueing: never trust it for more than an 8 × drop'],
    minRequests: [20, 'enough requests for a p50']
  })

export const CLIMB = rule('climb', 'The climb, the search down and the bisection',
  'After the floor, open-loop steps at `fractions` of the ideal (cores / service time), then on at `climb` × ' +
  'until one fails; a failure more than downRatio × above the highest pass (or the floor) is searched down ' +
  'geometrically; bisections narrow the bracket until within `precision` (`precisionOthers` for the looser ' +
  'targets); then one step at `overload` × the capacity, which must fail (if it holds, the sweep goes on from ' +
  'it). A --tune sweep starts from the previous setting\'s bracket at `seeded` × its capacity. A target whose ' +
  'confirmed failure is at or under 1 − TIE.capacityMargin of the pass of a strategy swept before it there is ' +
  'searched no further once it has a pass (the first target is searched down to one): ruled out, it can neither ' +
  'win nor tie there. After a strategy with a pass (trusted or ' +
  'not) the climb starts at ledStart × the highest at the first target, then the fractions above ledGap × that.', {
    fractions: [[0.6, 0.75, 0.9, 1.05, 1.2], 'under the ideal to past it; a strategy below fails the first and is ' +
      'searched down'],
    climb: [1.5, 'past the ideal the climb goes on: the ideal never bounds a capacity'],
    downRatio: [2, 'a failure twice the highest pass is too far to bisect: halve, or take the geometric mean'],
    precision: [0.02, 'the decision\'s target: a bracket within 2 %'],
    precisionOthers: [0.05, 'the looser targets show the curve: 5 % is enough'],
    overload: [1.2, 'the step past capacity: a knee proven within 20 %'],
    seeded: [[0.6, 0.8, 0.95, 1.1, 1.3, 1.6, 2], 'a neighbouring setting\'s capacity is near: fewer steps find it'],
    ledStart: [0.9, 'a strategy that ties passes there, one below fails at once; the slow low steps are skipped'],
    ledGap: [1.05, 'a fraction within 5 % above the led start adds nothing a bisection would not']
  })

export const REPEAT = rule('repeat', 'Repeats and the verdict at a rate',
  'Noise only adds time: a verdict that agrees with what the sweep knows stands on one step, one that ' +
  'contradicts it needs two. A first failure is repeated before it counts, unless clear (clearShare of its ' +
  'requests or more over the target, undisturbed, its lag unable to flip it); a disturbed failure, or one the ' +
  'generator\'s lag could flip, counts only after maxTries steps; undecided steps pool their requests; at ' +
  'maxTries the majority decides, a tie the pooled share; a rate none of whose steps decided stays undecided.', {
    maxTries: [3, 'three steps at one rate: then the majority decides'],
    clearShare: [0.25, 'in the reference sweeps (scripts/repeat-flips.js) such a failure flipped on its repeat 3 ' +
      'times in 276; one 10–25 % over, 9 in 89']
  })

// The brute force's grid (scripts/capacity-brute-force.js): what the sweep is checked against.
export const GRID = rule('grid', 'The brute force\'s grid',
  'scripts/capacity-brute-force.js checks the sweep against a grid of rates `ratio` apart, each step long enough ' +
  'for `requests` requests; the hold and backlog rules judge a step as the grid judges its own.', {
    ratio: [1.08, 'rates 8 % apart: "10 % or less" between a capacity and the knee'],
    requests: [600, 'two p99 samples a step: a slow backlog shows within it']
  })

export const HOLD = rule('hold', 'The hold rule',
  'Near a sharp knee a short step can pass a rate above it, its backlog too small yet to show. The capacity\'s ' +
  'rate must hold one step long enough that a backlog growing at `excess` of the rate would add the target\'s ' +
  'wait less the floor\'s p50 `times` over (at least minSec, at most the longest step); where no step there lasted ' +
  'as long (within lengthShare of it), a hold step measures it, and the hold steps alone decide that rate. The ' +
  'first target\'s hold step runs past the step limit and the budget, pastLimits of them at most. A ruled-out ' +
  'target\'s pass is not held: it cannot be chosen.', {
    excess: [() => roundTo(GRID.ratio - 1, 9), 'a backlog growing by one grid step of the rate', 'grid ratio − 1'],
    times: [3, 'three times over: a margin against the backlog\'s noise'],
    minSec: [() => SWEEP_LIMITS.minDurationSec, 'a capacity never rests on less than the shortest step',
      'minDurationSec'],
    lengthShare: [0.95, 'a step planned within 5 % of the hold\'s length counts as one'],
    pastLimits: [1, 'a capacity never loses its hold to the search\'s limits']
  })

export const BACKLOG = rule('backlog', 'The backlog rule',
  'A step fails when its outstanding requests grow: their mean over its last quarter exceeds their mean over its ' +
  'second quarter by more than `share` of the requests sent and at least `min`, or (grown past `min`) kept up ' +
  'for `horizon` requests would add more wait than the target.', {
    share: [0.05, 'a backlog of one request in twenty sent is a queue, not jitter'],
    min: [3, 'a backlog of one or two requests is jitter at any rate'],
    horizon: [() => GRID.requests, 'a step judged as the brute force judges its own', 'grid requests']
  })

export const BOUND = rule('bound', 'The capacity\'s bound',
  'The capacity is the highest rate whose verdict is a pass: "refined" when a failure is confirmed within ' +
  'overload × of it, else "at least"; with no pass, "cannot meet the target" only from a true floor that ' +
  'failed over the target, else "undecided" with why. A target within `sensitive` × of the floor\'s p99 ' +
  '(either way) is marked: a few ms more or less moves the capacity.', {
    sensitive: [1.5, 'within half again of the floor\'s p99 a target judges the floor itself']
  })

export const TRUST = rule('trust', 'The trust limits',
  'Past a noise limit (by more than nearLimit) a step is disturbed: a disturbed failure counts only after ' +
  'maxTries steps. The work slower than calibrated is the server\'s own contention, not noise, when its tree ' +
  'had more work in flight than the cores left it or kept busyShare of them busy. A generator that did not keep ' +
  'the offered load disturbs a step; its lag puts a latency verdict in doubt only where it could flip it.', {
    stealPct: [5, 'the host took more than 5 % of the machine\'s CPU time'],
    foreignCores: [0.2, 'other processes used a fifth of a core: enough to move a 2-core knee'],
    workInflation: [1.3, 'the work ran 30 % slower than calibrated'],
    nearLimit: [0.1, 'a hair over a limit is as likely noise in the figure as on the machine'],
    busyShare: [0.9, 'a tree that kept nine tenths of its cores busy crowds them itself'],
    sendRateTolerance: [0.02, 'the issue rate within 2 % of the schedule in every 1 s window'],
    saturated: [0.9, 'a generator past 90 % of a core cannot keep a schedule'],
    lagP99LimitMs: [5, 'the generator\'s own probe limit (bench/generator.js)'],
    calibrationDrift: [0.1, 'the service time checked after the server may move 10 %'],
    aboveIdeal: [1.05, 'past 5 % over the ideal a capacity is beyond what the cores allow']
  })

export const QUICK = rule('quick', 'What --quick changes',
  '--quick judges the same percentile at a looser confidence: fewer requests a step, fewer bisections and steps, ' +
  'a smaller budget on a faster work, three coarse steps.', {
    confidence: [0.9, 'a verdict wrong once in ten at most, either way: a quick look'],
    minRequests: [(v) => requestsToShow(0, { confidence: v.confidence }), 'the fewest that show p99 with none over',
      'requestsToShow(0, confidence)'],
    maxStepSec: [2.5, 'a step from 92 req/s holds its 230 requests'],
    refine: [1, 'one bisection: the suite\'s runs show the rule, not a tight bracket'],
    maxSteps: [11, 'the floor, three coarse steps, a bisection, repeats, the step past capacity and a hold'],
    stepsPerTarget: [1, 'one more step per looser target'],
    budgetSec: [58, 'on a quiet machine the whole sweep with a failed hold fits'],
    budgetWorkMs: [8.2, 'loop:1e7 as calibrated on the reference machine'],
    fractions: [[0.6, 1.0, 1.4], 'three coarse steps around the ideal']
  })

export const CUT = rule('cut', 'A step cut short',
  'A step stops sending as soon as it is a clear failure at every target its verdict is wanted for (a repeat: ' +
  'those its rate is pending for; any other step: all): once it has run minSec and sent minRequests, and `share` ' +
  'of the requests it sent are over the loosest of them (from their due time: ended past it, or still out ' +
  'longer). Its requests still out are answered and judged with the rest. The chance that a step meeting the ' +
  'percentile ever shows so many over is at most falseCut (binomial, summed over every count it could stop at). ' +
  'A step of a mix, or with several generator threads, runs its length.', {
    minSec: [() => SWEEP_LIMITS.minDurationSec, 'no verdict rests on less than the shortest step', 'minDurationSec'],
    minRequests: [() => FLOOR.minRequests, 'no fewer requests than a floor needs for its p50', 'floor minRequests'],
    share: [() => REPEAT.clearShare, 'a clear failure: no repeat would flip it', 'clearShare'],
    falseCut: [(v) => cutError(v, SAMPLE.share), 'p99, the percentile a sweep judges (--quick too)',
      'Σ P(Binomial(n, 1 %) ≥ share × n), n ≥ minRequests']
  })

export const FIT = rule('fit', 'Arrivals as asked',
  'A step\'s requests issued per bin after the warm-up (binMs, joined to hold minPerBin on average; at least ' +
  'minBins bins) are tested against Poisson by Fisher\'s index of dispersion (χ², bins − 1 degrees of freedom). ' +
  'Burstier (upper tail) is a harsher load than asked: a failure on it is in doubt, as the lag makes one. ' +
  'Smoother (lower tail, Poisson asked) is a kinder one: a pass on it is undecided and does not pool. Each tail ' +
  'marks a step that kept its schedule with chance alpha / 2.', {
    binMs: [100, 'finer than the offered-load check\'s 1 s windows, coarser than the generator\'s wake-ups'],
    minPerBin: [3, 'the χ² law of the index holds from a few arrivals a bin'],
    minBins: [20, 'fewer bins test nothing: a 2 s step at a floor\'s rate'],
    alpha: [1e-3, 'about 100 steps in a default run: a step marked for nothing in one run of ten']
  })

export const HALVES = rule('halves', 'A step the same in both halves',
  'Each half of a step of planned length (requests due before and after its midpoint) is judged alone by the ' +
  'sample-size rule at `confidence`. Halves that contradict, one passing, one failing, show a step that changed ' +
  'as it ran: it is marked, a failure in doubt, else undecided and out of the pool. A steady step\'s halves ' +
  'contradict at most 2 × (1 − confidence) when its requests are independent; where latency comes in episodes ' +
  '(fast works at high rates) one episode marks a step, which is then repeated.', {
    confidence: [0.99, 'about 100 steps in a default run: a false mark in one step of fifty at most; a half ' +
      'shows p99 from 459 requests']
  })

export const TIE = rule('tie', 'A tie on capacity',
  'Candidates whose brackets overlap the highest capacity\'s, or whose capacity is within capacityMargin under it, ' +
  'tie on it, and the decision names one all the same. ' +
  'Past capacity first (a configuration that keeps beats those that collapse, docs/decision.md); then, each ' +
  'criterion keeping those within its margin of the best: goodput at goodputMultiple × C of each one\'s ' +
  'configuration as it would be deployed (as swept, or its shedding setting where as swept collapses) within ' +
  'goodputMargin; peak RSS within rssMargin of the smallest; the simpler strategy by `simplicity`; the higher ' +
  'capacity measured. The first criterion that leaves one names it; the alternative is the candidate that stayed ' +
  'with it longest, and the block gives its command too. Only untrusted or missing evidence is a refusal.', {
    capacityMargin: [() => roundTo(GRID.ratio - 1, 9), 'the accuracy the brute force checks a capacity to; the two ' +
      'pools swapped places by 2–5 % between default runs',
    'grid ratio − 1'],
    goodputMultiple: [2, 'the highest multiple the past-capacity probe runs: where a queue that sheds and one ' +
      'that does not part most'],
    goodputMargin: [0.15, 'over how far one configuration\'s goodput at 2 × C moved between the reference ' +
      'capacity runs (reports/reference/)'],
    rssMargin: [0.2, 'over how far a pool\'s peak RSS moved between the reference capacity runs ' +
      '(reports/reference/): a saving inside that is noise'],
    simplicity: [() => Object.keys(STRATEGIES).filter((n) => STRATEGIES[n].cpu), 'fewest parts to run and to ' +
      'fail first: one loop; processes the kernel balances; one pool behind a queue, of threads then of processes ' +
      '(IPC, copies); a thread started per request; pools in processes; a process forked per request. A server ' +
      'not named comes last', 'the CPU strategies in result/strategies.js order']
  })

export const COMPARE = rule('compare', 'compare\'s verdict on a ratio',
  'Each figure of one run has an interval from the run itself (result/interval.js). A ratio B / A is within noise ' +
  'while its log stays inside the band: the two intervals\' log half-widths and the floor of its kind of figure, ' +
  'added in quadrature. Beyond the band, where both reports have a ruler, the ratio is divided by what the ruler ' +
  'predicts for the strategy (result/machine.js): a residual inside the band widened by modelError and the ' +
  'ruler\'s own spread is put down to the machine, else the residual is better or worse. Where the lab marked ' +
  'either run disturbed, the band widens by floorDisturbed in quadrature, and a ratio between the two bands is ' +
  'disturbed: no call. A strategy the validation measured has its own floors (serverFloors, keyed by server or ' +
  'server/variant, on any work), any other run the floor of its kind. Without a ruler on ' +
  'either side the ratio is judged raw and the machine cannot be told apart. Floors and modelError are widths in ' +
  'natural log (0.2: × 1.22 either way).', {
    floorRate: [0.33, 'req/s and goodput: the 95th percentile of |log ratio| between identical tours, rows not ' +
      'marked disturbed (reports/reference/compare-validation)'],
    floorEfficiency: [0.36, 'efficiency (its ideal from each run\'s own calibration, which moves too): the same fit'],
    floorP50: [0.28, 'p50 and other middle percentiles: the same fit'],
    floorTail: [0.51, 'p99 and higher: the same fit'],
    floorDisturbed: [1.05, 'a run the lab marked disturbed: the 95th percentile of the drift between identical ' +
      'tours where either row was marked (the same validation)'],
    targetTolerance: [0.1, 'capacities judged against p99 targets further apart than this are not compared'],
    tailFrom: [99, 'a percentile from p99 up takes the tail\'s floor, one under it the middle\'s'],
    floorCapacity: [0.2, 'capacity: over the largest drift of the --quick matrix measured twice ' +
      '(reports/reference/validate-matrix-repeat)'],
    serverFloorZ: [2.24, 'a strategy\'s floor in root mean squares of its quiet log ratios: a half-normal\'s ' +
      '97.5th percentile (its held-out false alarms: reports/reference/compare-validation)'],
    serverFloors: [{
      'child-process': { rps: 0.22, efficiency: 0.269, p50: 0.218, p99: 0.419 },
      cluster: { rps: 0.471, efficiency: 0.42, p50: 0.283, p99: 0.562 },
      'cluster-threads': { rps: 0.354, efficiency: 0.343, p50: 0.34, p99: 0.601 },
      'long-vs-small-tasks/small': { rps: 0.631, efficiency: 1.044, p50: 0.598, p99: 0.747 },
      'queued-processes': { rps: 0.168, efficiency: 0.168, p50: 0.132, p99: 0.671 },
      'queued-threads': { rps: 0.14, efficiency: 0.106, p50: 0.11, p99: 0.582 },
      simple: { rps: 0.104, efficiency: 0.181, p50: 0.312, p99: 0.142 },
      'sleep-variants/sync-sleep-pooled': { rps: 0.433, efficiency: 0.433, p50: 0.156, p99: 0.678 },
      'worker-per-request': { rps: 0.286, efficiency: 0.313, p50: 0.302, p99: 0.331 }
    }, 'each strategy\'s fit on its identical pairs (scripts/validate-compare.js, ' +
      'reports/reference/compare-validation): one floor for all was the noisiest\'s'],
    modelError: [0.1, 'a strategy is not the ruler\'s work: the model\'s error on a strategy, checked by the ' +
      'kept validation\'s taskset and hog pairs (reports/reference/compare-validation)']
  })

export const PAIRED = rule('paired', 'Ratios paired by round',
  'With --runs N, each entry\'s figure in round k is divided by the baseline entry\'s in the same round (one ' +
  'round runs every entry once, in a fresh order). The ratio shown is the geometric mean of the per-round ' +
  'ratios. Its interval inverts the sign-flip permutation test of the per-round log ratios: the means of every ' +
  'non-empty subset of them, sorted, from the k-th lowest to the k-th highest, k = ⌊2^N × (1 − confidence) / 2⌋, ' +
  'cover the true ratio with probability 1 − 2k / 2^N when each round\'s log ratio is symmetric about it ' +
  '(Hartigan, 1969). Past maxExactRounds pairs, drawnSubsets random subsets (seeded) stand for them all. Fewer ' +
  'pairs than minRounds give no interval. Two reports\' ratios of one pair differ when their intervals are ' +
  'apart (neither reaches the other).', {
    confidence: [0.9, 'the level five rounds can reach (the fewest whose extreme subsets fall outside it); two ' +
      'such intervals apart is a rarer event than either missing'],
    minRounds: [(v) => Math.ceil(Math.log2(2 / (1 - v.confidence))), 'the fewest pairs whose lowest and highest ' +
      'subset means leave room for k = 1', '⌈log2(2 / (1 − confidence))⌉'],
    maxExactRounds: [16, 'every subset of 16 pairs: 65,535 means, milliseconds'],
    drawnSubsets: [(v) => 2 ** v.maxExactRounds - 1, 'random subsets stand for all of them past maxExactRounds ' +
      '(Hartigan: the coverage holds for random subsets too)', '2^maxExactRounds − 1'],
    seed: [1, 'the drawn subsets\' seed: a report gives the same interval each time it is read']
  })

export const CHANGE = rule('change', 'Change points in a history',
  'A history finds changes in each series (one figure of one run, on one machine, ordered by time) by E-divisive ' +
  'means: the split that most divides the energy distance of the two sides is a candidate, kept when a Welch ' +
  't-test of the sides gives p at most weakPValue, and the search goes on in each side. Then, as Otava does, the ' +
  'candidate with the weakest p is dropped while it is over maxPValue, its neighbours re-tested. A segment is ' +
  'at least minSegment reports long; a series shorter than twice that says it is too short for the test.', {
    maxPValue: [0.001, 'Otava\'s default: about one false change in a thousand tests of identical code'],
    weakPValue: [(v) => v.maxPValue * 10, 'Otava\'s split step keeps weak candidates, re-tested in the merge step',
      'maxPValue × 10'],
    minSegment: [3, 'a change holds for three reports in a row: one or two outliers are a spike (Otava#150)'],
    minPoints: [(v) => 2 * v.minSegment, 'a test needs a segment on each side of a change', '2 × minSegment'],
    maxPoints: [2000, 'the newest reports a series tests: the distances cost n² time (1,000 points: 0.1 s)'],
    machineFigures: [2, 'one ruler figure past its spread happens by chance; a new CPU or fewer cores moves ' +
      'several']
  })

// The floors are the largest drift of each figure over the undisturbed baseline tours of the compare validation
// (reports/reference/compare-validation: the 15 of 20 where the lab marked no row; end over start within a tour,
// and start over start between two tours back to back), a quarter more, rounded up to 5 %.
const quietDrift = (pct) => [Math.ceil((pct * 1.25) / 5) * 5, `moved up to ${pct} % between quiet readings`]

export const RULER = rule('ruler', 'The ruler\'s drift',
  'Two readings of a ruler figure (result/ruler.js) differ when their ratio lies outside the two readings\' ' +
  'spreads combined as a root of squares, each spread at least the figure\'s floor. A run whose ruler moved ' +
  '(end against start) is marked; two reports whose rulers differ are on different machines.', {
    loop: quietDrift(25),
    hash: quietDrift(21),
    json: quietDrift(230),
    render: quietDrift(94),
    cores: quietDrift(20),
    rtt: quietDrift(67),
    rps: quietDrift(96),
    worker: quietDrift(55),
    process: quietDrift(41),
    timerLag: quietDrift(151)
  })

export const RULER_TRUST = rule('ruler-trust', 'When a ruler explains nothing',
  'compare sets a ruler aside (ratios judged raw) when its readings moved (RULER), its cores offered are not its ' +
  'machine block\'s, its effective cores are not its scaling\'s last speedup, its report\'s runs show over ' +
  'coresShown × them (a pool over one event loop, same work). Its loop is not held to the report\'s calibrated ' +
  'service time: a warm server\'s loop and the ruler\'s differ by more than a machine does.', {
    coresShown: [roundTo(Math.exp(Math.hypot(COMPARE.floorRate, Math.log(1 + RULER.cores / 100))), 2),
      'past a run\'s floor and a reading\'s quiet drift together', 'exp(hypot(floorRate, ln(1 + RULER.cores %)))']
  })

export const MIXED_LOAD = rule('mixed', 'The mixed experiment\'s heavy load',
  'The mixed experiment offers its heavy class at `utilisation` of one thread: `utilisation` × 1000 / the work\'s ' +
  'calibrated service time (ms), the same rate for every strategy, with Poisson arrivals, whatever the capacity ' +
  'sweeps found.', {
    utilisation: [0.6, 'inline work then keeps cheap requests waiting (M/D/1: a cheap p99 of about 5 service times) ' +
      'with room to 1.6 × its time before the thread saturates; a constant schedule below 0.8 never queues them']
  })

export const AB = rule('ab', 'ab\'s stopping rule',
  '`loadlab ab A B` runs A and B in pairs of blocks, each pair in a seeded random order (AB or BA), and takes each ' +
  'pair\'s log ratio B / A of req/s, p50 and p99. From minPairs pairs on, after every pair, a paired Student t on ' +
  'those logs gives each figure an interval at lookLevel (two-sided): outside 1 the figure is better or worse, ' +
  'inside 1 / effect … effect it is the same; the first call stands. The run stops once every figure is called, ' +
  'at maxPairs, or when another pair would pass --max-time; a figure left is undecided, with the smallest change ' +
  'its pairs could have shown at `power`. The random order makes a pair\'s log ratio symmetric about 0 when A ' +
  'and B are the same, whatever the machine drifts.', {
    effect: [1.3, 'the change asked about by default: one run each calls it one time in four on this 2-core VM'],
    maxTimeSec: [300, 'five minutes: about 25 pairs of 300-request blocks of a 6 ms work'],
    falseAlarms: [0.05, 'a figure of identical arms called better or worse at most once in twenty comparisons, ' +
      'over every look'],
    minPairs: [3, 'two pairs give a t with one degree of freedom: an interval too wide to call anything'],
    maxPairs: [40, 'the looks the level is simulated for; past them the level would no longer hold'],
    lookLevel: [0.005, 'simulated (scripts/validate-ab.js --boundary): a t at every look from minPairs to ' +
      'maxPairs on identical arms calls a difference in 4.8 % of 20,000 simulated comparisons (Pocock\'s ' +
      'constant boundary)'],
    power: [0.9, 'an undecided figure states the change its pairs would have called 9 times in 10'],
    sdFloor: [0.01, 'a spread of log ratios under 1 % is taken as 1 %: blocks of one machine never agree closer']
  })

// How far a request's phases are trusted (result/phases.js phaseTrust): the shares at a percentile are in
// doubt when what the clocks leave unexplained is large beside its latency, or most stamps were moved.
export const PHASE_TRUST = rule('phases', 'The phases\' trust',
  'The phases\' shares at a percentile are in doubt when the median unexplained time exceeds `unexplainedShare` ' +
  'of that request\'s latency, or more than `clampedShare` of the stamped requests had a stamp clamped.', {
    unexplainedShare: [0.1, 'a tenth of the latency unexplained moves a phase\'s share by up to ten points'],
    clampedShare: [0.5, 'stamps mostly outside their requests are from another clock, not this request'],
    stampSlackMs: [5, 'a stamp this far outside its request is clamped into it; farther, it is another request\'s']
  })

export const PAST = rule('past', 'Past capacity and the plan rate',
  'The plan rate is `headroom` of the capacity C. A candidate is close to the winner when its bracket overlaps ' +
  'the winner\'s or its capacity is within closeShare of it; each close candidate is probed as swept and with ' +
  'its shedding setting at collapseMultiple and TIE.goodputMultiple × C, then a burst. A configuration ' +
  'collapses when its goodput at collapseMultiple × C is under collapseShare of C, or its recovery after the ' +
  'burst (recoveryShare of a window good, `confirmWindows` windows in a row) takes longer than recoverySec or ' +
  'is not seen; it keeps when it does not collapse and its goodput is at least keepShare of C at every multiple ' +
  'probed. A collapsing winner loses to a configuration that keeps within survivorWithin of it. A tree whose ' +
  'answers\' work exceeds its CPU by more than cpuSlack × wasted no CPU (the work was not CPU).', {
    headroom: [0.8, 'past the knee latency climbs steeply; common practice plans at 75–80 % of it'],
    closeShare: [0.15, 'wider than a tie: a candidate this close could still win once past capacity counts'],
    collapseMultiple: [1.5, 'the first step past capacity: a queue that does not shed is already lost there'],
    collapseShare: [0.5, 'under half of C answered in time at 1.5 × C: most of the load is wasted'],
    recoverySec: [10, 'a server not back within 10 s of the burst is metastable (docs/overload.md)'],
    confirmWindows: [2, 'two 1 s windows in a row recovered: one is a lull'],
    recoveryShare: [0.95, 'a window recovered when this share of what was offered in it was good'],
    keepShare: [0.8, 'at every multiple probed it still serves what its plan rate asks'],
    survivorWithin: [0.1, 'a survivor this close gives up little capacity for a server that does not collapse'],
    cpuSlack: [1.1, 'the work\'s time and the CPU are measured apart: a tenth over is the clocks, more a sleep']
  })

export const CONFIRM = rule('confirm', '--confirm\'s round',
  '--confirm runs the decision\'s command at its plan rate for `sec` seconds (--quick: quickSec, or as long as ' +
  'SAMPLE.minRequests take, at most `sec`) and says whether it held.', {
    sec: [20, 'at a plan rate near 60 req/s: four times the requests p99 needs, and 20 windows for a trend'],
    quickSec: [10, 'half: the test suite\'s budget']
  })

export const INTERVAL = rule('interval', 'A run\'s own intervals',
  'result/interval.js gives each figure of one run an interval at `confidence`: a percentile from order ' +
  'statistics, a rate from batch means over its timeline windows (at most maxBatches batches of at least ' +
  'batchWindows windows and batchCount requests; fewer than minBatches give no interval).', {
    confidence: [0.95, 'each interval covers its figure 19 times in 20 (the t and z tables of result/interval.js ' +
      'are for it)'],
    maxBatches: [10, 'longer batches as the run grows: neighbouring seconds\' correlation stays inside one'],
    batchWindows: [1, 'a batch is at least one window'],
    minBatches: [3, 'a t with one degree of freedom is 12.7: no interval worth giving'],
    batchCount: [20, 'a batch of a few requests is counting noise']
  })

export const CALIBRATION = rule('calibration', 'The calibrated service time',
  'A work\'s service time is the servicePercentile-th percentile of its warm calls in one child process: the ' +
  'last warmShare of them (at least every call after the first).', {
    warmShare: [2 / 3, 'V8 tiers up in the first third; React rendering speeds up for a dozen calls'],
    servicePercentile: [10, 'noise only adds time: the fast end is the work\'s own time']
  })

// The first floor's rate for a service time (ms): `margin` of the rate where one request would take `overlap`
// of the gap between arrivals; null without a service time.
export function firstFloorRate (serviceMs) {
  return serviceMs > 0 ? (FLOOR.margin * FLOOR.overlap * 1000) / serviceMs : null
}

// The p99 target for a service time (ms): --slo's `sloMs` when given, else SLO.serviceMultiple service times,
// never under SLO.leastMs; `rule` says how it was set.
export function sloFor (serviceMs, sloMs = null) {
  if (sloMs) return { sloMs, own: true, rule: `--slo ${sloMs} ms` }
  if (!(serviceMs > 0)) return { sloMs: null, own: false, rule: 'no calibration: no target' }
  const ms = SLO.serviceMultiple * serviceMs
  return {
    sloMs: leastTarget(ms),
    own: false,
    rule: `${SLO.serviceMultiple} × the calibrated service time (${serviceMs} ms)${leastNote(ms)}`
  }
}

// The p99 targets of a sweep, tightest first: --slo's list when given, else SLO.multiples service times.
export function targetsFor (serviceMs, slos = null) {
  if (slos?.length) return { targets: slos.slice(), rule: `--slo ${slos.join(', ')} ms` }
  if (!(serviceMs > 0)) return { targets: [], rule: 'no calibration: no target' }
  return {
    targets: [...new Set(SLO.multiples.map((m) => leastTarget(m * serviceMs)))],
    rule: `${SLO.multiples.join(', ')} × the calibrated service time (${serviceMs} ms)` +
      leastNote(SLO.multiples[0] * serviceMs)
  }
}

// A default target of so many service times, never under SLO.leastMs.
function leastTarget (ms) {
  return Math.max(SLO.leastMs, roundTo(ms, 3))
}

function leastNote (ms) {
  return ms < SLO.leastMs
    ? `, raised to ${SLO.leastMs} ms (the least default target: below it a target judges the machine's own ` +
      'latency jitter)'
    : ''
}

// How often a bracket holds the knee when each of its ends is judged at `confidence`: each end wrong at most
// 1 − confidence (a union bound).
export function bracketConfidenceOf (confidence = SAMPLE.confidence) {
  return roundTo(1 - 2 * (1 - confidence), 3)
}

// The percentile a share over the target stands for (0.01 → 99, 0.05 → 95).
export function percentileOf (share = SAMPLE.share) {
  return roundTo(100 * (1 - share), 3)
}

// P(X ≤ k) for X ~ Binomial(n, p), summed in log space (n up to millions; terms below 1e-308 vanish).
function binomialCdf (k, n, p) {
  if (k < 0) return 0
  if (k >= n) return 1
  let log = n * Math.log1p(-p)
  let sum = Math.exp(log)
  const ratio = Math.log(p) - Math.log1p(-p)
  for (let i = 0; i < k; i++) {
    log += Math.log((n - i) / (i + 1)) + ratio
    sum += Math.exp(log)
  }
  return Math.min(1, sum)
}

// What n requests with `over` of them over the target show about the share over it (p99: share 1 %):
// 'pass' when a share of `share` or more would give so few over with probability ≤ 1 − confidence (the
// one-sided upper bound is under it), 'fail' when it would give so many with that probability, else
// 'undecided'. p99 needs 299 requests with none over, 473 with one, 628 with two.
export function percentileCall (n, over, { share = SAMPLE.share, confidence = SAMPLE.confidence } = {}) {
  const alpha = 1 - confidence
  if (!(n > 0)) return 'undecided'
  if (binomialCdf(over, n, share) <= alpha) return 'pass'
  if (over > 0 && 1 - binomialCdf(over - 1, n, share) <= alpha) return 'fail'
  return 'undecided'
}

// The fewest requests that can show the percentile with `over` of them over the target (299 for p99 with none).
export function requestsToShow (over = 0, opts = {}) {
  let n = over + 1
  while (percentileCall(n, over, opts) !== 'pass') n++
  return n
}

// P(X ≥ k) for X ~ Binomial(n, p).
function binomialTail (k, n, p) {
  return k <= 0 ? 1 : 1 - binomialCdf(k - 1, n, p)
}

// The chance that a step whose requests are over the target with probability `share` shows CUT.share of them
// over at some count n ≥ minRequests it could stop at (a union bound: each term summed, until they vanish).
function cutError ({ minRequests, share: cutShare }, share) {
  let sum = 0
  for (let n = minRequests; n < 1e6; n++) {
    const term = binomialTail(Math.ceil(cutShare * n), n, share)
    sum += term
    if (term < 1e-18) break
  }
  return Number(sum.toPrecision(2))
}
