// The HTML pages of REAL lab runs in headless Chromium (Debian chromium, driven by playwright-core):
// they open with no console error and no network request, show one spectrum line per server and
// the tables, and a screenshot of each is saved to test-output/.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { execa } from 'execa'
import { makeRealReport, ROOT } from '../../helpers/reports-real.js'
import { CHROMIUM, CHROMIUM_ARGS } from '../../../scripts/chromium.js'
import { capacityReport } from '../../fixtures/reports.js'
import { decide } from '../../../loadtest/result/decision.js'
import { renderReportHtml } from '../../../loadtest/report/page.js'

const ARGS = CHROMIUM_ARGS
const SHOTS = join(ROOT, 'test-output')

let dir, browser, real

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loadlab-browser-'))
  await mkdir(SHOTS, { recursive: true })
  real = await makeRealReport(dir)
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
})

after(async () => {
  if (browser) await browser.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

// Opens a file in a fresh page and records everything that would make it less than self-contained.
async function open (file) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const problems = []
  const requests = []
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`)
  })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`))
  page.on('request', (req) => requests.push(req.url()))
  const url = pathToFileURL(file).href
  const res = await page.goto(url, { waitUntil: 'load' })
  assert.ok(res === null || res.ok(), `page ${file} loaded`)
  return { page, problems, requests, url }
}

async function screenshot (page, name) {
  const path = join(SHOTS, name)
  await page.screenshot({ path, fullPage: true })
  const png = await readFile(path)
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG file')
  assert.ok((await stat(path)).size > 20_000, 'the screenshot is not blank')
  return path
}

test('the HTML report of a real run opens cleanly, draws one spectrum line per server and shows the tables', async () => {
  const servers = [...new Set(real.report.results.map((r) => r.server))]
  assert.deepEqual(servers.sort(), ['queued-threads', 'simple'])
  const { page, problems, requests, url } = await open(real.html)
  try {
    assert.deepEqual(problems, [])
    assert.deepEqual(requests, [url], 'the page itself is the only request')
    const spectrum = page.locator('figure[data-chart="spectrum"]')
    assert.equal(await spectrum.count(), 1)
    assert.equal(await spectrum.locator('svg path[aria-roledescription="line mark"]').count(), servers.length)
    assert.equal(await spectrum.getAttribute('data-lines'), String(servers.length))
    const box = await spectrum.locator('svg').boundingBox()
    assert.ok(box.width > 400 && box.height > 200, `spectrum is drawn at a readable size (${box.width}×${box.height})`)
    for (const name of ['rps', 'efficiency', 'delay']) { assert.equal(await page.locator(`figure[data-chart="${name}"] svg`).count(), 1, name) }
    const rows = page.locator('table.results tbody tr')
    assert.equal(await rows.count(), real.report.results.length)
    const tableText = await page.locator('table.results').innerText()
    for (const s of servers) assert.ok(tableText.includes(s), `table names ${s}`)
    assert.match(
      await page.locator('section[aria-label="machine"]').innerText(),
      new RegExp(real.report.machine.cpuModel.replace(/[()[\].*+?^$|\\]/g, '\\$&'))
    )
    assert.ok((await page.locator('pre.command').innerText()).includes('--server simple,queued-threads'))
    await screenshot(page, 'report.png')
  } finally {
    await page.close()
  }
})

test('the compare page of two real reports opens cleanly with the charts overlaid per machine', async () => {
  const other = {
    ...real.report,
    label: 'the other machine',
    machine: { ...real.report.machine, hostname: 'other-host' }
  }
  const bFile = join(dir, 'other.json')
  await writeFile(bFile, JSON.stringify(other))
  const out = join(dir, 'compare.html')
  const res = await execa(process.execPath, ['loadtest/compare/cli.js', real.json, bFile, '--html', out], {
    cwd: ROOT,
    env: { ...process.env },
    reject: false
  })
  assert.equal(res.exitCode, 0, res.stderr)
  const { page, problems, requests, url } = await open(out)
  try {
    assert.deepEqual(problems, [])
    assert.deepEqual(requests, [url])
    const lines = await page.locator('figure[data-chart="spectrum"] svg path[aria-roledescription="line mark"]').count()
    assert.equal(lines, 2 * real.report.results.length, 'a line per run per machine')
    assert.equal(await page.locator('table.compare tbody tr').count(), real.report.results.length)
    assert.match(await page.locator('table.compare thead').innerText(), /the other machine/)
    await screenshot(page, 'compare.png')
  } finally {
    await page.close()
  }
})

test('the capacity page\'s first screen: the decision, capacity bars with their whiskers and the plan rate, goodput past capacity', async () => {
  const report = capacityReport()
  report.decision = decide(report)
  const file = join(dir, 'capacity.html')
  await writeFile(file, renderReportHtml(report))
  const { page, problems, requests, url } = await open(file)
  try {
    assert.deepEqual(problems, [])
    assert.deepEqual(requests, [url])
    const screen = page.viewportSize()
    const onScreen = async (locator) => {
      const box = await locator.boundingBox()
      return box !== null && box.y + box.height <= screen.height && box.width > 0 && box.height > 0
    }
    assert.equal(await page.locator('pre.decision-command').innerText(), report.decision.command)
    const bars = page.locator('figure[data-chart="capacity-bars"]')
    assert.ok(await onScreen(bars), 'the capacity bars on the first screen')
    const rects = bars.locator('svg path[aria-roledescription="bar"]')
    assert.equal(await rects.count(), 4, 'a bar per strategy')
    const widths = await rects.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width))
    assert.ok(widths[0] > widths[2] && widths[2] > 0, `bars drawn to their capacity (${widths.join(', ')})`)
    const whiskers = bars.locator('svg [aria-roledescription="errorbar"]')
    assert.equal(await whiskers.count(), 3, 'a whisker per bracket')
    for (const w of await whiskers.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width))) assert.ok(w > 1, 'a whisker is drawn, not a point')
    assert.match(await bars.locator('svg').textContent(), /plan rate 60\.9 req\/s/)
    const past = page.locator('figure[data-chart="past-capacity"]')
    assert.ok(await onScreen(past), 'goodput past capacity on the first screen')
    assert.equal(await past.locator('svg path[aria-roledescription="line mark"]').count(), 4, 'a line per configuration')
    assert.match(await past.locator('svg').textContent(), /not measured/)
    assert.equal(await page.locator('table.past-capacity tbody tr').count(), 4)
    await screenshot(page, 'capacity-page.png')
  } finally {
    await page.close()
  }
})

test('npm run screenshot draws a report\'s .json as the lab draws its page now, its first screen only', async () => {
  const report = capacityReport()
  report.decision = decide(report)
  const json = join(dir, 'capacity-report.json')
  await writeFile(json, JSON.stringify(report))
  const png = join(dir, 'first-screen.png')
  const script = join(ROOT, 'scripts', 'screenshot.js')
  const res = await execa(process.execPath, [script, json, png, '--first-screen'], { cwd: ROOT, reject: false })
  assert.equal(res.exitCode, 0, res.stderr)
  const bytes = await readFile(png)
  assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG file')
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [1280, 900], 'the first screen: the viewport, not the page')
  const both = await execa(process.execPath, [script, json, png, '--first-screen', '--selector', 'figure'], { cwd: ROOT, reject: false })
  assert.equal(both.exitCode, 2, 'a usage error')
  assert.match(both.stderr, /--selector and --first-screen: give one of them/)
})
