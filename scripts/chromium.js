// Where the page tests and `npm run screenshot` find Chromium, and how they start it: headless, with
// the background networking off (this machine has no network but the registries). Importing this
// installs nothing (scripts/ensure-chromium.js does, on Debian).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

// The browsers tried, in order: LOADLAB_CHROMIUM; Debian's chromium package; the browser
// playwright-core would use (`npx playwright-core install chromium` puts it in its cache); Chrome or
// Chromium installed as a macOS app.
export function chromiumCandidates (env = process.env) {
  const out = []
  if (env.LOADLAB_CHROMIUM) return [env.LOADLAB_CHROMIUM]
  out.push('/usr/bin/chromium')
  try {
    const { chromium } = createRequire(import.meta.url)('playwright-core')
    out.push(chromium.executablePath())
  } catch {}
  if (process.platform === 'darwin') {
    out.push(
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'
    )
  }
  return out
}

// The first candidate that exists, else the first one (whose absence the caller reports).
function findChromium (env = process.env) {
  const candidates = chromiumCandidates(env)
  return candidates.find((p) => existsSync(p)) ?? candidates[0]
}

// The browser playwright-core drives.
export const CHROMIUM = findChromium()

// The flags it starts with.
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run'
])
