// Timelines of REAL lab runs: the series add up to the round's totals, a server that stalls for a known
// time shows the stall in the right intervals, the page (opened in headless Chromium) has one timeline
// per server with its marks, the compare page overlays them, and the live progress line appears on a
// pseudo-terminal but never on stdout with --json.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFile, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { chromium } from 'playwright-core'
import { FIXTURES, ROOT, runLab, tempDir } from '../helpers/lab.js'
import { totals } from '../../loadtest/run/watch/timeline.js'
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/chromium.js'

const ARGS = CHROMIUM_ARGS
const STALL_AT_MS = 1000
const STALL_MS = 1000
const LIVE = /\d+\.\ds\/\d+\.\ds · \d+ done · \d+ req\/s · p99 /

let tmp, run, report, htmlFile
before(async () => {
  tmp = await tempDir('loadlab-timeline-')
  run = await runLab(
    [
      '--server',
      'queued-threads,stalls-once',
      '--duration',
      '3',
      '--connections',
      '2',
      '--work',
      'loop:1e5',
      '--out',
      tmp.dir,
      '--json'
    ],
    {
      env: {
        LOADLAB_PROGRESS: '1',
        LOADLAB_FIXTURE_STALL_AT_MS: String(STALL_AT_MS),
        LOADLAB_FIXTURE_STALL_MS: String(STALL_MS)
      },
      timeout: 180_000
    }
  )
  assert.equal(run.exitCode, 0, run.stderr)
  report = JSON.parse(run.stdout) // --json: stdout is the report and nothing else
  htmlFile = join(
    tmp.dir,
    (await readdir(tmp.dir)).find((f) => f.endsWith('.html'))
  )
})
after(() => tmp?.cleanup())

test("the series of a real run add up to the round's totals and run into the recovery period", () => {
  assert.equal(report.results.length, 2)
  for (const r of report.results) {
    const tl = r.timeline
    assert.ok(tl && tl.points.length >= 20 && tl.points.length <= 400, `${r.server}: ${tl?.points.length} points`)
    assert.equal(tl.intervalMs, 100)
    const sum = totals(tl)
    assert.equal(sum.sent, r.requests.sent, `${r.server}: sent`)
    assert.equal(sum.completed, r.requests.completed, `${r.server}: completed`)
    assert.equal(sum.timeouts, r.requests.timeouts, `${r.server}: timeouts`)
    assert.ok(
      tl.endMs >= 2900 && tl.recoveryEndMs >= tl.endMs,
      `${r.server}: end ${tl.endMs}, recovered ${tl.recoveryEndMs}`
    )
    assert.ok(
      tl.points.some((p) => p.outside?.cpuPercent > 0),
      `${r.server}: /proc CPU in the series`
    )
  }
  const pool = report.results.find((r) => r.server === 'queued-threads')
  const served = pool.timeline.points.filter((p) => p.server)
  assert.ok(served.length >= 20, `queued-threads pushed samples in ${served.length} intervals`)
  assert.ok(served.some((p) => p.server.inFlight > 0) && served.every((p) => typeof p.server.queueLength === 'number'))
  assert.ok(served.some((p) => p.server.elu > 0))
})

test('a server that stalls for a known time shows the stall in the right intervals', () => {
  const r = report.results.find((x) => x.server === 'stalls-once')
  const tl = r.timeline
  const i = tl.intervalMs
  // The runs of intervals without an answer in the round; the longest is the stall, at least its time long
  const points = tl.points.filter((p) => p.t < tl.endMs)
  const silences = []
  for (let from = 0; from < points.length; from++) {
    if (points[from].completed !== 0) continue
    let to = from
    while (to < points.length && points[to].completed === 0) to++
    silences.push({ from, length: to - from })
    from = to
  }
  const seen = `${r.disturbed ? 'disturbed' : 'undisturbed'}; answers a ${i} ms interval: ` +
    points.map((p) => p.completed).join(' ')
  const best = silences.reduce((a, b) => (b.length > a.length ? b : a), { from: 0, length: 0 })
  const startMs = points[best.from].t
  assert.ok(best.length * i >= STALL_MS - 2 * i, `silent for ${best.length} intervals; ${seen}`)
  const next = tl.points[best.from + best.length] // `points` is the timeline's first part
  assert.ok(next.latency.max >= STALL_MS - 2 * i, `the answers after the stall waited ${next.latency.max} ms`)
  // On a run the lab did not mark disturbed the stall sits where its timer puts it (the lab's clock starts
  // just after the server's reset), and nothing before it looks like one: no silence or wait of half its
  // length. On a starved machine a late timer or clock moves the stall, and a starved generator makes
  // silences of its own.
  if (r.disturbed) return
  assert.ok(best.length * i <= STALL_MS + 3 * i, `silent for ${best.length} intervals; ${seen}`)
  assert.ok(startMs >= STALL_AT_MS - 2 * i && startMs <= STALL_AT_MS + 3 * i, `the silence starts at ${startMs} ms; ${seen}`)
  const earlier = silences.filter((x) => x.from < best.from)
  assert.ok(earlier.every((x) => x.length * i < STALL_MS / 2), `answers kept coming before the stall; ${seen}`)
  const before = points.slice(2, best.from - 1)
  assert.ok(before.every((p) => !p.latency || p.latency.max < STALL_MS / 2), `and none waited as long; ${seen}`)
})

