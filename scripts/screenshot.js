// `npm run screenshot -- REPORT.html|REPORT.json OUT.png [--selector CSS] [--width PX] [--first-screen]`: a PNG
// of a report page (the whole page, its first screen, or one element of it) taken with headless Chromium
// (Debian's, driven by playwright-core), so that pictures of real reports are made by the project's own
// script and can be made again. A report's .json is drawn first by the lab's page writer as it is now.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js'
import { LabError, runMain, usageError } from '../loadtest/errors.js'
import { readReportFile } from '../loadtest/report/read.js'
import { renderReportHtml } from '../loadtest/report/page.js'
import { experimentFor } from '../loadtest/experiments/index.js'

const ARGS = CHROMIUM_ARGS
const HEIGHT = 900 // the viewport's height: a laptop's first screen
const USAGE = 'npm run screenshot -- REPORT.html|REPORT.json OUT.png [--selector CSS] [--width PX] [--first-screen]'
const HELP = `usage: ${USAGE}
  --selector CSS   shoot the first element that matches (e.g. 'figure[data-chart=timeline]'); default the whole page
  --width PX       viewport width (default 1280, 320 to 4000)
  --first-screen   only what a reader sees before scrolling (the viewport, ${HEIGHT} px high)
A REPORT.json is drawn as the lab draws a page now (a reference report's picture, made again after the page changes).`

function usage (message) {
  return usageError(`${message} (usage: ${USAGE})`)
}

// Parse and check the command line; throws a usage error (exit code 2).
function parseScreenshotArgs (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        selector: { type: 'string' },
        width: { type: 'string' },
        'first-screen': { type: 'boolean' },
        help: { type: 'boolean' }
      }
    })
  } catch (err) {
    throw usage(err.message)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (positionals.length !== 2) throw usage(`expected REPORT.html (or .json) and OUT.png, got ${positionals.length} argument(s)`)
  const [input, output] = positionals.map((p) => resolve(p))
  if (!existsSync(input)) throw usage(`${positionals[0]}: no such file`)
  if (!output.endsWith('.png')) throw usage(`${positionals[1]}: the output must be a .png file`)
  const width = values.width === undefined ? 1280 : Number(values.width)
  if (!Number.isInteger(width) || width < 320 || width > 4000) { throw usage(`--width: expected an integer from 320 to 4000, got ${values.width}`) }
  if (values.selector && values['first-screen']) throw usage('--selector and --first-screen: give one of them')
  return { input, output, width, selector: values.selector ?? null, firstScreen: Boolean(values['first-screen']) }
}

// Open `input` in headless Chromium and write a PNG of the page (or of `selector`) to `output`.
async function screenshot ({ input, output, width = 1280, selector = null, firstScreen = false }) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  try {
    const page = await browser.newPage({ viewport: { width, height: HEIGHT } })
    await page.goto(pathToFileURL(input).href, { waitUntil: 'load' })
    if (selector) {
      const el = await page.$(selector)
      if (!el) throw new LabError('LAB_SCREENSHOT', `no element matches ${selector} in ${input}`)
      await el.screenshot({ path: output })
    } else {
      await page.screenshot({ path: output, fullPage: !firstScreen })
    }
  } finally {
    await browser.close()
  }
}

// A report's page drawn now into a folder of its own, shot, and the folder removed.
async function fromReport (opts) {
  const report = readReportFile(opts.input, { as: 'screenshot' })
  const dir = await mkdtemp(join(tmpdir(), 'loadlab-screenshot-'))
  try {
    const input = join(dir, 'page.html')
    await writeFile(input, renderReportHtml(report, { experiment: await experimentFor(report.experiment) }))
    await screenshot({ ...opts, input })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

// The screenshot from argv: a bad argument is a usage error (exit 2), a missing Chromium or element exit 1.
async function main (argv) {
  const opts = parseScreenshotArgs(argv)
  if (opts.help) {
    console.log(HELP)
    return 0
  }
  if (!existsSync(CHROMIUM)) throw new LabError('LAB_SCREENSHOT', `${CHROMIUM} is missing; run npm run setup:browser`)
  if (opts.input.endsWith('.json')) await fromReport(opts)
  else await screenshot(opts)
  console.error(`screenshot: wrote ${opts.output}`)
  return 0
}

runMain(import.meta.url, 'screenshot', main)
