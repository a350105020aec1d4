// Where the page tests and `npm run screenshot` find Chromium, and how they start it: Debian's package,
// headless, with the background networking off (this machine has no network but the registries).
// Constants only: importing this installs nothing (scripts/ensure-chromium.js does).

// The browser playwright-core drives: LOADLAB_CHROMIUM, or Debian's chromium package.
export const CHROMIUM = process.env.LOADLAB_CHROMIUM || '/usr/bin/chromium'

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
