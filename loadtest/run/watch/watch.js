// Watch one measured round in time: feeds a timeline (timeline.js) from the load engine's events, the
// /proc sampler and the server's pushed samples (servers/lib/sampling.js over IPC), reports live
// progress, and after the round keeps watching until the server is idle again (or a cap).
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { COARSE_DIGITS, createHistogram } from '../../result/histogram.js'
import { createTimeline } from './timeline.js'
import { roundTo } from '../../result/stats.js'
import { wallOffsetMs } from '../epoch.js'

const IDLE_CPU_PERCENT = 10 // the tree uses less than this share of one core over IDLE_WINDOW_MS: idle
const IDLE_WINDOW_MS = 500 // two of the sampler's 200 ms samples and more; a 10 ms clock tick reads 2 %
const PROGRESS_MS = 250

// The server's pushed samples (IPC): the latest of each process, combined over processes at each arrival.
function serverSamples (timeline, wall0) {
  const latest = new Map()
  const onMessage = (msg) => {
    if (msg?.lab !== 'sample' || typeof msg.t !== 'number') return
    latest.set(msg.pid, msg)
    const list = [...latest.values()]
    const sum = (k) =>
      list.some((s) => typeof s[k] === 'number') ? list.reduce((a, s) => a + (s[k] ?? 0), 0) : undefined
    const loops = list.map((s) => s.eventLoopMaxMs).filter((v) => typeof v === 'number')
    // null where the runtime cannot measure it (servers/lib/instruments.js): no figure, not 0
    const elus = list.map((s) => s.elu).filter((v) => typeof v === 'number')
    timeline.gauge(msg.t - wall0, 'server', {
      inFlight: sum('inFlight'),
      queueLength: sum('queueLength'),
      threadsBusy: sum('threadsBusy'),
      eventLoopMaxMs: loops.length ? roundTo(Math.max(...loops), 3) : undefined,
      elu: elus.length ? roundTo(elus.reduce((a, b) => a + b, 0) / elus.length, 3) : undefined
    })
  }
  return { onMessage, inFlight: () => [...latest.values()].reduce((a, s) => a + (s.inFlight ?? 0), 0) }
}

// Outside samples (sample.js startSampler's onSample): CPU % from consecutive samples (none where the
// sampler's source gives no CPU: cpuSeconds null), and the tree's CPU % over the last IDLE_WINDOW_MS.
function outsideSamples (timeline, now) {
  let prev = null
  const recent = [] // { t, cpuSeconds } of the last IDLE_WINDOW_MS, for the idle check
  const onOutside = (s) => {
    const t = now()
    if (prev && t > prev.t) {
      const cpu = s.cpuSeconds !== null && prev.cpuSeconds !== null
      const cpuPercent = cpu ? roundTo((((s.cpuSeconds - prev.cpuSeconds) * 1000) / (t - prev.t)) * 100, 3) : null
      timeline.gauge(t, 'outside', {
        cpuPercent: cpu ? Math.max(0, cpuPercent) : null,
        rssBytes: s.rssBytes,
        processes: s.processes,
        threads: s.threads
      })
    }
    prev = { t, cpuSeconds: s.cpuSeconds }
    recent.push(prev)
    while (recent.length > 2 && recent[1].t <= t - IDLE_WINDOW_MS) recent.shift()
  }
  // (one clock tick in a short interval would read 10 %)
  const recentCpuPercent = () => {
    if (recent.length < 2) return null
    const a = recent[0]
    if (a.cpuSeconds === null) return null
    const b = recent.at(-1)
    return b.t - a.t >= IDLE_WINDOW_MS / 2 ? (((b.cpuSeconds - a.cpuSeconds) * 1000) / (b.t - a.t)) * 100 : null
  }
  // No outside samples, or a source without CPU figures: idle is then what the server says.
  const cpuIdle = () => {
    const cpu = recentCpuPercent()
    return prev === null || prev.cpuSeconds === null || (cpu !== null && cpu < IDLE_CPU_PERCENT)
  }
  return { onOutside, cpuIdle }
}