test('the page of a real run has one timeline per server with the end of the round and the recovery marked', async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const problems = []
    page.on('pageerror', (err) => problems.push(err.message))
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text())
    })
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: 'load' })
    const figures = await page.$$eval('figure[data-chart=timeline]', (list) =>
      list.map((f) => ({
        server: f.dataset.server,
        texts: [...f.querySelectorAll('svg text')].map((t) => t.textContent),
        svgs: f.querySelectorAll('svg').length,
        height: f.getBoundingClientRect().height
      }))
    )
    assert.deepEqual(figures.map((f) => f.server.split('@')[0]).sort(), ['queued-threads', 'stalls-once'])
    for (const f of figures) {
      assert.equal(f.svgs, 1)
      assert.ok(f.height > 400, `${f.server}: drawn (${f.height} px)`)
      for (const label of [
        'end of round',
        'recovery',
        'req/s',
        'latency (ms)',
        'CPU (% of a core)',
        'RSS (MB)',
        'seconds since the round started'
      ]) {
        assert.ok(f.texts.includes(label), `${f.server}: "${label}" in the chart`)
      }
    }
    assert.ok(figures.find((f) => f.server.startsWith('queued-threads')).texts.includes('in flight / queue'))
    assert.deepEqual(problems, [])
  } finally {
    await browser.close()
  }
})

test("the compare page overlays one server's timelines from two reports", async () => {
  const a = join(
    tmp.dir,
    (await readdir(tmp.dir)).find((f) => f.endsWith('.json'))
  )
  const b = join(tmp.dir, 'second.json')
  await copyFile(a, b)
  const out = join(tmp.dir, 'compare.html')
  const r = await execa(process.execPath, ['loadtest/compare/cli.js', a, b, '--html', out], {
    cwd: ROOT,
    reject: false
  })
  assert.equal(r.exitCode, 0, r.stderr)
  const html = await readFile(out, 'utf8')
  const figs = [
    ...html.matchAll(/<figure class="chart" data-chart="timeline" data-server="([^"]+)" data-lines="(\d+)"/g)
  ]
  assert.deepEqual(figs.map((m) => [m[1].split('@')[0], m[2]]).sort(), [
    ['queued-threads', '2'],
    ['stalls-once', '2']
  ])
})

test('the live progress line: on stderr with LOADLAB_PROGRESS=1, refreshed in place on a terminal, never on stdout with --json', async () => {
  assert.match(run.stderr, LIVE)
  assert.doesNotMatch(run.stdout, /req\/s ·/)
  const env = {
    ...process.env,
    LOADLAB_EXTRA_SERVERS: FIXTURES,
    LOADLAB_FIXTURE_STALL_AT_MS: '100000',
    LOADLAB_PROGRESS: ''
  }
  // The two terminal runs side by side, each into its own folder.
  const lab = (out) => `node loadtest/cli.js --server stalls-once --duration 1.5 --connections 1 --out ${join(tmp.dir, out)}`
  const [tty, json] = await Promise.all([
    execa('script', ['-qfec', lab('tty'), '/dev/null'], { cwd: ROOT, env, reject: false, timeout: 60_000 }),
    // --json on a terminal: stdout carries the report only (stderr sent away inside the terminal).
    execa('script', ['-qfec', `${lab('json')} --json 2>/dev/null`, '/dev/null'], { cwd: ROOT, env, reject: false, timeout: 60_000 })
  ])
  assert.equal(tty.exitCode, 0, tty.stdout)
  assert.match(tty.stdout, LIVE)
  assert.ok(
    tty.stdout.includes('\r\x1b[K[1/1] stalls-once: 0.') || tty.stdout.includes('\r\x1b[K[1/1] stalls-once: 1.'),
    'refreshed in place'
  )
  assert.equal(json.exitCode, 0)
  assert.doesNotMatch(json.stdout, /req\/s ·/)
  assert.equal(JSON.parse(json.stdout.replaceAll('\r', '')).results[0].server, 'stalls-once')
})
