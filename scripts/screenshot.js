// `npm run screenshot -- REPORT.html OUT.png [--selector CSS] [--width PX]`: a PNG of a report page
// (or of one element of it) taken with headless Chromium (Debian's, driven by playwright-core), so
// that pictures of real reports are made by the project's own script and can be made again.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js'
import { LabError, runMain, usageError } from '../loadtest/errors.js'

const ARGS = CHROMIUM_ARGS
const HELP = `usage: npm run screenshot -- REPORT.html OUT.png [--selector CSS] [--width PX]
  --selector CSS  shoot the first element that matches (e.g. 'figure[data-chart=timeline]'); default the whole page
  --width PX      viewport width (default 1280, 320 to 4000)`

function usage (message) {
  return usageError(`${message} (usage: npm run screenshot -- REPORT.html OUT.png [--selector CSS] [--width PX])`)
}

// Parse and check the command line; throws a usage error (exit code 2).
function parseScreenshotArgs (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { selector: { type: 'string' }, width: { type: 'string' }, help: { type: 'boolean' } }
    })
  } catch (err) {
    throw usage(err.message)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (positionals.length !== 2) throw usage(`expected REPORT.html and OUT.png, got ${positionals.length} argument(s)`)
  const [input, output] = positionals.map((p) => resolve(p))
  if (!existsSync(input)) throw usage(`${positionals[0]}: no such file`)
  if (!output.endsWith('.png')) throw usage(`${positionals[1]}: the output must be a .png file`)
  const width = values.width === undefined ? 1280 : Number(values.width)
  if (!Number.isInteger(width) || width < 320 || width > 4000) { throw usage(`--width: expected an integer from 320 to 4000, got ${values.width}`) }
  return { input, output, width, selector: values.selector ?? null }
}

// Open `input` in headless Chromium and write a PNG of the page (or of `selector`) to `output`.
async function screenshot ({ input, output, width = 1280, selector = null }) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  try {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    await page.goto(pathToFileURL(input).href, { waitUntil: 'load' })
    if (selector) {
      const el = await page.$(selector)
      if (!el) throw new LabError('LAB_SCREENSHOT', `no element matches ${selector} in ${input}`)
      await el.screenshot({ path: output })
    } else {
      await page.screenshot({ path: output, fullPage: true })
    }
  } finally {
    await browser.close()
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
  await screenshot(opts)
  console.error(`screenshot: wrote ${opts.output}`)
  return 0
}

runMain(import.meta.url, 'screenshot', main)