// The live progress of a round every PROGRESS_MS: elapsed, completed, the last second's rate, p99.
function liveProgress ({ now, plannedMs, amount, onProgress }) {
  const all = createHistogram({ digits: COARSE_DIGITS })
  const counts = { completed: 0, timeouts: 0 }
  let window = [] // completion times in the last second, for the live rate
  const timer = onProgress
    ? setInterval(() => {
      const t = now()
      window = window.filter((x) => x > t - 1000)
      const rps = t >= 1000 ? window.length : roundTo(window.length / (t / 1000), 3)
      const p99 = all.totalCount ? all.getValueAtPercentile(99) / 1000 : null
      onProgress({ type: 'round', elapsedMs: Math.round(t), plannedMs, amount, ...counts, rps, p99 })
    }, PROGRESS_MS).unref()
    : null
  return {
    record (t, info) {
      if (info.timeout) counts.timeouts++
      else if (!info.error) counts.completed++
      if (!info.error && info.latencyMs >= 0) all.recordValue(Math.max(1, Math.round(info.latencyMs * 1000)))
      if (onProgress && !info.error) window.push(t)
    },
    // Requests that ended on a generator thread, counted without their latencies (those join at the end).
    add (t, { completed = 0, timeouts = 0 }) {
      counts.completed += completed
      counts.timeouts += timeouts
      if (onProgress) for (let i = 0; i < completed + timeouts; i++) window.push(t)
    },
    stop: () => clearInterval(timer)
  }
}

// Start watching now. child: the server's process (its 'message' events carry samples), or null.
// onProgress(event) gets { type: 'round', elapsedMs, plannedMs, amount, completed, rps, p99, timeouts }.
// originEpochMs: t = 0 at that wall-clock time instead (a shard's common start, so shards line up);
// histograms: each point keeps its encoded latency histogram (a shard's, for npm run merge).
export function watchRound ({
  intervalMs, child = null, plannedMs = null, amount = null, onProgress = null, originEpochMs = null, histograms = false
}) {
  const timeline = createTimeline({ intervalMs })
  const wall = wallOffsetMs()
  const t0 = originEpochMs === null ? performance.now() : originEpochMs - wall
  const now = () => performance.now() - t0
  const server = serverSamples(timeline, t0 + wall)
  const outside = outsideSamples(timeline, now)
  const progress = liveProgress({ now, plannedMs, amount, onProgress })
  let ended = false
  child?.on('message', server.onMessage)
  return {
    onOutside: outside.onOutside,
    // Generator threads record on this clock (epoch ms of t = 0) and their timelines join this one.
    clock: { originEpochMs: t0 + wall, intervalMs },
    absorb (dump) {
      timeline.absorb(dump)
    },
    // Generator threads' requests ended since their last report ({ completed, timeouts }): live progress.
    ended (delta) {
      progress.add(now(), delta)
    },
    // One request sent (engine event).
    sent () {
      timeline.sent(now())
    },
    // One request ended (engine event): { latencyMs, status, timeout, error }.
    record (info) {
      const t = now()
      timeline.record(t, info)
      progress.record(t, info)
    },
    // The round is over: stop the live progress, mark the end.
    endRound () {
      ended = true
      progress.stop()
      timeline.end(now())
    },
    // Keep watching after the round until the tree is idle (CPU under IDLE_CPU_PERCENT of a core over the
    // last IDLE_WINDOW_MS, and nothing in flight on the server) or capMs after the round's end.
    async recover ({ capMs, signal }) {
      if (!ended) this.endRound()
      const stopAt = performance.now() + capMs
      while (!signal?.aborted && performance.now() < stopAt) {
        await delay(timeline.intervalMs, undefined, { signal }).catch(() => {})
        if (outside.cpuIdle() && server.inFlight() === 0) break
      }
      timeline.recovered(now())
    },
    // Stop listening and give the series.
    stop () {
      progress.stop()
      child?.off('message', server.onMessage)
      return timeline.series({ histograms })
    }
  }
}
